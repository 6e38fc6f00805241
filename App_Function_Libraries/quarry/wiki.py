"""The local Wikipedia index: search it, ask it (answers cite articles as [n])."""
from __future__ import annotations

import sqlite3

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import QuarryError, one_line


def _failure(exc: Exception, settings) -> QuarryError:
    """The CLI's line for an index problem; a damaged passages file names the folder and how to rebuild."""
    if isinstance(exc, sqlite3.DatabaseError):
        folder = settings.resolve_path(settings.wikipedia.index_dir)
        return QuarryError(f"the index in {folder} cannot be read ({one_line(exc)}); rebuild it with: "
                           f"python app.py wiki build --force --demo (or --input PATH)")
    return QuarryError(one_line(exc))


def _guard(work, settings):
    from App_Function_Libraries.LLM.base import LLMError
    from App_Function_Libraries.Retrieval.embeddings import EmbeddingError
    from App_Function_Libraries.Wikipedia.layout import WikiIndexError
    try:
        return work()
    except (WikiIndexError, EmbeddingError, LLMError, sqlite3.DatabaseError) as exc:
        raise _failure(exc, settings) from exc


def search(question: str, top_k: int = 10, hybrid: bool = True, settings=None):
    """The passages nearest to `question` (WikiHit: title, url, text, scores), best first."""
    from App_Function_Libraries.Wikipedia.index import SearchParams, get_wiki_index
    settings = settings_or_current(settings)
    question = text_argument("question", question)
    top_k = count_argument("top_k", top_k, 1, 1000) or 10

    def work():
        index = get_wiki_index(settings)
        params = SearchParams.from_settings(settings)
        params.hybrid = params.hybrid and hybrid
        return index.search(question, params)[:top_k]
    return _guard(work, settings)


def ask(question: str, settings=None):
    """A cited answer from the index (WikiAnswer: markdown, sources, citations, mode, errors)."""
    from App_Function_Libraries.Wikipedia.answer import answer_question
    from App_Function_Libraries.Wikipedia.index import get_wiki_index
    settings = settings_or_current(settings)
    question = text_argument("question", question)
    return _guard(lambda: answer_question(question, settings, get_wiki_index(settings)), settings)


def open_index(settings=None):
    """The shared index (opened once per process); QuarryError when there is none or it is damaged."""
    from App_Function_Libraries.Wikipedia.index import get_wiki_index
    settings = settings_or_current(settings)
    return _guard(lambda: get_wiki_index(settings), settings)
