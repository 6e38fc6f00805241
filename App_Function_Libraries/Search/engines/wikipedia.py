"""The local Wikipedia index as a search engine (transport "local": no HTTP, no key).

The entry point is Wikipedia/index.get_wiki_index(settings).search(query, params, top_k): passages best first.
`open_searcher` opens the index (NotSetUp when none is built) and drops passages below [wikipedia]
relevance_floor; `parse_found` (pure) groups the passages by article, an article placed where its best
passage is, and makes one Hit per article with the passages as its text in hand.
"""
from __future__ import annotations

from typing import Callable

from App_Function_Libraries.Search.engines.base import Hit, ParsedPage, SearchOptions, local_spec
from App_Function_Libraries.Search.engines.textclean import snippet_of
from App_Function_Libraries.Search.errors import NotSetUp

SPEC = local_spec("wikipedia", "The Wikipedia index (local)", {"count": "articles, each with the passages found in it"})
KIND = "wikipedia"  # records.SOURCE_KINDS
CANDIDATES_PER_HIT = 3  # passages searched per article kept, before grouping by article


def open_searcher(settings) -> Callable[[str, int], list]:
    """search(query, count) -> the passages found (WikiHit each), best first, above the relevance floor."""
    from App_Function_Libraries.Wikipedia.index import SearchParams, get_wiki_index
    from App_Function_Libraries.Wikipedia.layout import WikiIndexError
    try:
        index = get_wiki_index(settings)
    except WikiIndexError as exc:
        raise NotSetUp(str(exc).split("\n", 1)[0].rstrip(".")) from exc
    params, floor = SearchParams.from_settings(settings), settings.wikipedia.relevance_floor

    def search(query: str, count: int) -> list:
        return [h for h in index.search(query, params, top_k=count * CANDIDATES_PER_HIT) if h.vector_score >= floor]
    return search


def parse_found(found: list, opts: SearchOptions) -> ParsedPage:
    """One Hit per article (title, url, the article's passages found as its text in hand), best first."""
    articles: dict[str, list] = {}
    for passage in found:
        articles.setdefault(passage.url or passage.title, []).append(passage)
    hits = [Hit(title=group[0].title, url=group[0].url or article_url(group[0].title),
                snippet=snippet_of(group[0].text), score=round(float(group[0].score), 6),
                in_hand="\n\n".join(p.text for p in group), kind=KIND)
            for group in list(articles.values())[:opts.count]]
    return ParsedPage(hits=hits, total=len(articles))


def article_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + title.replace(" ", "_")
