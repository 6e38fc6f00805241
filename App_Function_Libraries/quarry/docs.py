"""Your document library: search it, ask it (answers cite files and pages)."""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import QuarryError, one_line

METHODS = ("hybrid", "bm25", "vector")


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


def _check(query, k, method=None):
    query = text_argument("question", query)
    k = count_argument("k", k, 1, 500) or 20
    if method is not None and method not in METHODS:
        from App_Function_Libraries.quarry.errors import BadArgument
        raise BadArgument("method", f"must be one of {', '.join(METHODS)}")
    return query, k


def search(query: str, k: int = 20, *, group: str = "fine", filters=None, method: str = "hybrid", settings=None,
           shared: bool = False):
    """The best matching chunks (with their file, page and scores), best first. shared: use library(), which
    stays open (its models and indexes stay loaded), instead of opening the index for this call."""
    query, k = _check(query, k, method)
    return _with_library(lambda lib: lib.search(query, group=group, k=k, filters=filters, method=method), settings,
                         shared)


def ask(query: str, k: int = 20, *, group: str = "fine", filters=None, use_llm: bool = True, settings=None,
        shared: bool = False):
    """A cited answer from the best chunks (extractive without an LLM, or with use_llm False); shared as in
    search."""
    query, k = _check(query, k)
    return _with_library(lambda lib: lib.ask(query, group=group, k=k, filters=filters, use_llm=use_llm), settings,
                         shared)
