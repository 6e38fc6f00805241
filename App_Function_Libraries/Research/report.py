"""Stage 7: the report. `number_sources` numbers the sources in the order they are given to the writer;
`write_report` has the LLM write a cited Markdown report (streamed when asked); `verify_report` then checks
every [n] and gives each a verdict (the cited-answer core, Retrieval/cited_answer.py); `extractive_brief`
writes a cited brief without any LLM with the core's extractive writer: the lead answer, then the best
source sentences grouped by sub-question, in the format asked for. `not_answered_report` says when nothing the
sources hold clears the core's relevance floor; `nothing_read` says why no source could be given to the writer.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries import options as option_table
from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval import answer_markdown as md
from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval import numbering
from App_Function_Libraries.Retrieval import verifier
from App_Function_Libraries.Retrieval.citations import CitableSource, CitationCheck
from App_Function_Libraries.Research import coverage, relevance
from App_Function_Libraries.Research.language import detect_language, language_name
from App_Function_Libraries.records import NotUsed, ResearchResult, Source

SENTENCES_PER_GROUP = 3
SINGLE_GROUP_SENTENCES = 6
SHORT_SENTENCES = 3
MIN_BRIEF_BUDGET = 30  # words: even a tiny length budget gets a sentence or two
EXTRACTIVE_NOTE = "*Extractive brief (no LLM): sentences quoted from the sources, best first.*"
NO_EVIDENCE = ("No source could be read for this question, so there is nothing to report. The sources list "
               "below says what went wrong with each.")
NO_RESULTS = "The search found no results for this question, so there is nothing to report."
STOPPED_BEFORE_RESULTS = "The run stopped before its search found anything, so there is nothing to report."
NONE_READ_YET = ("No page was read for this question, so there is nothing to report: the run stopped before "
                 "reading any of the {total} selected results ({why}).")
# when no source is numbered: said from the sources' own state (nothing_read)
NONE_RELEVANT = "None of the {total} search results was judged relevant to this question{how}, so no page was read."
ONE_NOT_RELEVANT = "The one search result was not judged relevant to this question{how}, so no page was read."
NOTHING_USED = "No page gave anything to report for this question: of the {total} search results, {counts}."
SEE_SOURCES = "The sources list below says what went wrong with each."
BY_SIMILARITY = (" (by similarity to the question, without an LLM: all below the threshold {threshold:.2f}, the "
                 "highest {highest:.2f})")
BY_REASON = " (the sources list below says why)"
READ_ANYWAY = ("To read {them} anyway, tick {it} in the Web Search sources table (“Details: every result”) "
               "and click “Re-run with selection”, or search again with the relevance check off ({flag}; "
               "in Web Search, untick “{label}”){lower}.")
LOWER_THRESHOLD = ", or with a lower threshold ({flag})"
NOT_ANSWERED = "The sources read do not answer this question"
NOT_SUPPORTED = verifier.NOT_SUPPORTED


@dataclass
class ReportOptions:
    tone: str = "neutral"
    report_format: str = "full"  # full | short | bullets | table
    length_words: int = 600
    report_language: str = ""  # ISO 639-1; empty: the question's language
    template: str = ""  # the aggregation prompt ({question}, {sources}, …); empty: the built-in one
    previous_answer: str = ""  # the report this one rewrites (dig deeper: same source numbers)


def language_line(question: str, report_language: str = "") -> str:
    """The instruction naming the report's language: the one asked for, else the question's (detected)."""
    if report_language.strip():
        return prompts.language_instruction(language_name(report_language))
    return prompts.language_instruction(language_name(detect_language(question)), from_question=True)


def number_sources(sources: list[Source]) -> list[Source]:
    """Give report numbers 1..N, in the order given, to the sources that carry notes; others get none.
    A page already numbered under another URL (same text: a redirect or a copy) is not numbered again."""
    for source in sources:
        source.n = None
    return _number(sources, {}, 0)


def number_new_sources(numbered_before: list[Source], new: list[Source]) -> list[Source]:
    """Number the new sources that carry notes after the highest number in use; the old keep theirs. A new
    URL whose page is one already numbered (same text) is not numbered again."""
    by_hash = {s.content_hash: s for s in numbered_before if s.content_hash and s.n is not None}
    start = max((s.n for s in numbered_before if s.n is not None), default=0)
    for source in new:
        source.n = None
    return _number(new, by_hash, start)


def _number(sources: list[Source], by_hash: dict[str, Source], start: int) -> list[Source]:
    numbered: list[Source] = []
    for source in sources:
        first = by_hash.get(source.content_hash) if source.content_hash else None
        if first is not None:
            source.duplicate = f"same page as source [{first.n}] ({first.final_url or first.url})"
        elif source.notes.strip():
            numbered.append(source)
            source.n = start + len(numbered)
            if source.content_hash:
                by_hash[source.content_hash] = source
    return numbered


def citable(sources: list[Source]) -> list[CitableSource]:
    """The numbered sources as citation verification sees them: their passages (or snippet) to quote."""
    return [CitableSource.of(s) for s in sources if s.n is not None]


# ---------------------------------------------------------------- the LLM report

def evidence_block(source: Source, tag: str) -> str:
    body = f"Title: {source.title}\n{source.notes}" if source.title else source.notes
    return f"Source [{source.n}]:\n" + prompts.wrap_untrusted(body, tag, f"source {source.n}")


def write_report(question: str, sources: list[Source], llm: LLMClient, options: ReportOptions,
                 sub_queries: list[str] | None = None, on_delta: Callable[[str], None] | None = None) -> str:
    """The report written by the LLM from the numbered sources (raises LLMError on failure)."""
    numbered = sorted((s for s in sources if s.n is not None), key=lambda s: s.n)
    tag = prompts.new_data_tag()
    language = language_line(question, options.report_language)
    system = prompts.report_system(options.tone, options.report_format, options.length_words, language)
    values = {"tone": options.tone or "neutral", "language": language,
              "format": prompts.REPORT_FORMATS.get(options.report_format, prompts.REPORT_FORMATS["full"]),
              "length": f"about {options.length_words} words at most"}

    def build(pieces: list[str]):
        return prompts.report_messages(question, pieces, tag, system, options.template, sub_queries,
                                       options.previous_answer, values)

    messages, _trimmed = fit_evidence(llm, build, [evidence_block(s, tag) for s in numbered])
    if on_delta is None:
        return llm.chat(messages).text.strip()
    pieces: list[str] = []
    for piece in llm.stream_chat(messages):
        pieces.append(piece)
        on_delta(piece)
    return "".join(pieces).strip()


def verify_report(markdown: str, sources: list[Source], embedder=None) -> CitationCheck:
    """Invalid [n] removed and counted; each cited sentence paired with its evidence and a verdict."""
    return verifier.verify(markdown, citable(sources), embedder)


def renumber_gapless(result: ResearchResult) -> None:
    """Cited sources numbered 1..k in order of first citation, then the read but uncited ones."""
    numbered = result.numbered_sources()
    mapping = numbering.gapless_numbers(result.report_markdown, [s.n for s in numbered])
    if any(old != new for old, new in mapping.items()):
        result.report_markdown = numbering.renumber(result.report_markdown, mapping)
        for s in numbered:
            s.n = mapping[s.n]
        for c in result.citations:
            c.n = mapping.get(c.n, c.n)
        for s in result.sources:
            if s.duplicate:
                s.duplicate = numbering.renumber(s.duplicate, mapping)
    cited = {c.n for c in result.citations}
    result.uncited_sources = [s.n for s in result.numbered_sources() if s.n not in cited]


def not_answered_report(question: str, sources: list[Source], embedder=None,
                        sub_queries: list[str] | None = None) -> tuple[str, list[NotUsed]]:
    """(report, closest passages): ('', []) when some text of the numbered sources clears the relevance floor
    for the question or one of its parts; else the report saying the sources do not answer it, with the
    closest passages marked not used, and those passages as data (ResearchResult.closest)."""
    groups = coverage.aspects_of(question, sub_queries or [])
    closest = core.nothing_clears(question, citable(sources), embedder, groups if len(groups) >= 2 else None)
    if closest is None:
        return "", []
    return _not_answered(closest, embedder)


def _not_answered(closest: list[tuple[str, float, str]], embedder=None) -> tuple[str, list[NotUsed]]:
    statement = f"{NOT_ANSWERED}: nothing they say reaches the relevance floor ({core.floor_words(embedder)})."
    answer = core.not_answered(statement, closest)  # the one record's form: the same markdown as before
    return answer.markdown, answer.closest


# ---------------------------------------------------------------- the brief without an LLM

def extractive_brief(question: str, sub_queries: list[str], sources: list[Source], embedder=None,
                     options: ReportOptions | None = None) -> str:
    """The brief without an LLM (see write_brief)."""
    return write_brief(question, sub_queries, sources, embedder, options)[0]


def write_brief(question: str, sub_queries: list[str], sources: list[Source], embedder=None,
                options: ReportOptions | None = None, stopped: bool = False) -> tuple[str, list[str], list[NotUsed]]:
    """(markdown, sub-questions not answered, closest passages): the lead answer, then the best source
    sentences, each cited, grouped under the sub-question they answer (Retrieval/cited_answer.draft), in the
    format asked for and within its length budget (tone and translation need an LLM; the header says so when
    the sentences are not in the language wanted). Without sub-queries (no LLM planned the search) the groups
    are the question's own parts when it asks several things (coverage.question_parts). When nothing clears
    the relevance floor, the not-answered report (see not_answered_report) and its closest passages, as data
    (ResearchResult.closest); else no closest passages. `stopped`: the run was stopped (its budget, a cancel),
    so no sources means it stopped before its search found any, not that the search found none."""
    options = options or ReportOptions()
    if not sources:  # no list below to point to
        return (STOPPED_BEFORE_RESULTS if stopped else NO_RESULTS), [], []
    cs = citable(sources)
    if not cs:
        return nothing_read(sources), [], []
    budget = max(MIN_BRIEF_BUDGET, options.length_words)
    groups = coverage.aspects_of(question, sub_queries)
    short = options.report_format == "short"
    d = core.draft(question, cs, embedder, groups if len(groups) >= 2 else [],
                   per_part=1 if short else SENTENCES_PER_GROUP,
                   single=SHORT_SENTENCES if short else SINGLE_GROUP_SENTENCES, budget_words=budget)
    if d.lead is None:
        markdown, closest = _not_answered(d.closest, embedder)
        return markdown, [], closest
    titles = {c.n: c.title for c in cs}
    header = EXTRACTIVE_NOTE + _language_note(question, options.report_language,
                                              [d.lead.text] + [p.text for p in d.picks])
    return header + "\n\n" + _render_brief(d, options.report_format, titles), d.unanswered, []


def nothing_read(sources: list[Source]) -> str:
    """Why no source carries anything to report, from the sources' own state: every result judged not relevant
    (none was read: how they were judged, and how to read them anyway), the run stopping before it read any
    (a budget: NONE_READ_YET), every read failing (NO_EVIDENCE), or some of each (the count of each)."""
    judged_out = [s for s in sources if not s.selected and s.user_override is None]
    ticked_out = [s for s in sources if s.user_override is False]
    chosen = [s for s in sources if s.selected]
    skipped = [s for s in chosen if s.skipped]
    read_empty = [s for s in chosen if not s.skipped and s.fetched and not s.failure]
    failed = [s for s in chosen if not s.skipped and not (s.fetched and not s.failure)]
    if chosen and len(skipped) == len(chosen) and not judged_out and not ticked_out:
        return NONE_READ_YET.format(total=len(chosen), why=skipped[0].skipped)
    if not judged_out and not ticked_out and not read_empty:
        return NO_EVIDENCE
    how = _how_judged(judged_out)
    if len(judged_out) == len(sources):
        said = (NONE_RELEVANT if len(sources) > 1 else ONE_NOT_RELEVANT).format(total=len(sources), how=how)
        pronoun = "them" if len(sources) > 1 else "it"
        return said + " " + _read_anyway(how, pronoun, pronoun)
    counts = [_count(len(judged_out), f"was judged not relevant to it{how}, so not read"),
              _count(len(ticked_out), "was ticked out, so not read"),
              _count(len(read_empty), "was read but held nothing about it"),
              _count(len(skipped), "was not read (only the first pages_max selected results are read)"),
              _count(len(failed), "could not be read")]
    said = NOTHING_USED.format(total=len(sources), counts=_and([c for c in counts if c]))
    if failed or skipped:
        said += " " + SEE_SOURCES
    if judged_out:
        said += " " + _read_anyway(how, "the ones judged not relevant", "them")
    return said


def _count(n: int, what: str) -> str:
    """'3 were read …' from 'was read …' ('' for none)."""
    if not n:
        return ""
    return f"{n} {'were' + what[3:] if n > 1 and what.startswith('was ') else what}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _how_judged(judged_out: list[Source]) -> str:
    """How the results were judged not relevant: by similarity to the question (one threshold), else by the
    reasons the sources list gives."""
    found = [relevance.similarity_of(s.reason) for s in judged_out]
    if not found or None in found or len({t for _sim, t in found}) != 1:
        return BY_REASON
    return BY_SIMILARITY.format(threshold=found[0][1], highest=max(sim for sim, _t in found))


def _read_anyway(how: str, them: str, it: str) -> str:
    """How to read the results judged not relevant (`how`: _how_judged's words) anyway, with the doors' own
    controls."""
    check = option_table.OPTIONS["relevance_check"]
    threshold = option_table.OPTIONS["relevance_embedding_threshold"]
    lower = LOWER_THRESHOLD.format(flag=f"`{threshold.flag}`") if how != BY_REASON else ""
    return READ_ANYWAY.format(them=them, it=it, flag=f"`{check.flag}`", label=check.label, lower=lower)


def _render_brief(d: core.Draft, report_format: str, titles: dict[int, str]) -> str:
    picks = _lead_once(d)
    if report_format == "short":  # one paragraph: the lead, a sentence per part answered, the parts not
        picks = picks[:SHORT_SENTENCES]
        note = md.unanswered_note(d.unanswered, d.missing)
        return " ".join([md.quoted(p.text, p.n, titles.get(p.n, "")) for p in picks] + ([note] if note else []))
    if report_format == "table":
        rows = ["| Part of the question | Finding |", "|---|---|"]
        rows += [f"| {_cell(p.heading or 'Answer')} | {_cell(md.quoted(p.text, p.n, titles.get(p.n, '')))} |"
                 for p in picks]
        rows += [f"| {_cell(part)} | *not answered by the sources* |" for part in d.unanswered]
        note = md.unanswered_note([], d.missing)
        return "\n".join(rows) + (f"\n\n{note}" if note else "")
    if report_format == "bullets":
        lines = [md.bullet(md.quoted(p.text, p.n, titles.get(p.n, ''))) for p in picks]
        note = md.unanswered_note(d.unanswered, d.missing)
        return "\n".join(lines) + (f"\n\n{note}" if note else "")
    return md.render_bullets(d, titles)


def _lead_once(d: core.Draft) -> list[core.Pick]:
    """The lead, then the picks without it: under its sub-question the lead may stand again (the full layout
    keeps that: md.render_bullets); a list or a table would repeat it. Where it stands again, the lead takes
    that sub-question's heading (its table row names the part it answers)."""
    again = next((p for p in d.picks if p.text == d.lead.text), None)
    lead = dataclasses.replace(d.lead, heading=d.lead.heading or (again.heading if again else ""))
    return [lead] + [p for p in d.picks if p.text != d.lead.text]


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _language_note(question: str, asked: str, sentences: list[str]) -> str:
    """A header note when the quoted sentences are not in the language wanted (without an LLM nothing is
    translated); '' when they are, or when that cannot be told."""
    wanted = (asked or "").strip().lower().split("-")[0] or detect_language(question)
    found = detect_language(" ".join(sentences))
    if not wanted or wanted == found or (not asked and not found):
        return ""
    written = f" (in {language_name(found)})" if found else ""
    return (f"\n*The sources are quoted as written{written}: without an LLM Quarry cannot translate them into "
            f"{language_name(wanted)}.*")
