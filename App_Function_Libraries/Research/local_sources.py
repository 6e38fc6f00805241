"""The local sources a research can search beside the web engines: `wikipedia` (the local index) and
`documents` (the document library).

They are chosen like engines (`--engine duckduckgo,wikipedia,documents`). Each query is searched in each
local source, concurrently with the web engines; what one finds comes with its text already in hand (the
passages or chunks the search found), so it is never fetched. A local source that is not set up (no index
built, an empty library) is reported once and skipped.

    split_engines(names) -> (web engines, local sources)
    search_local(names, queries, settings, count, cancel) -> LocalSearch
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from App_Function_Libraries.config import LOCAL_SOURCES
from App_Function_Libraries.errors import QuarryError
KINDS = {"wikipedia": "wikipedia", "documents": "document"}  # Source.kind of what each finds
SNIPPET_CHARS = 300
CANDIDATES_PER_FIND = 3  # passages or chunks searched per item kept, before grouping by article or page


class LocalSourceMissing(QuarryError):
    """A local source that is not set up; str() says what to do."""


@dataclass
class LocalFind:
    """One article or document page found, with the text the search found in it."""
    title: str
    url: str  # the article's URL; for a document file:///path#p3 (or #chunk-2 where pages are unknown)
    text: str
    kind: str
    snippet: str = ""


@dataclass
class LocalRun:
    """What one local source found for one query, best first."""
    source: str
    query: str
    finds: list[LocalFind] = field(default_factory=list)
    error: str | None = None

    @property
    def label(self) -> str:
        return f"{self.source}|{self.query}"


@dataclass
class LocalSearch:
    runs: list[LocalRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one per local source skipped, saying why


def split_engines(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(web engines, local sources), each in the order given."""
    names = list(names)
    return [n for n in names if n not in LOCAL_SOURCES], [n for n in names if n in LOCAL_SOURCES]


def search_local(names: list[str], queries: list[str], settings, count: int,
                 cancel: threading.Event | None = None) -> LocalSearch:
    """Every query in every named local source; a source that is not set up is noted once and skipped."""
    out = LocalSearch()
    searchers: dict[str, Callable[[str], list[LocalFind]]] = {}
    for name in dict.fromkeys(names):
        try:
            searchers[name] = _SEARCHERS[name](settings, max(1, count))
        except LocalSourceMissing as exc:
            out.notes.append(f"{name}: {exc}; skipped")
        except Exception as exc:  # noqa: BLE001 - a broken index or library costs that source, not the research
            out.notes.append(f"{name}: could not be opened ({' '.join(str(exc).split())[:200]}); skipped")
    pairs = [(q, name) for q in queries for name in searchers]

    def one(pair: tuple[str, str]) -> LocalRun:
        query, name = pair
        run = LocalRun(name, query)
        if cancel is not None and cancel.is_set():
            run.error = "cancelled"
            return run
        try:
            run.finds = searchers[name](query)
        except Exception as exc:  # noqa: BLE001 - one failed local search is that run's error, not the research's
            run.error = " ".join(str(exc).split())[:200] or type(exc).__name__
        return run

    if pairs:
        with ThreadPoolExecutor(max_workers=min(2, len(pairs)), thread_name_prefix="local") as pool:
            out.runs = list(pool.map(one, pairs))
    return out


# ---------------------------------------------------------------- the local Wikipedia index

def _wikipedia(settings, count: int) -> Callable[[str], list[LocalFind]]:
    from App_Function_Libraries.Wikipedia.index import SearchParams, get_wiki_index
    from App_Function_Libraries.Wikipedia.layout import WikiIndexError
    try:
        index = get_wiki_index(settings)
    except WikiIndexError as exc:
        raise LocalSourceMissing(_first_clause(str(exc))) from exc
    params = SearchParams.from_settings(settings)
    floor = settings.wikipedia.relevance_floor

    def search(query: str) -> list[LocalFind]:
        hits = [h for h in index.search(query, params, top_k=count * CANDIDATES_PER_FIND)
                if h.vector_score >= floor]
        articles: dict[str, list] = {}
        for hit in hits:  # best first: an article's place is that of its best passage
            articles.setdefault(hit.url or hit.title, []).append(hit)
        return [LocalFind(title=group[0].title, url=group[0].url or _wiki_url(group[0].title),
                          text="\n\n".join(h.text for h in group), kind=KINDS["wikipedia"],
                          snippet=_snippet(group[0].text))
                for group in list(articles.values())[:count]]
    return search


def _wiki_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + title.replace(" ", "_")


# ---------------------------------------------------------------- the document library

_libraries: dict[str, object] = {}
_lock = threading.Lock()


def document_library(settings):
    """One DocumentLibrary per index folder and settings, kept for later runs."""
    from App_Function_Libraries.Documents.library import DocumentLibrary
    folder = str(settings.resolve_path(settings.documents.index_dir))
    with _lock:
        lib = _libraries.get(folder)
        if lib is None or lib.settings is not settings:
            lib = _libraries[folder] = DocumentLibrary(settings)
        return lib


def _documents(settings, count: int) -> Callable[[str], list[LocalFind]]:
    folder = Path(settings.resolve_path(settings.documents.index_dir))
    if not (folder.exists() and any(folder.iterdir())):
        raise LocalSourceMissing(_EMPTY_LIBRARY)
    lib = document_library(settings)
    if not lib.store.documents(with_counts=False):
        raise LocalSourceMissing(_EMPTY_LIBRARY)

    def search(query: str) -> list[LocalFind]:
        places: dict[tuple[str, int | None], list] = {}
        for hit in lib.search(query, k=count * CANDIDATES_PER_FIND):  # a PDF page, or a whole text file
            places.setdefault((hit.path, hit.page), []).append(hit)
        return [_document_find(group) for group in list(places.values())[:count]]
    return search


def _document_find(group: list) -> LocalFind:
    first = group[0]
    page = f"#p{first.page}" if first.page else ""
    text = "\n\n".join(h.text for h in sorted(group, key=lambda h: h.index))
    return LocalFind(title=first.name + (f", p. {first.page}" if first.page else ""),
                     url=Path(first.path).as_uri() + page, text=text, kind=KINDS["documents"],
                     snippet=_snippet(first.text))


_EMPTY_LIBRARY = ("the document library is empty (add files in the Documents tab or with "
                  "python app.py docs add PATH)")


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


def _first_clause(message: str) -> str:
    return message.split("\n", 1)[0].rstrip(".")


_SEARCHERS = {"wikipedia": _wikipedia, "documents": _documents}
