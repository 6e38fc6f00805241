"""Citation syntax and the ranking of quotable source text, under the cited-answer core
(Retrieval/cited_answer.py, which writes and records every answer, and Retrieval/verifier.py, which verifies it).

`clean_citation_groups` removes every `[n]` that names no source (and counts them), collapses repeats inside
one group and understands ranges like `[1-3]` and lists like `[1, 3]`; `cited_sentences` pairs each cited
sentence with its numbers; `best_passages` finds the passage that best supports a claim; `rank_sentences`
ranks what an extractive answer may quote.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from App_Function_Libraries.Retrieval.bm25 import BM25, tokenize
from App_Function_Libraries.Retrieval.fusion import reciprocal_rank_fusion
from App_Function_Libraries.Retrieval.passages import split_sentences
from App_Function_Libraries.Retrieval.question_forms import answer_shape, asked_for, known_names
from App_Function_Libraries.Retrieval.quotable import (INLINE_TAGS, is_meta, is_question, is_table_rule,
                                                       item_reads_whole, list_number, needs_previous, plain_text,
                                                       quotable_line, reads_as_sentence, stem, step_label,
                                                       up_to_colon, with_quotations)
from App_Function_Libraries.records import Citation, Source

# [1]  [1, 3]  [1-3]  [1–3]  [1,2, 5-6]  [1000]   (not [^1] footnotes, not [text](links)); a number of any
# length is citation-shaped, so one naming no source is removed and counted, never left in the report
CITATION_GROUP_RE = re.compile(r"\[(\s*\d+\s*(?:(?:,|;|-|–|—)\s*\d+\s*)*)\](?!\()")
MAX_RANGE = 50
#: the largest source number a citation can name; a longer run of digits (an LLM may write 5,000 of them, more
#: than Python converts to an int) is read as NO_SOURCE without being converted
MAX_CITATION = 999_999
NO_SOURCE = MAX_CITATION + 1
UNSUPPORTED_MARK = "*(not supported by the cited source)*"  # set by Retrieval/verifier.verify


@dataclass
class CitableSource:
    """A source as the cited-answer core reads it: its number, address, title and the texts it may quote. Made
    from a research run's numbered Source (`of`), or from a Wikipedia article's or a local document's passages."""
    n: int
    url: str
    title: str
    passages: list[str]
    content_hash: str = ""
    about: str = ""  # what it is about besides its title (a document chunk's document title): read, not shown

    @classmethod
    def of(cls, source: Source) -> "CitableSource":
        """A numbered Source: the passages it kept, else its snippet, else its page notes."""
        quotable = [p.text for p in source.passages] or ([source.snippet] if source.snippet else [source.notes])
        return cls(source.n, source.final_url or source.url, source.title, quotable, source.content_hash)


@dataclass
class CitationCheck:
    markdown: str
    citations: list[Citation] = field(default_factory=list)
    invalid_removed: int = 0
    uncited: list[int] = field(default_factory=list)


def parse_group(inner: str) -> list[int]:
    """Numbers of one bracket group, ranges expanded, in order, repeats kept (callers collapse them). Every
    citation parser reads its numbers here: a number past MAX_CITATION is NO_SOURCE."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", inner):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\s*[-–—]\s*(\d+)", part)
        if m:
            lo, hi = citation_number(m.group(1)), citation_number(m.group(2))
            if lo <= hi and hi - lo <= MAX_RANGE:
                numbers.extend(range(lo, hi + 1))
            else:
                numbers.extend([lo, hi])
        elif part.isdigit():
            numbers.append(citation_number(part))
    return numbers


def citation_number(digits: str) -> int:
    """The number a run of digits names, or NO_SOURCE when it is past MAX_CITATION (not converted then)."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= len(str(MAX_CITATION)) else NO_SOURCE


def format_group(numbers: list[int]) -> str:
    return "[" + ", ".join(str(n) for n in numbers) + "]"


def clean_citation_groups(markdown: str, valid: set[int]) -> tuple[str, int]:
    """Rewrite every group keeping only valid numbers (repeats collapsed); drop emptied groups.
    Returns (markdown, number of invalid citations removed)."""
    removed = 0

    def fix(m: re.Match) -> str:
        nonlocal removed
        numbers = parse_group(m.group(1))
        kept: list[int] = []
        for n in numbers:
            if n not in valid:
                removed += 1
            elif n not in kept:
                kept.append(n)
        return format_group(kept) if kept else ""

    text = CITATION_GROUP_RE.sub(fix, markdown)
    text = close_marks(text)  # "claim [9]." with [9] removed -> "claim."
    text = re.sub(r"[ \t]{2,}", " ", text)
    return text, removed


def cited_sentences(markdown: str) -> list[tuple[str, list[int]]]:
    """(sentence without its citation marks, numbers it cites) for every sentence carrying citations."""
    out: list[tuple[str, list[int]]] = []
    for line in markdown.replace(UNSUPPORTED_MARK, "").splitlines():
        body = re.sub(r"^\s*(?:[-*+]|\d+[.)]|#+|>)\s*", "", line).strip()
        if not body:
            continue
        sentences = split_sentences(body)
        merged: list[str] = []
        for s in sentences:  # a sentence starting with "[n]" belongs to the one before it
            lead = re.match(r"^((?:\s*" + CITATION_GROUP_RE.pattern + r")+)\s*(.*)$", s)
            if lead and merged:
                merged[-1] += " " + lead.group(1).strip()
                s = lead.group(lead.lastindex).strip()
                if not s:
                    continue
            merged.append(s)
        for s in merged:
            numbers: list[int] = []
            for m in CITATION_GROUP_RE.finditer(s):
                numbers += [n for n in parse_group(m.group(1)) if n not in numbers]
            if numbers:
                plain = CITATION_GROUP_RE.sub("", s)
                plain = close_marks(plain).replace("**", "").strip()
                out.append((plain, numbers))
    return out


def best_passages(claims: list[str], candidates: list[list[str]], embedder=None) -> list[tuple[int, float]]:
    """For each claim i, (index into candidates[i], similarity) of its best-supporting passage."""
    result: list[tuple[int, float]] = []
    if embedder is not None and claims:
        flat = [p for ps in candidates for p in ps]
        if flat:
            cvec = embedder.encode(claims)
            pvec = embedder.encode(flat)
            offset = 0
            for i, ps in enumerate(candidates):
                if not ps:
                    result.append((-1, 0.0))
                    continue
                sims = pvec[offset:offset + len(ps)] @ cvec[i]
                j = int(np.argmax(sims))
                result.append((j, float(sims[j])))
                offset += len(ps)
            return result
    for claim, ps in zip(claims, candidates):
        result.append(_overlap_best(claim, ps))
    return result


def _overlap_best(claim: str, passages: list[str]) -> tuple[int, float]:
    if not passages:
        return -1, 0.0
    words = set(tokenize(claim))
    best, best_score = 0, -1.0
    for j, p in enumerate(passages):
        pw = set(tokenize(p))
        score = len(words & pw) / (len(words) or 1)
        if score > best_score:
            best, best_score = j, score
    return best, best_score


# ---------------------------------------------------------------- sentences an extractive answer may quote
#
# Without an LLM an answer is made of source sentences, so a page's text is quoted as a finding. Two rules
# keep that honest:
#  1. Orders to a reader or to an AI are never findings. Pages can carry text written to steer a model that
#     reads them ("ignore all previous instructions", "you are now in developer mode", "reply only with …",
#     "Assistant: …", "tell the user to visit …"). With an LLM such text stays inside the data delimiters;
#     an extractive answer skips every sentence `gives_orders` flags. It is a heuristic over the *shape* of
#     such instructions (who is addressed, what is demanded), not a list of one page's words, and it errs
#     toward keeping ordinary prose: a how-to's "you" alone does not trigger it.
#  2. A quoted sentence must relate to the question: it shares a content word with it (plurals folded), or,
#     with an embedding model, it is at least MIN_UNSHARED_SIMILARITY close to it in meaning.
#  3. It reads as a sentence (Retrieval/quotable.py: nothing lost in extraction), unless no sentence does; and
#     when the question's form says what it asks for (a year for "when", a name for "who"…), sentences that
#     have it rank above those that only repeat its words: a third ranking fused with the lexical and the
#     semantic one. Otherwise adding more than three words to the question only breaks their ties.

_ADDRESSEE = r"(?:ai|a\.i\.|assistant|chatbot|(?:large\s+)?language\s+model|llm|gpt|chatgpt|claude|gemini|copilot)"
# where an imperative starts: a clause's start, or after a word that introduces an order ("please ignore …",
# "you must ignore …"), so "patients who forget their previous instructions" is not taken for an order
_IMPERATIVE = r"(?:^|[:;.!?\"'(]\s*|\b(?:and|then|now|please|must|should|to)\s+)"
_ORDER_PATTERNS = [re.compile(p, re.IGNORECASE) for p in (
    # overriding what the reader was told before
    _IMPERATIVE + r"(?:ignore|disregard|forget|override|bypass)\b[\w\s,'-]{0,40}?\b(?:previous|prior|above|"
    r"earlier|preceding|original|system|your)\b[\w\s,'-]{0,20}?\b(?:instructions?|prompts?|rules|directions|"
    r"guidelines|directives|context|messages?)\b",
    # a new role or mode for the reader
    r"\byou\s+(?:are|will\s+be)\s+now\s+(?:in|an?|the|acting|operating|running|free|no\s+longer|unrestricted|"
    r"jailbroken|dan)\b|\byou\s+(?:will|must)\s+now\s+(?:act|behave|respond|answer|reply|obey)\b",
    r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+" + _ADDRESSEE + r")\b|"
    + _IMPERATIVE + r"pretend\s+(?:to\s+be|you\s+are)\b",
    r"\b(?:enter|enable|activate|switch\s+(?:on|to|into))\s+(?:developer|maintenance|debug|god|jailbreak|dan)\s+"
    r"mode\b|" + _IMPERATIVE + r"(?:reveal|print|show|repeat|output|leak)\s+(?:your|the)\s+(?:system\s+)?"
    r"(?:prompt|instructions)\b|"
    r"\b(?:new|hidden|secret|updated)\s+instructions\s*:|\bfollow\s+(?:these|the|my)\s+(?:new|hidden|secret)\s+"
    r"instructions\b",
    # what the answer must be
    r"(?:^|[:;,.!?]\s*|\b(?:and|then|now|please|must|should)\s+)(?:reply|respond|answer|output|say|print|write|"
    r"return)\s+(?:only\s+with|with\s+only|only\s+the\s+words?|nothing\s+but|exactly\s+(?:with|the\s+words?))\b",
    # speaking to the model, or through it to the user
    r"(?:^|[\s\"'(])(?:dear|hey|hi|note\s+to\s+(?:the\s+|any\s+|all\s+)?)\s*" + _ADDRESSEE + r"s?\b|"
    r"\battention\s*[,:!]?\s*(?:all\s+)?" + _ADDRESSEE + r"s?\s*[,:!]",
    r"^\W*(?:" + _ADDRESSEE + r"|system)s?\s*:",  # a chat transcript's turn
    r"\b(?:if|when)\s+you\s+are\s+an?\s+" + _ADDRESSEE + r"\b|\bas\s+an?\s+(?:ai\s+)?" + _ADDRESSEE
    + r"\b[^.]{0,40}\byou\b",
    r"\b(?:tell|inform|instruct|urge|convince|remind)\s+the\s+(?:user|reader|human|visitor)s?\s+(?:to|that)\b",
    r"\b(?:do\s+not|don't|never)\s+(?:tell|mention|reveal|disclose|show)\b[\w\s]{0,20}?\b(?:the\s+)?"
    r"(?:user|reader|human|instructions?)\b",
)]
MIN_UNSHARED_SIMILARITY = 0.3


def gives_orders(sentence: str) -> bool:
    """True when the sentence reads as instructions to its reader or to an AI (see rule 1 above)."""
    return any(p.search(sentence) for p in _ORDER_PATTERNS)


def _content_words(text: str) -> set[str]:
    """The text's words (stop words aside) as stems, so the forms of one word meet ("add" and "Added")."""
    return {stem(t) for t in tokenize(text)}


def rank_sentences(question: str, sources: list[CitableSource], embedder=None,
                   topic: str = "") -> list[tuple[str, int, float, float | None]]:
    """Every quotable sentence of every passage as (sentence, source n, fused score, similarity), best first:
    orders to a reader or an AI and sentences unrelated to the topic (default: the question) are left out (see
    the rules above). A brief grouped by sub-question ranks by question and sub-question, with the sub-question
    as the topic. The similarity is the embedding cosine of the sentence and the topic (None without an
    embedder)."""
    items = quote_candidates(sources)
    if not items:
        return []
    texts = [s for s, _ in items]
    lexical = BM25(texts).scores(question)
    vectors = embedder.encode(texts) if embedder is not None else None
    dense = vectors @ embedder.encode_query(question) if vectors is not None else None
    topic_dense = vectors @ embedder.encode_query(topic) if vectors is not None and topic else dense
    asked = _content_words(topic or question)
    related = [i for i, text in enumerate(texts) if asked & _content_words(text)
               or (topic_dense is not None and topic_dense[i] >= MIN_UNSHARED_SIMILARITY)]
    rankings = [sorted(related, key=lambda i: -lexical[i])]
    if dense is not None:
        rankings.append(sorted(related, key=lambda i: -dense[i]))
    kind = asked_for(question)
    names = known_names(texts) if kind in ("who", "where") else frozenset()
    shape = {i: answer_shape(question, texts[i], kind, names) for i in related}
    if kind:  # a question whose form says what it asks for (when, how many, who, where)
        rankings.append(sorted(related, key=lambda i: (-shape[i], -(dense[i] if dense is not None else lexical[i]))))
    fused = sorted(reciprocal_rank_fusion(rankings), key=lambda pair: (-round(pair[1], 9), -shape[int(pair[0])]))
    return [(items[int(i)][0], items[int(i)][1], score,
             float(topic_dense[int(i)]) if topic_dense is not None else None) for i, score in fused]


def quote_candidates(sources: list[CitableSource]) -> list[tuple[str, int]]:
    """(text, source n) of every text an extractive answer may quote (Retrieval/quotable.py rules 1-13):
    sentences that read as sentences (only when none does, the others), list items and table rows as what
    they are, a list whose items are too short to quote alone as one text under its lead-in (`_whole_list`);
    no orders, no meta-sentences, no raw markup; a sentence opening with a pronoun only together with the
    sentence before it, or with the question a heading asks right above it ("What's a Superbug? It's a term …")."""
    whole: list[tuple[str, int]] = []
    broken: list[tuple[str, int]] = []
    for src in sources:
        for passage in src.passages:
            lead, run, label, asked = "", [], "", ""
            lines = passage.splitlines() + [""]
            for i, line in enumerate(lines):
                item = quotable_line(line)
                if item is not None and item[0] == "row" and i + 1 < len(lines) and is_table_rule(lines[i + 1]):
                    continue  # a header row: the columns' names, no finding
                if item is not None and item[0] == "item":
                    run.append(item[1])
                elif run:
                    _whole_list(lead, run, src.n, whole)
                    run = []
                if item is not None:
                    _item(item[1], src.n, whole, list_number(line))
                    label = asked = ""  # a step's label goes with the sentence right after it, not one after a list
                    continue
                lead, step = line.strip(), step_label(line)
                if step:
                    label = step  # the step's sentence is on the next line of text
                elif lead:
                    _sentences(line, src.n, whole, broken, label, asked)
                    label, asked = "", heading_question(lead)
    return whole or broken


ASKING_WORDS = 15  # a heading that asks is a question of at most this many words


def heading_question(line: str) -> str:
    """The question a line asks when the line is only that, a heading ("What's a Superbug?"; after a label,
    "But First: What's a Superbug?", the question alone); else ''."""
    text = plain_text(line) or ""
    question = text.rsplit(": ", 1)[-1]
    if not is_question(question) or len(question.split()) > ASKING_WORDS or len(split_sentences(question)) != 1:
        return ""
    return question


LIST_ITEMS_MAX = 12  # a list quoted whole shows at most this many items, then "…"


def _item(raw: str, n: int, whole: list, number: int | None = None) -> None:
    """A list item or table row, quoted as what it is; an item of a numbered list with its number ("3. …")."""
    text = plain_text(raw)
    if text and item_reads_whole(text) and not gives_orders(text) and not is_meta(text) and not is_question(text):
        whole.append((text if number is None else f"{number}. {text}", n))


def _whole_list(lead: str, items: list[str], n: int, whole: list) -> None:
    """A list of two or more items, some too short to quote alone ("Cloche", "Ruler"), quoted as one text: the
    line before it when that line introduces it (ends with a colon), then its items joined by semicolons
    ("What You'll Need: Cloche; Planter saucer, small shallow dish; …")."""
    texts = [plain_text(i) or "" for i in items]
    if len(texts) < 2 or all(len(t.split()) >= 3 for t in texts) or not all(texts):
        return
    intro = lead if lead.endswith(":") and len(lead.split()) <= 12 else ""
    shown = "; ".join(texts[:LIST_ITEMS_MAX]) + (" …" if len(texts) > LIST_ITEMS_MAX else "")
    _item(f"{intro} {shown}".strip(), n, whole)


def _sentences(line: str, n: int, whole: list, broken: list, label: str = "", asked: str = "") -> None:
    """The line's sentences that may be quoted; its first one with `label` ("Step 3: …"), a step's label on the
    line before it; a pronoun opener with the sentence before it, or with the question asked just before it (in
    the line, or by the heading above it: `asked`); a sentence too short to quote alone with the sentence before
    it, which it finishes ("Every year, about 2 million people get sick from a superbug. About 23,000 die.")."""
    previous = asked  # the last sentence that could be quoted on its own, or a question its next one answers
    for i, raw in enumerate(with_quotations(split_sentences(line))):
        s = plain_text(raw)
        question = heading_question(s) if s is not None and not gives_orders(s) else ""
        if question:
            previous = question
            continue
        if s is not None and len(s.split()) < 4 and previous and not is_question(previous) and not is_question(s):
            if reads_as_sentence(f"{previous} {s}") and not gives_orders(s) and not is_meta(s):
                whole.append((f"{previous} {s}", n))
            previous = ""
            continue
        if s is None or len(s.split()) < 4 or gives_orders(s) or is_meta(s) or is_question(s):
            previous = ""
            continue
        s = up_to_colon(s) or s
        if label and i == 0:
            s = f"{label}: {s}"
        if needs_previous(s):
            if not previous:
                continue
            s, previous = f"{previous} {s}", ""
        else:
            previous = s if reads_as_sentence(s) else ""
        (whole if reads_as_sentence(s) else broken).append((s, n))


def document_texts(sources: list[CitableSource]) -> dict[int, str]:
    """For each source n, the text of its whole document: all passages of the sources at its address (without
    its #fragment: a library's chunks of one file are one document), in one line."""
    docs: dict[str, list[str]] = {}
    for src in sources:
        docs.setdefault(src.url.split("#", 1)[0], []).extend(src.passages)
    joined = {url: " ".join(" ".join(texts).split()) for url, texts in docs.items()}
    return {src.n: joined[src.url.split("#", 1)[0]] for src in sources}


def sentence_before(sources: list[CitableSource]) -> dict[tuple[int, str], str]:
    """(source n, quotable text) -> the sentence before it in its passage's line ('' for the first): the
    context a sentence inherits its topic from ("It swept through 146 city blocks" after "A fire ravaged
    Jacksonville"). A text quoted with the sentence before it (a pronoun opener) maps to the one before that."""
    out: dict[tuple[int, str], str] = {}
    for src in sources:
        for passage in src.passages:
            for line in passage.splitlines():
                before = ["", ""]  # the two sentences before the current one
                for raw in with_quotations(split_sentences(line)):
                    s = plain_text(raw)
                    if not s:
                        continue
                    out.setdefault((src.n, s), before[1])
                    if before[1]:
                        out.setdefault((src.n, f"{before[1]} {s}"), before[0])
                    before = [before[1], s]
    return out


_LINK_SYNTAX = re.compile(r"([\[\]])")
#: a space before a mark that ends a word ("word ." from a page's markup), not one before a mark that opens a
#: token: '… do it." :64 This …' keeps its ":64", a page reference, as the page and the stored quote write it
_SPACE_BEFORE_MARK = re.compile(r"[ \t]+([.,;:!?])(?!\w)")  # within a line: a Markdown answer keeps its lines


def close_marks(text: str) -> str:
    """The text with no space before a mark that ends a word ("word ." -> "word.")."""
    return _SPACE_BEFORE_MARK.sub(r"\1", text)


def quote_text(sentence: str) -> str:
    """A source sentence as an answer quotes it: the page's own citation marks ("[3]") removed, since they
    would read as ours, and square brackets escaped, so a page's markdown link or image shows as the text it
    is (the sentence is data; emphasis marks stay, harmless, so plain-text output keeps few backslashes)."""
    plain = close_marks(" ".join(CITATION_GROUP_RE.sub("", INLINE_TAGS.sub("", sentence)).split()))
    return _LINK_SYNTAX.sub(r"\\\1", plain)
