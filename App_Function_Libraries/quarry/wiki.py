"""The local Wikipedia index: its status, build it (or the demo encyclopedia), search it, ask it (answers cite
articles as [n])."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from App_Function_Libraries.quarry._common import count_argument, settings_or_current
from App_Function_Libraries.quarry.errors import QuarryError, one_line


@dataclass(frozen=True)
class IndexStatus:
    """The configured index, read without loading anything heavy: usable (exists) or not, one line saying what
    it holds or why it cannot be used, its folder, whether a Quarry index is there at all (built), and whether it
    is the demo encyclopedia."""
    exists: bool
    message: str
    folder: Path
    built: bool
    demo: bool


def _failure(exc: Exception, settings, folder=None) -> QuarryError:
    """The CLI's line for an index problem; a damaged passages file names the folder and how to rebuild."""
    if isinstance(exc, sqlite3.DatabaseError):
        folder = folder or settings.resolve_path(settings.wikipedia.index_dir)
        return QuarryError(f"the index in {folder} cannot be read ({one_line(exc)}); rebuild it with: "
                           f"python app.py wiki build --force --demo (or --input PATH)")
    return QuarryError(one_line(exc))


def _guard(work, settings, folder=None):
    from App_Function_Libraries.LLM.base import LLMError
    from App_Function_Libraries.Retrieval.embeddings import EmbeddingError
    from App_Function_Libraries.Wikipedia.layout import WikiIndexError
    try:
        return work()
    except (WikiIndexError, EmbeddingError, LLMError, sqlite3.DatabaseError) as exc:
        raise _failure(exc, settings, folder) from exc


def status(settings=None) -> IndexStatus:
    """The configured index's IndexStatus."""
    from App_Function_Libraries.Wikipedia.demo import is_demo_index
    from App_Function_Libraries.Wikipedia.index import index_folder, index_status
    from App_Function_Libraries.Wikipedia.layout import is_quarry_index
    settings = settings_or_current(settings)
    exists, message = index_status(settings)
    folder = index_folder(settings)
    return IndexStatus(exists, message, folder, is_quarry_index(folder), is_demo_index(folder))


def build(source=None, out=None, *, demo: bool = False, model: str | None = None, bf16: bool | None = None,
          batch_size: int | None = None, query_prompt: str | None = None, fmt: str = "auto", force: bool = False,
          progress=None, fts: bool = True, settings=None):
    """Build an index from the passages at `source` (JSONL, Parquet, a datasets folder, SQuAD JSON), or the demo
    encyclopedia (demo), into `out` (default: [wikipedia] index_dir); the BuildReport. model, bf16, batch_size,
    query_prompt: None takes [embeddings]. An existing index is replaced only with force (an earlier demo index
    by the demo without it); an interrupted build resumes. progress(done, total) as passages are embedded."""
    from App_Function_Libraries.Retrieval.embeddings import Embedder
    from App_Function_Libraries.Wikipedia.builder import build_index
    from App_Function_Libraries.Wikipedia.demo import DEMO_CORPUS, demo_may_replace
    from App_Function_Libraries.Wikipedia.index import forget_wiki_index
    settings = settings_or_current(settings)
    out = Path(out) if out else settings.resolve_path(settings.wikipedia.index_dir)
    e = settings.embeddings

    def work():
        replace = demo_may_replace(out, force) if demo else force
        embedder = Embedder(e.model if model is None else model, e.bf16 if bf16 is None else bf16,
                            batch_size or e.batch_size, e.query_prompt if query_prompt is None else query_prompt)
        return build_index(DEMO_CORPUS if demo else Path(source), out, embedder, fmt=fmt, force=replace,
                           progress=progress, fts=fts, demo=demo)
    report = _guard(work, settings, out)
    forget_wiki_index(settings)
    return report


def build_demo(progress=None, settings=None):
    """Build (or rebuild) the demo encyclopedia in [wikipedia] index_dir with the configured embedding model; the
    BuildReport. An index there that is not the demo is left as it is (QuarryError)."""
    from App_Function_Libraries.Wikipedia.demo import build_demo_index
    settings = settings_or_current(settings)
    return _guard(lambda: build_demo_index(progress=progress, settings=settings), settings)


def search(question: str, top_k: int = 10, hybrid: bool = True, settings=None):
    """The passages nearest to `question` (WikiHit: title, url, text, scores), best first."""
    from App_Function_Libraries.Wikipedia.index import SearchParams, get_wiki_index
    settings = settings_or_current(settings)
    top_k = count_argument("top_k", top_k, 1, 1000) or 10  # the index checks the question

    def work():
        index = get_wiki_index(settings)
        params = SearchParams.from_settings(settings)
        params.hybrid = params.hybrid and hybrid
        return index.search(question, params)[:top_k]
    return _guard(work, settings)


def ask(question: str, settings=None):
    """A cited answer from the index (WikiAsked: the question, its answer record (records.Answer: markdown,
    status, sources, citations, mode, errors), the passages it was written from, timings). A question of
    several parts names the parts the index does not answer."""
    from App_Function_Libraries.Research.coverage import question_parts
    from App_Function_Libraries.Wikipedia.answer import answer_question
    from App_Function_Libraries.Wikipedia.index import get_wiki_index
    settings = settings_or_current(settings)  # the index checks the question
    return _guard(lambda: answer_question(question, settings, get_wiki_index(settings),
                                          parts=question_parts(question) or None), settings)


def sources_text(answer) -> str:
    """An answer's numbered sources, `[n] title <address>`: cited, then read but not cited."""
    from App_Function_Libraries.Retrieval.numbering import listed_lines
    return "\n".join(listed_lines(answer, lambda s: f"[{s.n}] {s.title} <{s.url}>"))


def open_index(settings=None):
    """The shared index (opened once per process); QuarryError when there is none or it is damaged."""
    from App_Function_Libraries.Wikipedia.index import get_wiki_index
    settings = settings_or_current(settings)
    return _guard(lambda: get_wiki_index(settings), settings)
