"""Typed data and errors shared by the local-documents stages (ingest, store, retrieval, answers)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.records import Answer


# ---------------------------------------------------------------- errors

class DocumentsError(QuarryError):
    """Base of every local-documents failure; str() is a one-line message a person can act on."""


class UnreadableFile(DocumentsError):
    """A file that cannot be turned into text (the reason is the message); the batch goes on without it."""


class DocumentNotFound(DocumentsError):
    pass


class IndexMismatch(DocumentsError):
    """The index was built with another embedding model than the configured one."""


class PatternFileError(DocumentsError):
    """The chunk-annotation pattern file is not a mapping of glob → context text."""


# ---------------------------------------------------------------- reading

@dataclass
class ReadText:
    """A file turned into normalized plain text. `page_starts[i]` is the word offset where page i+1 begins
    (PDFs only; empty for other types)."""
    text: str
    file_type: str
    title: str = ""
    page_starts: list[int] = field(default_factory=list)


# ---------------------------------------------------------------- ingest

@dataclass
class DocumentInfo:
    id: int
    path: str
    name: str
    file_type: str
    size: int
    content_hash: str
    title: str
    modified: str  # file modification time, ISO 8601 (UTC)
    added_at: str  # when it was indexed, ISO 8601 (UTC)
    pages: int
    words: int
    nodes: dict[str, int] = field(default_factory=dict)  # node group → number of nodes
    warnings: list[str] = field(default_factory=list)


@dataclass
class SkippedFile:
    path: str
    reason: str


@dataclass
class IngestReport:
    added: list[DocumentInfo] = field(default_factory=list)
    replaced: list[DocumentInfo] = field(default_factory=list)  # changed files indexed again
    unchanged: list[str] = field(default_factory=list)  # paths skipped because their content did not change
    skipped: list[SkippedFile] = field(default_factory=list)  # unreadable files, with the reason
    ignored: int = 0  # files of unsupported types met while walking folders
    warnings: list[str] = field(default_factory=list)  # e.g. contextual annotation failures
    annotation_calls: int = 0

    @property
    def indexed(self) -> list[DocumentInfo]:
        return self.added + self.replaced

    def summary(self) -> str:
        parts = [f"{len(self.added)} added", f"{len(self.replaced)} replaced", f"{len(self.unchanged)} unchanged",
                 f"{len(self.skipped)} skipped"]
        if self.ignored:
            parts.append(f"{self.ignored} of unsupported type ignored")
        return ", ".join(parts)


# ---------------------------------------------------------------- retrieval

@dataclass
class SearchFilters:
    """Metadata filters; every given condition must hold. Names are globs on the file name
    (case-insensitive, any may match); types are file types (pdf, md, ...); dates bound the file's
    modification time (inclusive, dates or date-times)."""
    names: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    modified_after: datetime | None = None
    modified_before: datetime | None = None
    doc_ids: list[int] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.names or self.types or self.modified_after or self.modified_before or self.doc_ids)


@dataclass
class SearchHit:
    node_id: int
    doc_id: int
    path: str
    name: str
    file_type: str
    group: str
    index: int  # position of the node in its group within the document (0-based)
    text: str
    context: str  # path and LLM context that was prepended for indexing
    page: int | None
    score: float = 0.0  # fused (or reranked) score, higher is better
    bm25_rank: int | None = None  # 1-based rank in each list it appeared in
    vector_rank: int | None = None
    rerank_score: float | None = None
    title: str = ""  # its document's title (as its reader found it: an HTML <title>, a PDF's metadata …)

    @property
    def location(self) -> str:
        """Where the chunk is: page for PDFs when known, else its chunk number (1-based)."""
        return f"p{self.page}" if self.page else f"chunk-{self.index + 1}"

    @property
    def citation_target(self) -> str:
        return f"{self.path}#{self.location}"


@dataclass
class DocsAsked:
    """A question asked of the documents: its answer (the one answer record, records.Answer) and the chunks it
    was written from, `hits[i]` being the answer's source i+1 (cited first); no hits when none was used."""
    question: str
    answer: Answer
    hits: list[SearchHit] = field(default_factory=list)
