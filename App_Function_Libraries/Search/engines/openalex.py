"""OpenAlex works search (GET <openalex_api_url>?search=…&per-page=…): {meta: {count, …}, results: [work, …]}.
Abstracts come only as `abstract_inverted_index` ({word: [positions]}) and are rebuilt in word order, bounded
in words: at most MAX_ABSTRACT_WORDS positions, one word each, each word at most MAX_WORD_CHARS, and at most
MAX_INDEX_ENTRIES positions read in all (an index of millions is not walked). Polite
use: `mailto` ([engines] contact_email) puts Quarry in OpenAlex's polite pool; a key, when set, goes as
`api_key`."""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.records import MAX_ABSTRACT_CHARS, cut_words
from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, HttpRequest, ParsedPage,
                                                        SearchOptions)
from App_Function_Libraries.Search.engines.scholarly import (NO_SAFESEARCH, bare_doi, contact_email, date_bounds,
                                                             paper_hit, year_of)
from App_Function_Libraries.Search.engines.textclean import as_dicts, as_float, as_int, as_text, as_url, dig
from App_Function_Libraries.Search.errors import BadKey, RateLimited, SearchError

SPEC = EngineSpec(
    name="openalex", label="OpenAlex",
    honours={"date_range": "filter=from_publication_date,to_publication_date", "safesearch": NO_SAFESEARCH,
             "count": "per-page", "sort": "sort=publication_date:desc"},
    auth="api_key parameter (optional)", needs_key=False, page_size=100, max_results=100)

MAX_ABSTRACT_WORDS = 5000
MAX_WORD_CHARS = 100
MAX_INDEX_ENTRIES = 4 * MAX_ABSTRACT_WORDS


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    params = {"search": opts.query, "per-page": str(min(opts.count, SPEC.max_results)), "page": "1"}
    bounds = date_bounds(opts)
    if bounds:
        params["filter"] = f"from_publication_date:{bounds[0]:%Y-%m-%d},to_publication_date:{bounds[1]:%Y-%m-%d}"
    if opts.sort == "date":
        params["sort"] = "publication_date:desc"
    if contact_email(conn):
        params["mailto"] = contact_email(conn)
    if conn.key:
        params["api_key"] = conn.key
    return HttpRequest("GET", conn.url, params=params, headers={"Accept": "application/json"})


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return ParsedPage(problem=as_text(dig(data, "message")) or as_text(dig(data, "error"))
                          or "expected a JSON object with a `results` list")
    hits = [_hit(work, opts) for work in as_dicts(data["results"])]
    return ParsedPage(hits=[h for h in hits if h.url], total=as_int(dig(data, "meta", "count")), more=False)


def abstract_from_index(index: Any) -> str:
    """{word: [positions]} → the text, words in position order (a malformed index gives what it can; a
    position named twice keeps its first word)."""
    if not isinstance(index, dict):
        return ""
    placed: dict[int, str] = {}
    read = 0
    for word, positions in index.items():
        if read >= MAX_INDEX_ENTRIES:
            break
        if not isinstance(word, str) or not isinstance(positions, list):
            continue
        for position in positions[:MAX_INDEX_ENTRIES - read]:
            if isinstance(position, int) and 0 <= position < MAX_ABSTRACT_WORDS:
                placed.setdefault(position, word[:MAX_WORD_CHARS])
        read += min(len(positions), MAX_INDEX_ENTRIES - read)
    words = [placed[position] for position in sorted(placed)]
    words = words[1:] if words[:1] == ["Abstract"] else words  # a heading indexed as word 0
    return cut_words(" ".join(words), MAX_ABSTRACT_CHARS)


def _hit(work: dict, opts: SearchOptions):
    doi = bare_doi(work.get("doi")) or bare_doi(dig(work, "ids", "doi"))
    landing = as_url(dig(work, "primary_location", "landing_page_url")) or as_url(work.get("id"))
    pdf = as_url(dig(work, "best_oa_location", "pdf_url")) or (
        as_url(dig(work, "primary_location", "pdf_url")) if dig(work, "primary_location", "is_oa") else "")
    authors = [as_text(dig(a, "author", "display_name")) or as_text(a.get("raw_author_name"))
               for a in as_dicts(work.get("authorships"))]
    return paper_hit(title=work.get("display_name") or work.get("title"), landing=landing, doi=doi, authors=authors,
                     year=year_of(work.get("publication_year")),
                     venue=as_text(dig(work, "primary_location", "source", "display_name")),
                     abstract=abstract_from_index(work.get("abstract_inverted_index")), pdf_url=pdf,
                     published=work.get("publication_date"), opts=opts, source="OpenAlex",
                     score=as_float(work.get("relevance_score")))


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = (as_text(dig(payload, "message")) or as_text(dig(payload, "error")))[:200]
    if status == 429:
        return RateLimited(f"OpenAlex is rate-limiting Quarry (HTTP 429{': ' + message if message else ''}); "
                           "set [engines] contact_email for the polite pool, or wait", status=status)
    if status in (401, 403) and "key" in message.lower():
        return BadKey(f"OpenAlex rejected the API key (HTTP {status}: {message}); check openalex_api_key",
                      status=status)
    return None
