"""Stage 7: the report. `aggregate_results` numbers the sources in the order they are given to the writer
and has the LLM write a cited Markdown report (streamed when asked); `verify_report` then checks every [n]
(see Retrieval/citations.py); `extractive_brief` writes a cited brief without any LLM: the best source
sentences grouped by sub-question.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval.bm25 import tokenize
from App_Function_Libraries.Retrieval.citations import (CITATION_GROUP_RE, CitableSource, CitationCheck,
                                                        rank_sentences, verify_citations)
from App_Function_Libraries.Web_Search.research_types import Source

SENTENCES_PER_GROUP = 3
SINGLE_GROUP_SENTENCES = 6
NEAR_REPEAT_JACCARD = 0.6
MIN_BRIEF_WORDS = 8  # shorter "sentences" are mostly headings and captions
EXTRACTIVE_NOTE = "*Extractive brief (no LLM): sentences quoted from the sources, best first.*"
NO_EVIDENCE = ("No source could be read for this question, so there is nothing to report. The sources list "
               "below says what went wrong with each.")


@dataclass
class ReportOptions:
    tone: str = "neutral"
    report_format: str = "full"
    length_words: int = 600
    output_lang: str = ""
    custom_instructions: str = ""  # the user's own aggregation prompt (replaces our style guidance)
    previous_answer: str = ""


def number_sources(sources: list[Source]) -> list[Source]:
    """Give report numbers 1..N, in the order given, to the sources that carry notes; others get none.
    A page already numbered under another URL (same text: a redirect or a copy) is not numbered again."""
    numbered: list[Source] = []
    by_hash: dict[str, Source] = {}
    for source in sources:
        source.n = None
        first = by_hash.get(source.content_hash) if source.content_hash else None
        if first is not None:
            source.error = f"same page as source [{first.n}] ({first.final_url or first.url})"
        elif source.extraction.strip():
            numbered.append(source)
            source.n = len(numbered)
            if source.content_hash:
                by_hash[source.content_hash] = source
    return numbered


def citable(sources: list[Source]) -> list[CitableSource]:
    """The numbered sources as citation verification sees them: their passages (or snippet) to quote."""
    out = []
    for s in sources:
        if s.n is None:
            continue
        passages = [p.text for p in s.passages] or ([s.snippet] if s.snippet else [s.extraction])
        out.append(CitableSource(s.n, s.final_url or s.url, s.title, passages, s.content_hash))
    return out


# ---------------------------------------------------------------- the LLM report

def evidence_block(source: Source, tag: str) -> str:
    body = f"Title: {source.title}\n{source.extraction}" if source.title else source.extraction
    return f"Source [{source.n}]:\n" + prompts.wrap_untrusted(body, tag, f"source {source.n}")


def aggregate_results(question: str, sources: list[Source], llm: LLMClient, options: ReportOptions,
                      sub_queries: list[str] | None = None,
                      on_delta: Callable[[str], None] | None = None) -> str:
    """The report written by the LLM from the numbered sources (raises LLMError on failure)."""
    numbered = [s for s in sources if s.n is not None]
    tag = prompts.new_data_tag()
    system = prompts.report_system(options.tone, options.report_format, options.length_words,
                                   options.output_lang, options.custom_instructions)

    def build(pieces: list[str]):
        return prompts.report_messages(question, pieces, tag, system, sub_queries, options.previous_answer)

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

def extractive_brief(question: str, sub_queries: list[str], sources: list[Source], embedder=None) -> str:
    """The best source sentences, each cited, grouped under the sub-question they answer best."""
    cs = citable(sources)
    if not cs:
        return NO_EVIDENCE
    groups = [q for q in sub_queries if q.strip().lower() != question.strip().lower()]
    if len(groups) < 2:
        lines = _pick(rank_sentences(question, cs, embedder), [], SINGLE_GROUP_SENTENCES)
        return _with_note(["\n".join(lines)]) if lines else NO_EVIDENCE
    used: list[set[str]] = []
    sections = []
    for heading in groups:
        lines = _pick(rank_sentences(f"{question} {heading}", cs, embedder), used, SENTENCES_PER_GROUP)
        if lines:
            sections.append(f"### {heading}\n" + "\n".join(lines))
    return _with_note(sections) if sections else NO_EVIDENCE


def _pick(ranked: list[tuple[str, int, float]], used: list[set[str]], limit: int) -> list[str]:
    """Up to limit '- sentence [n]' lines, skipping near-repeats of anything already used."""
    lines = []
    for sentence, n, _score in ranked:
        sentence = " ".join(CITATION_GROUP_RE.sub("", sentence).split())  # the page's own [3] marks are not ours
        if len(sentence.split()) < MIN_BRIEF_WORDS:
            continue
        words = set(tokenize(sentence))
        if any(len(words & u) / (len(words | u) or 1) > NEAR_REPEAT_JACCARD for u in used):
            continue
        used.append(words)
        lines.append(f"- {sentence.rstrip()} [{n}]")
        if len(lines) >= limit:
            break
    return lines


def _with_note(sections: list[str]) -> str:
    return EXTRACTIVE_NOTE + "\n\n" + "\n\n".join(sections)
