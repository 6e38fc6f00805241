"""Typed data passed between the research pipeline's stages, stored in SQLite and exported.

`ResearchResult.to_dict()` / `ResearchResult.from_dict()` give a JSON-serialisable form that round-trips;
`from_dict` also reads what an older Quarry saved (see `_legacy_source` and `_legacy_timings`).
"""
from __future__ import annotations

import copy
import dataclasses
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("relevant", "irrelevant", "unjudged")
SOURCE_KINDS = ("web", "paper", "wikipedia", "document")  # what a source is; `Source.kind`
PROBLEM_FIELDS = ("failure", "warning", "duplicate", "skipped")  # what can be said about a source, one field each
DUPLICATE_PREFIX = "same page as source ["
SKIPPED_PREFIX = "not read: only the first "
#: the most characters of a paper's abstract Quarry keeps (real abstracts have a few thousand at most); a longer
#: one is cut at a word boundary and ends with " …" (Docs/engines.md, Scholarly engines)
MAX_ABSTRACT_CHARS = 10_000


def counted(n: int, noun: str, plural: str = "") -> str:
    """A count as it is said: counted(1, "result") -> "1 result", counted(3, "result") -> "3 results"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def cut_words(text: str, limit: int) -> str:
    """text cut at a word boundary to at most `limit` characters, ending with " …" when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 2]
    cut = cut.rsplit(" ", 1)[0] if " " in cut[-200:] else cut  # one long "word" is cut where it must be
    return cut.rstrip(",;: ") + " …"


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

    def __post_init__(self) -> None:
        """An abstract past MAX_ABSTRACT_CHARS is cut (a stored or imported run's too)."""
        if isinstance(self.abstract, str) and len(self.abstract) > MAX_ABSTRACT_CHARS:
            self.abstract = cut_words(self.abstract, MAX_ABSTRACT_CHARS)

    def authors_line(self, most: int = 3) -> str:
        """The first `most` authors, then "et al." when there are more."""
        return ", ".join(self.authors[:most]) + (" et al." if len(self.authors) > most else "")

    def facts(self, most_authors: int = 3) -> list[str]:
        """What is known of authors, year, venue and DOI, in that order (a one-line citation's parts)."""
        known = [self.authors_line(most_authors), str(self.year or ""), self.venue,
                 f"doi:{self.doi}" if self.doi else ""]
        return [fact for fact in known if fact]

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
    failure: str = ""  # why the page could not be used (download, text, passages)
    warning: str = ""  # read, with a caveat: cut at max_bytes, a wrong charset
    duplicate: str = ""  # "same page as source [n] (url)": read, not numbered again
    skipped: str = ""  # selected but not read (pages_max)
    passages: list[Passage] = field(default_factory=list)
    notes: str = ""  # what this page says about the question (LLM page notes, or its top passages)
    n: int | None = None  # its number in the report, when it was given to the writer
    round: int = 0  # the dig-deeper round that found it (0: the first search)
    kind: str = "web"  # one of SOURCE_KINDS
    paper: Paper | None = None  # bibliographic facts when kind == "paper"
    #: the text found with it by a local engine (wikipedia, documents): read instead of fetching the page
    in_hand: str = ""

    @property
    def text_in_hand(self) -> str:
        """What is read instead of downloading the page: a local source's text found, or a paper's abstract."""
        return self.in_hand or (self.paper.abstract if self.paper is not None else "")

    @property
    def selected(self) -> bool:
        """Whether the source goes on to be fetched: the user's override wins over the verdict."""
        if self.user_override is not None:
            return self.user_override
        return self.verdict != "irrelevant"

    @property
    def error(self) -> str:
        """The one line said about this source: a duplicate, else its failure or skip, else its warning."""
        return self.duplicate or self.failure or self.skipped or self.warning


def split_problem(text: str, fetched: bool) -> dict[str, str]:
    """An older Quarry's one `error` text as the field it belongs in (the texts it wrote are known)."""
    if not text:
        return {}
    if text.startswith(DUPLICATE_PREFIX):
        return {"duplicate": text}
    if text.startswith(SKIPPED_PREFIX):
        return {"skipped": text}
    return {"warning": text} if fetched else {"failure": text}



@dataclass
class Page:
    """One page as read (stage 4's outcome for one URL): its text extracted from the download (Research/extract.py
    reads it into a Page), taken from the page cache, or the text found with a result (a local source's passages,
    a paper's abstract). The page cache keeps it (DB/research_store.py: `fetched_at` is when it was read), a
    durable run keeps each page it reads (Research/durable.py), and Research/page_stream.apply_loaded records its
    outcome on the search result (Source) it was read for."""
    url: str  # the URL asked for ("" for a file read from disk)
    final_url: str = ""
    status: int | None = None
    title: str = ""
    text: str = ""
    content_hash: str = ""
    failure: str = ""  # the page could not be read
    warning: str = ""  # read, with a caveat (cut at the byte cap, wrong charset)
    from_cache: bool = False
    content_type: str = ""  # what the text was read as: text/html, application/pdf or text/plain ("" unknown)
    fetched_at: float = 0.0
    method: str = ""  # how the text was read: trafilatura | fallback | pypdf | plain
    charset: str = ""  # the charset the text was decoded from
    lossy: bool = False  # some bytes were invalid in that charset and were replaced

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Page":
        """A page kept by this Quarry or an older one (which kept fewer fields)."""
        return cls(**{k: v for k, v in data.items() if k in _PAGE_FIELDS})

@dataclass
class Citation:
    n: int  # the source number as printed in the report
    sentence: str  # the report sentence carrying the citation
    url: str
    quote: str  # the passage of that source that best supports the sentence
    content_hash: str = ""
    similarity: float = 0.0
    verdict: str = ""  # supported | partly supported | not supported (Retrieval/verifier.py); '' unchecked
    passage: str = ""  # the source passage around the quote


@dataclass
class Round:
    """One dig-deeper round (Research/dig_deeper.py). `r["queries"]` reads like `r.queries` (saved runs and
    older code used dicts)."""
    round: int
    queries: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    considered: int = 0  # new results the searches found
    added: list[dict[str, Any]] = field(default_factory=list)  # [{n, url, title}] numbered this round
    change: dict[str, Any] = field(default_factory=dict)  # added_sentences, removed_sentences, diff
    stop: str = ""  # why digging stopped after this round ("" when it did not)
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)  # keys another Quarry stored, kept as they were

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key) if key in _ROUND_FIELDS else self.extra[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy({**self.extra, **{name: getattr(self, name) for name in _ROUND_FIELDS}})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Round":
        data = dict(data)
        known = {k: data.pop(k) for k in list(data) if k in _ROUND_FIELDS}
        return cls(**{"round": 0, **known}, extra=data)


_ROUND_FIELDS = tuple(f.name for f in dataclasses.fields(Round) if f.name != "extra")


@dataclass
class AnswerSource:
    """One source of an answer, numbered in that answer: 1..k, the cited ones first in the order the answer
    first cites them, no gaps (Retrieval/numbering.number_gapless)."""
    n: int
    title: str
    url: str  # a web address, an article's address, or a document chunk's path#location
    kind: str = "web"  # one of SOURCE_KINDS
    cited: bool = False
    report_n: int | None = None  # an answer about a report: that report's own number for this source


@dataclass
class NotUsed:
    """A passage close to the question that does not answer it: listed under a not-answered answer, not cited."""
    where: str  # the source's title, address or file location
    score: float  # its relevance, as the floor that refused it measures it
    text: str


@dataclass
class Answer:
    """The one answer record (Retrieval/cited_answer.py writes it): the web report's answer
    (`ResearchResult.answer`), a Wikipedia or Documents answer, and an answer about a report
    (`ReportExchange.answer`). What is specific to each (the question, the report, the passages searched)
    belongs to the record that holds the answer."""
    markdown: str  # [n] name `sources`
    status: str = "answered"  # "answered" | "partly" (parts not answered) | "not_answered"
    mode: str = "extractive"  # "llm" | "extractive" | "none" (nothing cleared the relevance floor)
    sources: list[AnswerSource] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)  # each with its quote, passage and verdict
    unanswered: list[str] = field(default_factory=list)  # the parts of the question no source answers
    closest: list[NotUsed] = field(default_factory=list)  # not answered: the nearest passages, not used
    errors: list[str] = field(default_factory=list)  # what went wrong writing it, one line each
    invalid_citations_removed: int = 0  # [n] naming no source, removed

    @property
    def unsupported_citations(self) -> int:
        """Cited sentences their source does not support (marked in the markdown)."""
        return sum(c.verdict == "not supported" for c in self.citations)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["unsupported_citations"] = self.unsupported_citations  # for readers; counted again on load
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Answer":
        data = dict(data)
        data["sources"] = [AnswerSource(**_known(AnswerSource, s)) for s in data.get("sources") or []]
        data["citations"] = [Citation(**_known(Citation, c)) for c in data.get("citations") or []]
        data["closest"] = [NotUsed(**_known(NotUsed, c)) for c in data.get("closest") or []]
        return cls(**_known(cls, data))


def _known(kind: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(kind)}
    return {k: v for k, v in data.items() if k in names}


@dataclass
class ReportExchange:
    """A question asked about a finished report and its answer from that report's own sources
    (Research/report_chat.py). The answer numbers its sources 1..k; each keeps the report's number
    (`AnswerSource.report_n`)."""
    question: str
    answer: Answer
    report_id: str = ""
    asked_at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.answer.to_dict(), "report_id": self.report_id,
                "asked_at": self.asked_at,
                # for readers of the flat form (exports show it under the report): not read back
                "answer_markdown": self.in_report_numbers()}

    def in_report_numbers(self) -> str:
        """The answer's markdown citing the report's numbers (as the report's sources list names them)."""
        mapping = {s.n: s.report_n for s in self.answer.sources if s.report_n is not None}

        def fix(m: re.Match) -> str:
            return "[" + ", ".join(str(mapping.get(int(n), n)) for n in m.group(1).split(", ")) + "]"
        return _ANSWER_GROUP.sub(fix, self.answer.markdown) if mapping else self.answer.markdown

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ReportExchange":
        """This Quarry's form, or the flat one an older Quarry saved and exported (answer_markdown, citations,
        mode, errors and invalid_citations_removed beside the question; [n] the report's numbers)."""
        answer = data.get("answer")
        if not isinstance(answer, dict):
            answer = _legacy_exchange_answer(data)
        return cls(str(data.get("question") or ""), Answer.from_dict(answer), str(data.get("report_id") or ""),
                   float(data.get("asked_at") or time.time()))


#: a citation group as the cited-answer core writes it (Retrieval/citations.format_group): "[2]", "[1, 3]"
_ANSWER_GROUP = re.compile(r"\[(\d+(?:, \d+)*)\](?!\()")


def _legacy_exchange_answer(data: dict[str, Any]) -> dict[str, Any]:
    """An older exchange's answer fields. Its sources are not in it (it cited the report's numbers): the
    loader that has the report adds them (DB/research_store.list_exchanges)."""
    citations = data.get("citations") or []
    mode = str(data.get("mode") or "extractive")
    return {"markdown": str(data.get("answer_markdown") or ""), "mode": mode, "citations": citations,
            "status": "not_answered" if mode == "none" or not citations else "answered",
            "errors": list(data.get("errors") or []),
            "invalid_citations_removed": int(data.get("invalid_citations_removed") or 0)}


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
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage (pipeline.STAGES) and total
    llm_usage: dict[str, Any] = field(default_factory=dict)  # calls, prompt_tokens, completion_tokens, models
    errors: list[str] = field(default_factory=list)
    mode: str = "extractive"  # "llm" when an LLM wrote the report; "none" when no answer was written (not_answered)
    answer_status: str = "answered"  # "answered" | "partly" | "not_answered" (Retrieval/cited_answer.py)
    unanswered_parts: list[str] = field(default_factory=list)  # the sub-questions no source answers
    closest: list[NotUsed] = field(default_factory=list)  # not answered (nothing clears the floor): nearest passages
    unsupported_citations: int = 0  # cited sentences their source does not support (marked in the report)
    follow_ups: list[str] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)  # dig-deeper rounds: added sources, changes
    #: the budgets the run reached ("time", "pages", "tokens": Research/budget.py), in the order reached; a run
    #: that reached one digs no deeper
    budget_reached: list[str] = field(default_factory=list)
    #: stage (pipeline.STAGES) -> why it failed as a whole, in plain words ("search": "DuckDuckGo could not be
    #: reached — no internet?"); a run whose search failed has no report and is not saved
    stage_failures: dict[str, str] = field(default_factory=dict)
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    created_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        self.rounds = [_round(r) for r in self.rounds]
        self.closest = [c if isinstance(c, NotUsed) else NotUsed(**_known(NotUsed, c)) for c in self.closest or []]

    @property
    def searched_nothing(self) -> bool:
        """No search answered (every engine failed, or none could be used): there is nothing to report."""
        return "search" in self.stage_failures

    @property
    def answer(self) -> Answer:
        """The report as the one answer record (a view of this result's fields)."""
        cited = len(self.cited_sources())  # its sources are the one list every door shows (listed_sources)
        sources = [AnswerSource(n, s.title, s.url, s.kind, i < cited) for i, (n, s) in enumerate(self.listed_sources())]
        return Answer(self.report_markdown, self.answer_status, self.mode, sources, list(self.citations),
                      list(self.unanswered_parts), list(self.closest), errors=list(self.errors),
                      invalid_citations_removed=self.invalid_citations_removed)

    def numbered_sources(self) -> list[Source]:
        """Sources that have a report number (given to the writer), in number order."""
        return sorted((s for s in self.sources if s.n is not None), key=lambda s: s.n)

    def cited_sources(self) -> list[Source]:
        """Sources the report cites, in number order: what "N cited" counts, and the head of listed_sources."""
        cited = {c.n for c in self.citations}
        return [s for s in self.numbered_sources() if s.n in cited]

    def listed_sources(self) -> list[tuple[int, Source]]:
        """The one list of a report's sources, with their numbers, that every door shows (UI, CLI, exports,
        JSON): the sources it cites, in number order, then those read but not cited (numbered, not cited);
        the first len(cited_sources()) entries are the cited ones. A run that numbered none (an older Quarry's
        run citing nothing) lists the selected sources it read, numbered in order."""
        numbered = self.numbered_sources()
        if numbered:
            cited = {c.n for c in self.citations}
            return [(s.n, s) for s in numbered if s.n in cited] + [(s.n, s) for s in numbered if s.n not in cited]
        read = (s for s in self.sources if s.selected and s.fetched and not (s.failure or s.duplicate or s.skipped))
        return list(enumerate(read, 1))

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for source, plain in zip(self.sources, data["sources"]):
            plain["error"] = source.error  # the one line shown (JSON readers had it before the split)
        data["rounds"] = [_round(r).to_dict() for r in self.rounds]  # also rounds assigned as dicts later
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResearchResult":
        data = dict(data)
        sources = [_source(s) for s in data.pop("sources", [])]
        citations = [Citation(**c) for c in data.pop("citations", [])]
        data["timings"] = _legacy_timings(data.get("timings") or {})
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(sources=sources, citations=citations, **{k: v for k, v in data.items() if k in known})


def _round(value: "Round | dict[str, Any]") -> Round:
    return value if isinstance(value, Round) else Round.from_dict(value)


def _source(data: dict[str, Any]) -> Source:
    s = _legacy_source(dict(data))
    s["passages"] = [Passage(**p) for p in s.get("passages", [])]
    s["paper"] = Paper.from_dict(s.get("paper"))
    return Source(**{k: v for k, v in s.items() if k in _SOURCE_FIELDS})


def _legacy_source(s: dict[str, Any]) -> dict[str, Any]:
    """A source saved before page notes and source problems had names of their own."""
    if "extraction" in s and "notes" not in s:
        s["notes"] = s.pop("extraction")
    if "error" in s and not set(PROBLEM_FIELDS) & set(s):
        s.update(split_problem(str(s.pop("error") or ""), bool(s.get("fetched"))))
    return s


def _legacy_timings(timings: dict[str, float]) -> dict[str, float]:
    """Before text extraction was timed on its own, "extract" was the page notes' time (now "notes"). A run
    that read pages now always has both keys, so "extract" without "notes" is an older run's."""
    if "extract" in timings and "notes" not in timings:
        timings = {("notes" if k == "extract" else k): v for k, v in timings.items()}
    return timings


_SOURCE_FIELDS = {f.name for f in dataclasses.fields(Source)}
_PAGE_FIELDS = {f.name for f in dataclasses.fields(Page)}
