"""DocumentLibrary: the one entry point to the local documents feature (CLI and UI).

    lib = DocumentLibrary(settings)
    report = lib.add(["~/papers", "notes.md"])        # IngestReport
    hits = lib.search("protein folding", group="fine")  # list[SearchHit], fused BM25 + vector
    asked = lib.ask("What did we find about X?")        # DocsAsked: .answer (cited [n]), .hits
    lib.list(); lib.remove(3); lib.close()
    document_library(settings)                          # the one kept open per index folder (research, UI)

The embedder, LLM and cross-encoder load on first use, so listing and removing stay fast.
"""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Callable

import numpy as np

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.Documents.annotate import ChunkAnnotator, PathPatterns
from App_Function_Libraries.Documents.answer import NO_DOCUMENTS, answer_from_hits
from App_Function_Libraries.Documents.doc_types import (DocsAsked, DocumentInfo, DocumentsError, IndexMismatch,
                                                        IngestReport, SearchFilters, SearchHit)
from App_Function_Libraries.Documents.ingest import Ingestor, Progress
from App_Function_Libraries.Documents.node_groups import DEFAULT_GROUPS, ROOT, NodeGroup, ordered_groups
from App_Function_Libraries.Documents.retrieve import FUSED_TOP_K, Retriever
from App_Function_Libraries.Documents.store import DocumentStore
from App_Function_Libraries.Retrieval.cited_answer import not_answered

EMBEDDING_META = "embedding_model"


class DocumentLibrary:
    def __init__(self, settings: Settings | None = None, groups: list[NodeGroup] | None = None,
                 index_dir: Path | None = None):
        self.settings = settings or get_settings()
        self.groups = ordered_groups(list(groups or DEFAULT_GROUPS))
        self.index_dir = Path(index_dir or self.settings.resolve_path(self.settings.documents.index_dir))
        self.store = DocumentStore(self.index_dir)
        self._lock = threading.RLock()
        self._embedder = None

    # ------------------------------------------------------------ lazily loaded models
    @property
    def embedder(self):
        if self._embedder is None:
            from App_Function_Libraries.Retrieval.embeddings import get_embedder
            self._embedder = get_embedder(self.settings)
        return self._embedder

    def retriever(self) -> Retriever:
        """The retriever over this library (BM25, vectors, fusion and the configured cross-encoder)."""
        from App_Function_Libraries.Documents.rerank import get_reranker
        return Retriever(self.store, self.embedder, get_reranker(self.settings))

    def _annotator(self, annotate: bool | None) -> tuple[ChunkAnnotator | None, str | None]:
        """(annotator, warning): None when annotation is off or no LLM is configured."""
        wanted = self.settings.documents.contextual_annotation if annotate is None else annotate
        if not wanted:
            return None, None
        from App_Function_Libraries.LLM.registry import get_llm
        client = get_llm("extraction", self.settings)
        if client is None:
            return None, "contextual annotation is on but no LLM is configured: chunks indexed without it"
        return ChunkAnnotator(client, self.store.cached_context, self.store.cache_context), None

    def _check_embedding_model(self) -> None:
        """Refuse to mix vectors of two models in one index."""
        stored = self.store.meta(EMBEDDING_META)
        label = self.embedder.label
        if stored and stored != label and self.store.documents(with_counts=False):
            raise IndexMismatch(f"the documents index was built with the embedding model {stored!r}, not the "
                                f"configured {label!r}; run: python app.py docs reindex")
        if stored != label:
            self.store.set_meta(EMBEDDING_META, label)

    # ------------------------------------------------------------ node groups
    def create_node_group(self, name: str, transform: Callable, parent: str = ROOT, recipe: str = "",
                          annotate: bool = False) -> NodeGroup:
        """Define a new group (documents added from now on, or changed, are split into it too)."""
        group = NodeGroup(name, transform, parent, recipe or f"transform {getattr(transform, '__name__', '')}",
                          annotate)
        with self._lock:
            self.groups = ordered_groups(self.groups + [group])
        return group

    # ------------------------------------------------------------ public API
    def add(self, paths: list[str | Path], progress: Progress | None = None,
            annotate: bool | None = None) -> IngestReport:
        """Index files and folders (changed files are replaced, unchanged ones skipped)."""
        with self._lock:
            self._check_embedding_model()
            patterns = PathPatterns.load(self.settings.resolve_path(self.settings.documents.annotation_patterns))
            annotator, warning = self._annotator(annotate)
            ingestor = Ingestor(self.store, self.groups, self.embedder.encode, self.embedder.label, annotator,
                                patterns, self.settings.documents)
            report = ingestor.run(list(paths), progress)
            if warning:
                report.warnings.insert(0, warning)
            return report

    def list(self) -> list[DocumentInfo]:
        return self.store.documents()

    def skipped(self) -> list[tuple[str, str]]:
        """(path, reason) of every file that could not be indexed."""
        return self.store.skipped_files()

    def remove(self, ref: int | str) -> DocumentInfo:
        """Remove a document by id or path; raises DocumentNotFound."""
        with self._lock:
            if isinstance(ref, str) and not ref.isdigit():
                ref = str(Path(ref).expanduser().resolve())
            info = self.store.document(ref)
            self.store.delete_document(info.id)
            self.store.flush()
            return info

    def search(self, query: str, group: str = "fine", k: int = FUSED_TOP_K, filters: SearchFilters | None = None,
               method: str = "hybrid", rerank: bool | None = None,
               query_vector: np.ndarray | None = None) -> list[SearchHit]:
        """The k best nodes of a group: hybrid (BM25 + vector, rank-fused), bm25 or vector."""
        with self._lock:
            known = self.store.groups()
            if known and group not in known:
                raise DocumentsError(f"no node group {group!r} in the documents index (groups: {', '.join(known)})")
            if method != "bm25":
                self._check_embedding_model()
            return self.retriever().search(query, group, k, filters, method, query_vector, rerank)

    def ask(self, question: str, group: str = "fine", k: int = FUSED_TOP_K, filters: SearchFilters | None = None,
            on_token: Callable[[str], None] | None = None, use_llm: bool = True,
            parts: list[str] | None = None) -> DocsAsked:
        """A cited answer from the best chunks (LLM when configured, extractive otherwise); `parts`: the
        questions the question holds, each answered or named as not answered."""
        hits = self.search(question, group, k, filters)
        if not hits and not self.list():  # said as what to do, not as "nothing matches"
            return DocsAsked(question, not_answered(NO_DOCUMENTS, []))
        llm = None
        if use_llm:
            from App_Function_Libraries.LLM.registry import get_llm
            llm = get_llm("final_answer", self.settings)
        return answer_from_hits(question, hits, llm, self.embedder, on_token,
                                relevance_floor=self.settings.documents.relevance_floor, parts=parts)

    def reindex(self, progress: Progress | None = None) -> int:
        """Embed every stored node again with the configured model. Returns the number of nodes."""
        with self._lock:
            items = self.store.index_texts()
            batch = max(1, self.settings.embeddings.batch_size * 4)
            ids: list[int] = []
            vectors = []
            for start in range(0, len(items), batch):
                chunk = items[start:start + batch]
                if progress:
                    progress(start, len(items), "")
                ids += [i for i, _ in chunk]
                vectors.append(self.embedder.encode([t for _, t in chunk]))
            if ids:
                self.store.replace_vectors(ids, np.concatenate(vectors))
            self.store.set_meta(EMBEDDING_META, self.embedder.label)
            return len(ids)

    def close(self) -> None:
        self.store.close()


def library_status(settings: Settings) -> tuple[bool | None, str]:
    """(ok, one line) for the configured document library, read without loading a model and without making
    a file: None while it holds no documents, False when it cannot be read or its vectors are of another
    embedding model than the configured one."""
    from App_Function_Libraries.Documents.store import DB_NAME
    from App_Function_Libraries.Retrieval.embeddings import DEFAULT_MODEL_LABEL
    folder = settings.resolve_path(settings.documents.index_dir)
    empty = f"no documents yet in {folder}; add some with: python app.py docs add PATH"
    if not (folder / DB_NAME).is_file():
        return None, empty
    try:
        store = DocumentStore(folder)
        try:
            count, stored = len(store.documents(with_counts=False)), store.meta(EMBEDDING_META)
        finally:
            store.close()
    except (DocumentsError, OSError) as exc:
        return False, str(exc)
    except sqlite3.Error as exc:  # a damaged file: one line, no traceback
        return False, f"cannot read the documents index in {folder}: {exc}"
    configured = settings.embeddings.model or DEFAULT_MODEL_LABEL
    if not count:
        return None, empty
    if stored and stored != configured:
        return False, (f"{count} documents embedded with {stored!r}, not the configured {configured!r}; run: "
                       f"python app.py docs reindex")
    return True, f"{count} document{'s' if count != 1 else ''}, model {stored or configured} ({folder})"


_shared: dict[str, DocumentLibrary] = {}
_shared_lock = threading.Lock()


def document_library(settings: Settings) -> DocumentLibrary:
    """One DocumentLibrary per index folder and settings, kept for later searches (a research's local engine,
    the facade, a kept source's page)."""
    folder = str(settings.resolve_path(settings.documents.index_dir))
    with _shared_lock:
        lib = _shared.get(folder)
        if lib is None or lib.settings is not settings:
            lib = _shared[folder] = DocumentLibrary(settings)
        return lib
