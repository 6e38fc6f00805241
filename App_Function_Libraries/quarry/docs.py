"""Your document library: add files and folders, list, remove, re-embed, search it, ask it (answers cite files
and pages). Documents, embedding and database failures leave as QuarryError."""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, one_line

METHODS = ("hybrid", "bm25", "vector")  # how search() ranks: BM25 and vectors rank-fused, or one of them


@dataclass
class Removed:
    """What remove() did: the DocumentInfos taken out, and a line for each reference that named no document."""
    removed: list = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def library(settings=None):
    """The DocumentLibrary of the configured index folder that stays open for the process (one per folder and
    settings, the same one research and keep_sources use): for a long-running front door such as the UI."""
    from App_Function_Libraries.Documents.library import document_library
    settings = settings_or_current(settings)
    with library_errors(settings):
        return document_library(settings)


def _with_library(work, settings=None, shared: bool = False):
    """Run work(library) on a library opened for this call and closed after it, or (shared) on the one that
    stays open; documents, embedding and database failures become QuarryError."""
    from App_Function_Libraries.Documents.library import DocumentLibrary
    settings = settings_or_current(settings)
    with library_errors(settings):
        if shared:
            return work(library(settings))
        opened = DocumentLibrary(settings)
        try:
            return work(opened)
        finally:
            opened.close()


@contextmanager
def library_errors(settings):
    """Documents, embedding and database failures of the document library, as QuarryError."""
    from App_Function_Libraries.Documents.doc_types import DocumentsError
    from App_Function_Libraries.Retrieval.embeddings import EmbeddingError
    try:
        yield
    except (DocumentsError, EmbeddingError) as exc:
        raise QuarryError(one_line(exc)) from exc
    except sqlite3.DatabaseError as exc:
        from App_Function_Libraries.DB.file_errors import unusable_message
        from App_Function_Libraries.Documents.store import DB_NAME
        path = settings.resolve_path(settings.documents.index_dir) / DB_NAME
        raise QuarryError(unusable_message(path, "[documents] index_dir", exc)) from exc


def _check(query, k):
    return text_argument("question", query), count_argument("k", k, 1, 500) or 20


def search(query: str, k: int = 20, *, group: str = "fine", filters=None, method: str = "hybrid", settings=None,
           shared: bool = False):
    """The best matching chunks (with their file, page and scores), best first. shared: use library(), which
    stays open (its models and indexes stay loaded), instead of opening the index for this call."""
    query, k = _check(query, k)

    def work(lib):
        try:
            return lib.search(query, group=group, k=k, filters=filters, method=method)
        except ValueError as exc:  # the retriever names a method it does not know
            raise BadArgument(None, one_line(exc)) from exc
    return _with_library(work, settings, shared)


def ask(query: str, k: int = 20, *, group: str = "fine", filters=None, use_llm: bool = True, settings=None,
        shared: bool = False):
    """A cited answer from the best chunks (extractive without an LLM, or with use_llm False); shared as in
    search. DocsAsked: the question, its answer record (records.Answer) and the chunks, hits[i] being source
    i+1. A question of several parts names the parts the documents do not answer."""
    from App_Function_Libraries.Research.coverage import question_parts
    query, k = _check(query, k)
    parts = question_parts(query) or None
    return _with_library(lambda lib: lib.ask(query, group=group, k=k, filters=filters, use_llm=use_llm,
                                             parts=parts), settings, shared)


def add(paths, progress=None, annotate: bool | None = None, settings=None, shared: bool = False):
    """Index files and folders (changed files replaced, unchanged ones skipped); the IngestReport. progress(done,
    total, path) after each file; annotate: an LLM context per chunk (None: [documents] contextual_annotation)."""
    return _with_library(lambda lib: lib.add(paths, progress=progress, annotate=annotate), settings, shared)


def list(settings=None, shared: bool = False):  # noqa: A001 - quarry.docs.list(), as quarry.history.list()
    """The indexed documents (DocumentInfo: id, path, name, type, pages, words, chunks per group)."""
    return _with_library(lambda lib: lib.list(), settings, shared)


def skipped(settings=None, shared: bool = False) -> list[tuple[str, str]]:
    """(path, reason) of every file that could not be indexed."""
    return _with_library(lambda lib: lib.skipped(), settings, shared)


def remove(refs, settings=None, shared: bool = False) -> Removed:
    """Take documents out of the index (the files stay), each by id or path."""
    from App_Function_Libraries.Documents.doc_types import DocumentNotFound

    def work(lib):
        done = Removed()
        for ref in refs:
            try:
                done.removed.append(lib.remove(ref))
            except DocumentNotFound as exc:
                done.missing.append(one_line(exc))
        return done
    return _with_library(work, settings, shared)


def reindex(settings=None) -> int:
    """Embed every chunk again with the configured embedding model; how many."""
    return _with_library(lambda lib: lib.reindex(), settings)


def filters(names=None, types=None, modified_after=None, modified_before=None):
    """SearchFilters for search() and ask(): file name globs, file types, modification dates (datetimes)."""
    from App_Function_Libraries.Documents.doc_types import SearchFilters
    return SearchFilters(names=[*(names or [])], types=[*(types or [])], modified_after=modified_after,
                         modified_before=modified_before)


def sources_text(asked) -> str:
    """An answer's numbered sources (file and page or chunk), one a line."""
    from App_Function_Libraries.Documents.answer import format_sources
    return format_sources(asked)


def max_file_bytes() -> int:
    """The largest file the library reads; a larger upload is refused."""
    from App_Function_Libraries.Documents.readers import MAX_FILE_BYTES
    return MAX_FILE_BYTES
