"""The cited-answer core: one relevance floor, one extractive writer, one verifier and one answer record, used
by the web report (Research/report.py), Wikipedia answers, Documents answers and report chat (and so by
follow-ups, re-runs and dig-deeper rounds, which go through the report stage). The answer record is records.Answer;
every answer numbers its sources 1..k without gaps, cited first (numbering.number_gapless).

Relevance floor. A quotable text (Retrieval/quotable.py) answers a question only when its relevance reaches
RELEVANCE_FLOOR. Its relevance is the mean of two measures, less a penalty:
  - how much of what the question asks about the text holds (`coverage`): the share of the question's terms
    (content words compared as stems, so "mediating" meets "mediation" (quotable.stem); a name of several
    words, "Karl von Frisch", is one term; the words that only frame the question, like "year", "name",
    "many", the asker's own "you", "my", "we" of "How do you …?", and the pronouns pointing back, "his", left
    out; "US" held by "the United States": abbreviations.other_forms) that the text holds, each term
    weighted by its rarity among all the texts the answer may quote (idf = ln(1 + N / (1 + df))); a term no
    text holds (it may be said in other words) weighs as much as the average held term; a text's words include
    its source's title, since a page's title names what its sentences and list items are about, and, at
    CONTEXT_WEIGHT, the sentence before it in its passage, since a sentence inherits its topic from the one
    before ("it swept through 146 city blocks" after "a fire ravaged Jacksonville"), when it holds a term itself
    (one holding none is about something else: "The colony walks …" after the answer). A term every text holds
    (the topic) weighs little, the terms that single out the asked fact weigh most;
  - how close the text's meaning is to the question's: the cosine of their embeddings (the configured
    embedding model), which carries what words cannot, a question that says "join" against a text that says
    "became a member", or "made up of" against "composed of";
  - the penalty, FORM_PENALTY, when the question's form asks for a kind of answer (a date for "when", a number for
    "how many", money for "how much did it cost", a name for "who", a place for "where", a frequency for "how
    often": question_forms.asked_for) and the text holds none; and NUMBER_PENALTY when the question states a number
    or ordinal ("Super Bowl 50", "in 1984", "around 1800", "the third series"; not "first" or "second", said in many
    ways or a unit of time) that neither the text, its title nor the sentence before it holds: the text is then most
    likely about another game, year or edition; and NAME_PENALTY when the question states a name (a run of
    capitalised words after its first word: "Carl Wilhelm Scheele", "Tesla's", "ABC"; `question_names`) of which
    neither the text, its title nor the sentence before it holds any word (accents aside): a text about another
    person, place or work ("When did Carl Wilhelm Scheele discover oxygen?" against a sentence on how Pictet
    liquefied it), twice that when the missing name has several words (a full name is rarely said otherwise,
    while "Tesla" may be "the inventor");
  - the bonus, PINPOINT_BONUS, when the text states the answer the way the question asks for it (`pinpoints`): a
    number that counts what "how many N" counts ("500 points"), for a question asking what something is named or
    called, a name given by a naming word ("a story called Children of Earth"), or, for a question asking what is
    needed, a list of it ("What You'll Need: Cloche; Moss; …"), for a question asking what someone said, a text
    reporting their words ("…, Zuckerberg said at the trial"), for a question asking what something is used for, a
    text saying it ("is used to treat …"; question_forms.pinpoints), for "why", a text giving a cause or a purpose
    in so many words ("because …", "due to …", "in order to …"), for "what is an example of", a text giving one
    ("such as …", "e.g. …"; Retrieval/cues.py; these two the bonus only: such a text gets no place of its own in the
    lead choice), for "What does AFC stand for?" a text spelling AFC out (Retrieval/abbreviations.py; one that does
    not lacks the form asked for: FORM_PENALTY).
Without an embedding model the relevance is the coverage alone, less the penalty, against LEXICAL_FLOOR.
Below the floor a text is never presented as the answer: when nothing clears it the answer says the sources
do not answer the question and lists the closest passages as not used; when a part of the question (a
sub-question) has nothing that clears it, the answer names that part as not answered. The floor and weights
are measured on bench/research_qa.py (Docs/research.md); the floor sits low enough that a real paraphrase is
not refused by the few thousandths CPUs differ by.

Extractive writer. The lead is the one text that best answers the question by its shape
(Retrieval/question_forms.asked_for): for "what is X" a definition of X ("X is …", "X refers to …"), for "when" a
date, for "how often" a frequency ("every day", "twice a week"), for "how many/much" a number, for "who" a
name, for "where" a place, for "how do I …" an instruction or advice ("Opt for simple food …", "You can …";
advice.gives_advice); among the LEAD_POOL most relevant texts that clear the floor, the most relevant
that pinpoints the answer, else, for "what is X", the most relevant definition that names what X is ("X is a
framework …", not "X is for everyone …"), else the most relevant with that shape, else, for a how-to, the most
relevant naming a way to do it ("… is an easy way to …", advice.names_a_way), else the most relevant. For
a how-to question ("How do I …", "How to …") whose texts include steps ("Step 2: …", quotable rule 11), the
steps of the how-to with the most relevant step are the answer, in their order (`in_step_order`).
Then the supporting texts, best ranked first: for a question of one part, texts that clear the floor and texts
within SUPPORT_MARGIN below it by their own words, the sentence before not counted (on the question's topic,
not enough to answer it on their own, but the evidence a reader wants beside the lead: how the dance shows
direction, after the sentence that names the dance); under each sub-question only texts that clear the floor
for that sub-question. When none of a one-part answer's texts may hold the kind of answer the question's form
asks for (question_forms.may_give), a line under it says so (`missing_note`, MISSING).

The verifier (Retrieval/verifier.py) gives every cited sentence its evidence and a verdict.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from App_Function_Libraries.Retrieval.abbreviations import FRAMING, asks_either, expands, other_forms
from App_Function_Libraries.Retrieval.advice import gives_advice, names_a_way
from App_Function_Libraries.Retrieval.answer_markdown import not_answered_markdown, render_bullets
from App_Function_Libraries.Retrieval.bm25 import tokenize
from App_Function_Libraries.Retrieval.citations import (CitableSource, document_texts, quote_candidates,
                                                        rank_sentences, sentence_before)
from App_Function_Libraries.Retrieval.cues import restates, states_as_asked
from App_Function_Libraries.Retrieval.names import named_by_surname, question_names, surnames
from App_Function_Libraries.Retrieval.question_forms import (NAME_PARTICLES, answer_shape, asked_for,
                                                             definition_subject, describes, is_definition, known_names,
                                                             may_give, pinpoints)
from App_Function_Libraries.Retrieval.quotable import asks_how_to, repeats_title, stem, step_number
from App_Function_Libraries.Retrieval.verifier import verify, words_of
from App_Function_Libraries.records import Answer, AnswerSource, NotUsed

RELEVANCE_FLOOR = 0.53  # with an embedding model: the mean of coverage and similarity, less the penalty
LEXICAL_FLOOR = 0.5  # without one: the coverage, less the penalty
FORM_PENALTY = 0.1
NUMBER_PENALTY = 0.1  # the text (its title, the sentence before) lacks a number or ordinal the question states
NAME_PENALTY = 0.05  # the text (its title, the sentence before) lacks a name the question states (x2: a full name)
PINPOINT_BONUS = 0.05  # the text states the answer the way the question asks for it (`pinpoints`)
SIMILARITY_WEIGHT = 0.5  # the similarity's weight against the coverage's
CONTEXT_WEIGHT = 0.7  # a term held only by the sentence before the text counts this much
SUPPORT_MARGIN = 0.1  # a supporting text (not the lead) may sit this far below the floor
NEAR_REPEAT_JACCARD = 0.6
NEAR_CONTAINED = 0.9  # a text whose words are 90% inside another's repeats it
MIN_WORDS = 4
CLOSEST_SHOWN = 3
LEAD_POOL = 8  # the lead is chosen among the most relevant texts that clear the floor
STEPS_SHOWN = 15  # a how-to's steps shown at most (more than `single`: the steps are the answer)

NOT_ANSWERED = "The sources do not answer this question"
# words that frame a question rather than name what it is about (compared as stems: `frame_words`)
FRAME_WORDS = frozenset("""year years date day month century decade name names named called call many much long
number amount percentage percent kind type types sort way ways used use happen happened mean means meant
term word one ones first often need needs needed
me my we our you your yours
he him his she her hers they them their theirs""".split())  # pronouns: the asker's own ("do you", "can I"), and
# those pointing back at what the question names ("When did Tesla get his citizenship?": a text need not say "his")


@dataclass
class Pick:
    text: str  # the source's text as quoted (markup removed)
    n: int
    heading: str = ""  # the sub-question it answers ('' for the lead and single-part answers)
    score: float = 0.0  # its relevance to the question (see `relevance`)
    alone: float = 0.0  # its relevance without the sentence before it


@dataclass
class Draft:
    """What the extractive writer chose: the lead, the picks by sub-question, what is not answered."""
    lead: Pick | None
    picks: list[Pick] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)  # sub-questions nothing answers
    missing: str = ""  # what the question asks for that none of the quoted texts gives (`missing_note`)
    closest: list[tuple[str, float, str]] = field(default_factory=list)  # (where, score, text) when none


# ---------------------------------------------------------------- the relevance floor

_NAME = re.compile(rf"\b[A-Z][\w'-]*(?:\s+(?:(?:{NAME_PARTICLES}|of|the)\s+)*[A-Z0-9][\w'-]*)+")


def question_terms(question: str) -> list[frozenset[str]]:
    """The things a question asks about: a name of several words ("Karl von Frisch", "Super Bowl 50") is one
    term, held by a text that has all its words; every other content word is a term of its own, without those
    that only frame the question (FRAME_WORDS); all of them when nothing else is left."""
    names = [frozenset(words_of(m.group(0))) for m in _NAME.finditer(question)]
    names = [n for n in names if len(n) > 1]
    named = set().union(*names) if names else set()
    words = words_of(question)
    singles = (words - frame_words() - named) or (words - named)
    terms = names + [frozenset([w]) for w in sorted(singles)]
    return terms or [frozenset([w]) for w in sorted(words)]


@lru_cache(maxsize=1)
def frame_words() -> frozenset[str]:
    """FRAME_WORDS as the stems a question's words are compared as (verifier.words_of)."""
    return frozenset(stem(w) for w in FRAME_WORDS)


def coverage(question: str, texts: list[str]) -> list[float]:
    """For each text the idf-weighted share of the question's terms it holds (see the module docstring)."""
    terms = question_terms(question)
    if not terms or not texts:
        return [0.0] * len(texts)
    bags = [words_of(f"{t} {other_forms(t)}") for t in texts]  # "the United States" holds "US"
    n = len(bags)
    df = {t: sum(t <= b for b in bags) for t in terms}
    weight = {t: math.log(1 + n / (1 + df[t])) for t in terms}
    held = [weight[t] for t in terms if df[t]]
    for t in terms:  # a word no text holds may be paraphrased: it weighs as much as an average held word
        if not df[t] and held:
            weight[t] = sum(held) / len(held)
    total = sum(weight.values()) or 1.0
    return [sum(w for t, w in weight.items() if t <= b) / total for b in bags]


def relevance(question: str, texts: list[str], titles: list[str] | None = None,
              similarities: list[float | None] | None = None, before: list[str] | None = None) -> list[float]:
    """For each text its relevance to the question (see the module docstring): coverage of the question's terms
    (the text with its source's title, `titles`, and at CONTEXT_WEIGHT the sentence before it, `before`),
    averaged with the embedding similarity when there is one, less FORM_PENALTY when the text lacks the kind of
    answer the question's form asks for."""
    titles = titles or [""] * len(texts)
    spelling = asks_either(question)  # "What does AFC stand for?": a text spelling AFC out holds "stand for" too
    spelled = [spelling and expands(question, t) for t in texts]
    texts_as_read = [f"{t} {FRAMING}" if s else t for t, s in zip(texts, spelled)]
    covered = coverage(question, [f"{t} {title}" for t, title in zip(texts_as_read, titles)])
    if before and any(before):
        widened = coverage(question, [f"{t} {title} {b}" for t, title, b in zip(texts_as_read, titles, before)])
        terms = question_terms(question)  # a text holding none of them itself is about something else
        own = [any(t <= words_of(f"{x} {other_forms(x)}") for t in terms) for x in texts_as_read]
        covered = [c + CONTEXT_WEIGHT * max(0.0, w - c) if o else c for c, w, o in zip(covered, widened, own)]
    similarities = similarities or [None] * len(texts)
    kind = asked_for(question)
    names = known_names(texts) if kind in ("who", "where") else frozenset()
    stated = stated_numbers(question)
    before = before or [""] * len(texts)
    named = question_names(question)
    out = []
    for text, title, prior, cov, sim, spelt in zip(texts, titles, before, covered, similarities, spelled):
        score = cov if sim is None else (1 - SIMILARITY_WEIGHT) * cov + SIMILARITY_WEIGHT * sim
        if (kind and answer_shape(question, text, kind, names) != 2) or (spelling and not spelt):
            score -= FORM_PENALTY
        if stated - stated_numbers(f"{text} {title} {prior}"):
            score -= NUMBER_PENALTY
        if named:
            held = words_of(f"{text} {title} {prior} {other_forms(f'{text} {title} {prior}')}")
            missing = [name for name in named if not name & held]
            if missing:
                score -= NAME_PENALTY * (2 if any(len(name) >= 2 for name in missing) else 1)
        if pinpoints(question, text) or states_as_asked(question, text):
            score += PINPOINT_BONUS
        out.append(score)
    return out


_STATED_NUMBER = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)\b|\b\d(?:[\d,.]*\d)?(?=s?\b)|"
                            r"\b(?:third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
                            r"(?:thir|four|fif|six|seven|eigh|nine)teenth|twentieth)\b",
                            re.IGNORECASE)  # not "first"/"second": said many ways, or time;
# a decade is its year: "the 1950s" and "the 1950's" both state 1950


def stated_numbers(text: str) -> set[str]:
    """The numbers and ordinals the text states, an ordinal in words ("5th" as "fifth"; not "1st", "2nd")."""
    found = {stem(m) if m[0].isdigit() and not m[-1].isdigit() else m for m in
             (m.lower() for m in _STATED_NUMBER.findall(text))}
    return found - {"first", "second"}


def floor_for(embedder) -> float:
    """The relevance floor for answers written with this embedder (None: no embedding model)."""
    return RELEVANCE_FLOOR if embedder is not None else LEXICAL_FLOOR


def floor_words(embedder) -> str:
    """The floor as a reader is told it."""
    if embedder is None:
        return f"{LEXICAL_FLOOR:.2f} of the question's terms, weighted by rarity"
    return f"{RELEVANCE_FLOOR:.2f}: the question's terms it holds, weighted by rarity, and its closeness in meaning"


# ---------------------------------------------------------------- the extractive writer

def shape_fits(question: str, text: str, names: frozenset[str] = frozenset()) -> bool:
    """The text has what the question's form asks for (see the module docstring; `names`: question_forms.known_names
    of the texts it is among)."""
    subject = definition_subject(question)
    kind = asked_for(question)
    if subject and is_definition(subject, text):
        return True
    if subject and kind != "who":  # "Who is X?" that no text defines: a text naming someone else, as before
        return False
    if not kind and asks_how_to(question):
        return gives_advice(text)
    return bool(kind) and answer_shape(question, text, kind, names) == 2


def candidates(question: str, sources: list[CitableSource], embedder=None, topic: str = "") -> list[Pick]:
    """Every text an answer may quote (of MIN_WORDS words or more, not a mere repeat of its source's title),
    best ranked first, with its relevance to the topic (default: the question)."""
    ranked = rank_sentences(question, sources, embedder, topic=topic)
    titles = {s.n: f"{s.title} {s.about}".strip() for s in sources}  # what the texts are about
    context = sentence_before(sources)
    # a text calling a person its page names in full by surname alone holds the full name
    called = {n: surnames(topic or question, page) for n, page in document_texts(sources).items()}
    about = [f"{titles.get(n, '')} {named_by_surname(t, called.get(n, []))}" for t, n, *_ in ranked]
    args = (topic or question, [t for t, *_ in ranked], about, [sim for *_, sim in ranked])
    scores = relevance(*args, [context.get((n, t), "") for t, n, *_ in ranked])
    alone = relevance(*args)
    return [Pick(t, n, topic, sc, own) for (t, n, *_), sc, own in zip(ranked, scores, alone)
            if len(t.split()) >= MIN_WORDS and not repeats_title(t, titles.get(n, ""))]


def _repeat(text: str, used: list[set[str]]) -> bool:
    """A near-repeat of a text already used, or mostly held in one (a sentence quoted with the one before it)."""
    words = set(tokenize(text))
    return any(len(words & u) / (len(words | u) or 1) > NEAR_REPEAT_JACCARD
               or len(words & u) >= NEAR_CONTAINED * min(len(words), len(u)) for u in used)


def closest_texts(ranked: list[Pick], sources: list[CitableSource]) -> list[tuple[str, float, str]]:
    """The CLOSEST_SHOWN texts nearest the floor, near-repeats left out, as (source title, score, text)."""
    where = {s.n: s.title or s.url for s in sources}
    used: list[set[str]] = []
    out = []
    for p in sorted(ranked, key=lambda p: -p.score):
        if len(out) >= CLOSEST_SHOWN:
            break
        if not _repeat(p.text, used):
            used.append(set(tokenize(p.text)))
            out.append((where.get(p.n, f"source {p.n}"), p.score, p.text))
    return out


def choose_lead(question: str, cleared: list[Pick], names: frozenset[str] = frozenset()) -> Pick | None:
    """Of the LEAD_POOL most relevant texts, the most relevant that pinpoints the answer, else (for "what is X")
    the most relevant definition naming what X is, else (for "who is X") the most relevant that names X with a
    role ("developer Ada Quill", `describes`), else the most relevant that has the answer's shape, else (for
    a how-to) the most relevant that names a way to do it, else the most relevant one (a how-to's steps may go
    before it: `in_step_order`). `names`: question_forms.known_names of all the texts."""
    pool = sorted(cleared, key=lambda p: -p.score)[:LEAD_POOL]
    subject = definition_subject(question)
    how_to = not asked_for(question) and asks_how_to(question)
    who_is = bool(subject) and asked_for(question) == "who"
    tiers: list[Callable[[str], bool]] = [lambda t: pinpoints(question, t) or restates(question, t),
                                          lambda t: bool(subject) and is_definition(subject, t, names_kind=True),
                                          lambda t: who_is and describes(subject, t),
                                          lambda t: shape_fits(question, t, names),
                                          lambda t: how_to and names_a_way(t)]
    for fits in tiers:
        found = next((p for p in pool if fits(p.text)), None)
        if found is not None:
            return found
    return pool[0] if pool else None


def in_step_order(lead: Pick, supporting: list[Pick], ranked: list[Pick], cleared: list[Pick],
                  sources: list[CitableSource]) -> tuple[Pick, list[Pick]]:
    """For a how-to question: every step ("Step 2: …", "2. …") of the sequence of the most relevant step among
    the lead and the supporting texts, in their order (`_run_of`), then the supporting texts that are no step
    of that document. A document is a source's address without its #fragment (a library's chunks of one file
    are one); one of its texts must clear the floor, and then its steps are the answer together, each as
    relevant as the most relevant of them (a step that shares no word with the question, "Boil the water.",
    is still a step of it)."""
    doc = {s.n: s.url.split("#", 1)[0] for s in sources}
    steps = [p for p in [lead, *supporting] if step_number(p.text) is not None]
    best = max(steps, key=lambda p: p.score) if steps else None
    home = doc.get(best.n) if best else None
    if home is None or not any(doc.get(p.n) == home for p in cleared):
        return lead, supporting
    known = {(p.text, p.n): p for p in ranked}
    mine = [known.get((t, n)) or Pick(t, n, best.heading, best.score, best.alone)
            for t, n in _run_of(best, [s for s in sources if doc.get(s.n) == home])]
    other = [p for p in [lead, *supporting] if doc.get(p.n) != home or step_number(p.text) is None]
    taken = {p.text for p in mine}
    return mine[0], mine[1:] + [p for p in other if p.text not in taken]


def _run_of(best: Pick, sources: list[CitableSource]) -> list[tuple[str, int]]:
    """(text, source n) of the steps of the one sequence `best` belongs to, in their order: the document's steps
    as they stand in it (its chunks by the first number of their #fragment), cut where the numbering starts
    again (a page of two methods, each with its steps 1, 2, 3); a step quoted also with the sentence after it
    (one that needs it: "In this case, …") is one step, as the longer quote."""
    def chunk(s: CitableSource) -> int:
        m = re.search(r"\d+", s.url.partition("#")[2])
        return int(m.group(0)) if m else 0
    runs: list[list[tuple[str, int]]] = []
    for s in sorted(sources, key=chunk):
        for text, n in quote_candidates([s]):
            if step_number(text) is None:
                continue
            last = runs[-1][-1][0] if runs else ""
            if last and text.startswith(last):  # the same step quoted with its next sentence ("In this case, …")
                runs[-1][-1] = (text, n)
            elif last and step_number(text) > step_number(last):
                runs[-1].append((text, n))
            else:
                runs.append([(text, n)])
    return next((run for run in runs if any(n == best.n and t.startswith(best.text) for t, n in run)),
                [(best.text, best.n)])


def draft(question: str, sources: list[CitableSource], embedder=None, parts: list[str] | None = None,
          per_part: int = 3, single: int = 6, budget_words: int = 10_000,
          floor: float | None = None) -> Draft:
    """Choose what an extractive answer quotes: the lead, then per part (sub-question) up to per_part texts
    that clear the floor for that part (single: up to `single` for a one-part question), within budget_words.
    A question of several parts is answered when one of them is; the others are named as not answered. The
    floor is floor_for(embedder) unless given."""
    floor = floor_for(embedder) if floor is None else floor
    ranked = candidates(question, sources, embedder)
    cleared = [p for p in ranked if p.score >= floor]
    groups = [p for p in (parts or []) if p.strip()]
    by_part = {part: [p for p in candidates(f"{question} {part}", sources, embedder, topic=part)
                      if p.score >= floor] for part in groups} if len(groups) >= 2 else {}
    if not cleared:  # the lead answers the first part that is answered
        part = next((k for k, v in by_part.items() if v), "")
        cleared = by_part.get(part, [])
        question = part or question
    if not cleared:
        return Draft(None, closest=closest_texts(ranked, sources))
    names = known_names([p.text for p in ranked])
    lead = choose_lead(question, cleared, names)
    supporting = [p for p in ranked if p.score >= floor or p.alone >= floor - SUPPORT_MARGIN]
    limit = single - 1
    if asks_how_to(question) and not by_part:
        lead, supporting = in_step_order(lead, supporting, ranked, cleared, sources)
        texts = [lead, *supporting]  # the how-to's steps first (in_step_order), then the other texts
        steps = next((i for i, p in enumerate(texts) if step_number(p.text) is None), len(texts))
        limit = max(limit, min(STEPS_SHOWN, steps) - 1)  # every step of the how-to, not the first `single`
    used = [set(tokenize(lead.text))]
    budget = [budget_words - len(lead.text.split())]
    if not by_part:
        picks = _take(supporting, limit, used, budget, lead)
        return Draft(lead, picks, missing=missing_note(question, [lead, *picks], names))
    used = []  # under its sub-question the lead may stand again: each answered part keeps its heading
    picks = [p for part, mine in by_part.items() for p in _take(mine, per_part, used, budget, None)]
    return Draft(lead, picks, [part for part, mine in by_part.items() if not mine])


#: what an answer says when none of its quoted texts holds the kind of answer the question asks for
MISSING = {"when": "The question asks when; none of the quoted texts gives a year or a date.",
           "number": "The question asks for a number; none of the quoted texts gives one.",
           "money": "The question asks for an amount of money; none of the quoted texts gives one.",
           "often": "The question asks how often; none of the quoted texts says.",
           "who": "The question asks who; none of the quoted texts gives a name.",
           "where": "The question asks where; none of the quoted texts names a place."}


def missing_note(question: str, picks: list[Pick], names: frozenset[str] = frozenset()) -> str:
    """MISSING's line for the kind of answer the question's form asks for (question_forms.asked_for) when none of
    the picked texts may hold it (question_forms.may_give); '' when one may, or the form asks for no kind. The answer
    stands (its texts cleared the floor); the line says what it lacks. Not said of definitions ("what is X",
    "who is X"): a text may define X in forms `is_definition` does not read ("Public-Private Partnering (PPP) is
    …", "developer Ada Quill")."""
    kind = asked_for(question)
    if not kind or definition_subject(question) or any(may_give(question, p.text, kind, names) for p in picks):
        return ""
    return MISSING[kind]


def _take(candidates: list[Pick], limit: int, used: list[set[str]], budget: list[int],
          lead: Pick | None) -> list[Pick]:
    """Up to limit candidates that repeat nothing already used, while the word budget lasts."""
    out: list[Pick] = []
    for p in candidates:
        if len(out) >= limit or budget[0] <= 0:
            break
        if (lead is None or p.text != lead.text) and not _repeat(p.text, used):
            out.append(p)
            used.append(set(tokenize(p.text)))
            budget[0] -= len(p.text.split())
    return out


def extractive(question: str, sources: list[CitableSource], embedder=None, parts: list[str] | None = None,
               max_sentences: int = 6, statement: str = NOT_ANSWERED, kind: str = "web") -> Answer:
    """An extractive answer, verified; `statement` (+ the closest passages) when nothing clears the floor."""
    d = draft(question, sources, embedder, parts, single=max_sentences)
    if d.lead is None:
        return not_answered(f"{statement}.", d.closest)
    markdown = render_bullets(d, {s.n: s.title for s in sources})
    return finish(markdown, sources, embedder, "extractive", d.unanswered, kind)


def finish(markdown: str, sources: list[CitableSource], embedder, mode: str,
           unanswered: list[str] | None = None, kind: str = "web") -> Answer:
    """Verify an answer's citations (see `verify`) into the answer record: answered, partly (some parts not
    answered) or not answered (nothing cited); `kind` is what its sources are (records.SOURCE_KINDS)."""
    check = verify(markdown, sources, embedder)
    status = "partly" if unanswered else "answered"
    if not check.citations:
        status = "not_answered"
    cited = {c.n for c in check.citations}
    listed = [AnswerSource(s.n, s.title, s.url, kind, s.n in cited) for s in sources]
    return Answer(check.markdown, status, mode, listed, check.citations, list(unanswered or []),
                  invalid_citations_removed=check.invalid_removed)


def not_answered(statement: str, closest: list[tuple[str, float, str]]) -> Answer:
    """The answer when nothing clears the floor: the statement, then the closest passages (where, score,
    text) listed as not used; nothing cited."""
    return Answer(not_answered_markdown(statement, closest), "not_answered", "none",
                  closest=[NotUsed(where, round(float(score), 4), text) for where, score, text in closest])


def nothing_clears(question: str, sources: list[CitableSource], embedder=None, parts: list[str] | None = None,
                   floor: float | None = None) -> list[tuple[str, float, str]] | None:
    """None when some text of the sources clears the floor for the question (or, with parts, for one of
    them); else the closest passages."""
    d = draft(question, sources, embedder, parts, floor=floor)
    return None if d.lead is not None else d.closest
