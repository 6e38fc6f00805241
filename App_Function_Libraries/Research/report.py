"""Stage 7: the report. `number_sources` numbers the sources in the order they are given to the writer;
`write_report` has the LLM write a cited Markdown report (streamed when asked); `verify_report` then checks
every [n] (see Retrieval/citations.py); `extractive_brief` writes a cited brief without any LLM: the best
source sentences grouped by sub-question.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval.bm25 import tokenize
from App_Function_Libraries.Retrieval.citations import (CitableSource, CitationCheck,
                                                        quote_text, rank_sentences, verify_citations)
from App_Function_Libraries.Research import coverage
from App_Function_Libraries.Research.language import detect_language, language_name
from App_Function_Libraries.records import Source

SENTENCES_PER_GROUP = 3
SINGLE_GROUP_SENTENCES = 6
SHORT_SENTENCES = 3
MIN_BRIEF_BUDGET = 30  # words: even a tiny length budget gets a sentence or two
NEAR_REPEAT_JACCARD = 0.6
MIN_BRIEF_WORDS = 8  # shorter "sentences" are mostly headings and captions
EXTRACTIVE_NOTE = "*Extractive brief (no LLM): sentences quoted from the sources, best first.*"
NO_EVIDENCE = ("No source could be read for this question, so there is nothing to report. The sources list "
               "below says what went wrong with each.")
NO_RESULTS = "The search found no results for this question, so there is nothing to report."


@dataclass
class ReportOptions:
    tone: str = "neutral"
    report_format: str = "full"  # full | short | bullets | table
    length_words: int = 600
    output_lang: str = ""  # ISO 639-1; empty: the question's language
    template: str = ""  # the aggregation prompt ({question}, {sources}, …); empty: the built-in one
    previous_answer: str = ""  # the report this one rewrites (dig deeper: same source numbers)


def language_line(question: str, output_lang: str = "") -> str:
    """The instruction naming the report's language: the one asked for, else the question's (detected)."""
    if output_lang.strip():
        return prompts.language_instruction(language_name(output_lang))
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
    out = []
    for s in sources:
        if s.n is None:
            continue
        passages = [p.text for p in s.passages] or ([s.snippet] if s.snippet else [s.notes])
        out.append(CitableSource(s.n, s.final_url or s.url, s.title, passages, s.content_hash))
    return out


# ---------------------------------------------------------------- the LLM report

def evidence_block(source: Source, tag: str) -> str:
    body = f"Title: {source.title}\n{source.notes}" if source.title else source.notes
    return f"Source [{source.n}]:\n" + prompts.wrap_untrusted(body, tag, f"source {source.n}")


def write_report(question: str, sources: list[Source], llm: LLMClient, options: ReportOptions,
                 sub_queries: list[str] | None = None, on_delta: Callable[[str], None] | None = None) -> str:
    """The report written by the LLM from the numbered sources (raises LLMError on failure)."""
    numbered = sorted((s for s in sources if s.n is not None), key=lambda s: s.n)
    tag = prompts.new_data_tag()
    language = language_line(question, options.output_lang)
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
    """Invalid [n] removed and counted; each cited sentence paired with its source's best passage."""
    return verify_citations(markdown, citable(sources), embedder)


# ---------------------------------------------------------------- the brief without an LLM

def extractive_brief(question: str, sub_queries: list[str], sources: list[Source], embedder=None,
                     options: ReportOptions | None = None) -> str:
    """The best source sentences, each cited, grouped under the sub-question they answer best, in the
    format asked for and within its length budget (tone and translation need an LLM; the header says so
    when the sentences are not in the language wanted). Without sub-queries (no LLM planned the search) the
    groups are the question's own parts when it asks several things (coverage.question_parts)."""
    options = options or ReportOptions()
    if not sources:  # no list below to point to
        return NO_RESULTS
    cs = citable(sources)
    if not cs:
        return NO_EVIDENCE
    budget = [max(MIN_BRIEF_BUDGET, options.length_words)]
    groups = coverage.aspects_of(question, sub_queries)
    if len(groups) < 2 or options.report_format == "short":
        limit = SHORT_SENTENCES if options.report_format == "short" else SINGLE_GROUP_SENTENCES
        picks = [(question, line) for line in _pick(rank_sentences(question, cs, embedder), [], limit, budget)]
    else:
        used: list[set[str]] = []
        picks = [(heading, line) for heading in groups for line in
                 _pick(rank_sentences(f"{question} {heading}", cs, embedder, topic=heading), used,
                       SENTENCES_PER_GROUP, budget)]
    if not picks:
        return NO_EVIDENCE
    header = EXTRACTIVE_NOTE + _language_note(question, options.output_lang, [s for _, (s, _n) in picks])
    return header + "\n\n" + _render_brief(picks, options.report_format, multi=len(groups) >= 2)


def _pick(ranked: list[tuple[str, int, float]], used: list[set[str]], limit: int,
          budget: list[int]) -> list[tuple[str, int]]:
    """Up to limit (sentence, n), skipping near-repeats of anything already used, while budget[0] words last."""
    lines: list[tuple[str, int]] = []
    for sentence, n, _score in ranked:
        if budget[0] <= 0:
            break
        sentence = quote_text(sentence)  # the page's own [3] marks are not ours; its markdown is text
        if len(sentence.split()) < MIN_BRIEF_WORDS:
            continue
        words = set(tokenize(sentence))
        if any(len(words & u) / (len(words | u) or 1) > NEAR_REPEAT_JACCARD for u in used):
            continue
        used.append(words)
        lines.append((sentence.rstrip(), n))
        budget[0] -= len(sentence.split())
        if len(lines) >= limit:
            break
    return lines


def _render_brief(picks: list[tuple[str, tuple[str, int]]], report_format: str, multi: bool) -> str:
    if report_format == "short":
        return " ".join(f"{s.rstrip('.')} [{n}]." for _, (s, n) in picks)
    if report_format == "table":
        rows = ["| Part of the question | Finding |", "|---|---|"]
        rows += [f"| {_cell(h)} | {_cell(s)} [{n}] |" for h, (s, n) in picks]
        return "\n".join(rows)
    if report_format == "bullets" or not multi:
        return "\n".join(f"- {s} [{n}]" for _, (s, n) in picks)
    sections: dict[str, list[str]] = {}
    for heading, (s, n) in picks:
        sections.setdefault(heading, []).append(f"- {s} [{n}]")
    return "\n\n".join(f"### {h}\n" + "\n".join(lines) for h, lines in sections.items())


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
