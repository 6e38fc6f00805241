"""The document library as a search engine (transport "local": no HTTP, no key).

The entry point is Documents/library.document_library(settings).search(query, k): chunks best first (BM25 and
vectors fused). `open_searcher` opens the library (NotSetUp while it is empty); `parse_found` (pure) groups the
chunks by document page (a PDF page, or a whole text file), a page placed where its best chunk is, and makes
one Hit per page: file:///path#p3 (no #p for a file without pages), its chunks in reading order as its text in
hand.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from App_Function_Libraries.Search.engines.base import Hit, ParsedPage, SearchOptions, local_spec
from App_Function_Libraries.Search.engines.textclean import snippet_of
from App_Function_Libraries.Search.errors import NotSetUp

SPEC = local_spec("documents", "The document library (local)",
                  {"count": "document pages, each with the chunks found on it"})
KIND = "document"  # records.SOURCE_KINDS
CANDIDATES_PER_HIT = 3  # chunks searched per page kept, before grouping by page
EMPTY_LIBRARY = "empty — add files in the Documents tab or with python app.py docs add PATH"


def open_searcher(settings) -> Callable[[str, int], list]:
    """search(query, count) -> the chunks found (SearchHit each), best first."""
    folder = Path(settings.resolve_path(settings.documents.index_dir))
    if not (folder.exists() and any(folder.iterdir())):
        raise NotSetUp(EMPTY_LIBRARY)
    from App_Function_Libraries.Documents.library import document_library
    lib = document_library(settings)
    if not lib.store.documents(with_counts=False):
        raise NotSetUp(EMPTY_LIBRARY)
    return lambda query, count: lib.search(query, k=count * CANDIDATES_PER_HIT)


def parse_found(found: list, opts: SearchOptions) -> ParsedPage:
    """One Hit per document page (title "name, p. 3"), best first."""
    places: dict[tuple[str, int | None], list] = {}
    for chunk in found:
        places.setdefault((chunk.path, chunk.page), []).append(chunk)
    return ParsedPage(hits=[_page_hit(group) for group in list(places.values())[:opts.count]], total=len(places))


def _page_hit(group: list) -> Hit:
    first = group[0]
    page = f"#p{first.page}" if first.page else ""
    return Hit(title=first.name + (f", p. {first.page}" if first.page else ""), url=Path(first.path).as_uri() + page,
               snippet=snippet_of(first.text), score=round(float(first.score), 6),
               in_hand="\n\n".join(c.text for c in sorted(group, key=lambda c: c.index)), kind=KIND)
