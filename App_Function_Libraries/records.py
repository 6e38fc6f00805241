"""Typed data passed between the research pipeline's stages, stored in SQLite and exported.

`ResearchResult.to_dict()` / `ResearchResult.from_dict()` give a JSON-serialisable form that round-trips.
"""
from __future__ import annotations

import dataclasses
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("relevant", "irrelevant", "unjudged")
SOURCE_KINDS = ("web", "paper", "wikipedia", "document")  # what a source is; `Source.kind`


@dataclass
class Paper:
    """Bibliographic facts of a scholarly work (from arXiv, PubMed, Semantic Scholar, OpenAlex, Crossref).

    `abstract_only` is True when no open-access full text was read, so the abstract is what was ranked and cited.
    """
    authors: list[str] = field(default_factory=list)  # "Given Family" each, in the work's order
    year: int | None = None
    venue: str = ""  # journal, conference or archive ("arXiv")
    doi: str = ""  # bare, lower-case: "10.1000/xyz"
    abstract: str = ""
    pdf_url: str = ""  # an open-access PDF, when the service names one
    abstract_only: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "Paper | None":
        if not data:
            return None
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class Passage:
    text: str
    score: float = 0.0


@dataclass
class Source:
    """One search result as it moves through the pipeline."""
    title: str
    url: str
    snippet: str = ""
    engines: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    rank: int = 0  # position after merging and rank fusion (1 = best)
    fused_score: float = 0.0
    date_published: str | None = None
    verdict: str = "unjudged"  # relevant | irrelevant | unjudged
    reason: str = ""
    user_override: bool | None = None  # True: user ticked it in, False: ticked out, None: untouched
    fetched: bool = False
    final_url: str = ""
    status: int | None = None
    content_hash: str = ""
    error: str = ""
    passages: list[Passage] = field(default_factory=list)
    extraction: str = ""  # what this page says about the question (LLM or top passages)
    n: int | None = None  # its number in the report, when it was given to the writer
    round: int = 0  # the dig-deeper round that found it (0: the first search)
    kind: str = "web"  # one of SOURCE_KINDS
    paper: Paper | None = None  # bibliographic facts when kind == "paper"

    @property
    def selected(self) -> bool:
        """Whether the source goes on to be fetched: the user's override wins over the verdict."""
        if self.user_override is not None:
            return self.user_override
        return self.verdict != "irrelevant"


@dataclass
class Citation:
    n: int  # the source number as printed in the report
    sentence: str  # the report sentence carrying the citation
    url: str
    quote: str  # the passage of that source that best supports the sentence
    content_hash: str = ""
    similarity: float = 0.0


@dataclass
class ReportExchange:
    """A question asked about a finished report and its answer from that report's own sources: each [n] is
    the report's number for the source it cites (see Research/report_chat.py)."""
    question: str
    answer_markdown: str
    citations: list[Citation] = field(default_factory=list)
    mode: str = "extractive"  # "llm" | "extractive" | "none" (no source of the report covers the question)
    errors: list[str] = field(default_factory=list)
    invalid_citations_removed: int = 0
    asked_at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ReportExchange":
        data = dict(data)
        citations = [Citation(**c) for c in data.pop("citations", [])]
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(citations=citations, **{k: v for k, v in data.items() if k in known})


@dataclass
class ResearchResult:
    question: str
    params: dict[str, Any] = field(default_factory=dict)
    sub_queries: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    report_markdown: str = ""
    citations: list[Citation] = field(default_factory=list)
    uncited_sources: list[int] = field(default_factory=list)
    invalid_citations_removed: int = 0
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    llm_usage: dict[str, Any] = field(default_factory=dict)  # calls, prompt_tokens, completion_tokens, models
    errors: list[str] = field(default_factory=list)
    mode: str = "extractive"  # "llm" when an LLM wrote the report
    follow_ups: list[str] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # dig-deeper rounds: added sources, changes
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    created_at: float = field(default_factory=time.time)

    def cited_sources(self) -> list[Source]:
        """Sources that have a report number, in number order."""
        return sorted((s for s in self.sources if s.n is not None), key=lambda s: s.n)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResearchResult":
        data = dict(data)
        sources = []
        for s in data.pop("sources", []):
            s = dict(s)
            s["passages"] = [Passage(**p) for p in s.get("passages", [])]
            s["paper"] = Paper.from_dict(s.get("paper"))
            sources.append(Source(**{k: v for k, v in s.items() if k in _SOURCE_FIELDS}))
        citations = [Citation(**c) for c in data.pop("citations", [])]
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(sources=sources, citations=citations, **{k: v for k, v in data.items() if k in known})


_SOURCE_FIELDS = {f.name for f in dataclasses.fields(Source)}
