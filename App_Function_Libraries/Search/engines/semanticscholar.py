"""Semantic Scholar's Graph API paper search (GET <semanticscholar_api_url>?query=…&limit=…&fields=…):
{total, offset, next, data: [paper, …]}. The key is optional (header x-api-key; without one Quarry shares the
public pool, which answers HTTP 429 readily)."""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, HttpRequest, ParsedPage,
                                                        SearchOptions)
from App_Function_Libraries.Search.engines.scholarly import (NO_SAFESEARCH, bare_doi, date_bounds, paper_hit,
                                                             raw_abstract, year_of)
from App_Function_Libraries.Search.engines.textclean import as_dicts, as_int, as_text, dig
from App_Function_Libraries.Search.errors import BadKey, BadResponse, Blocked, RateLimited, SearchError

SPEC = EngineSpec(
    name="semanticscholar", label="Semantic Scholar",
    honours={"date_range": "publicationDateOrYear", "safesearch": NO_SAFESEARCH, "count": "limit"},
    auth="optional header x-api-key", needs_key=False, page_size=100, max_results=100)

PAPER_PAGE = "https://www.semanticscholar.org/paper/"
FIELDS = "title,url,abstract,year,authors,venue,journal,externalIds,openAccessPdf,publicationDate"


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    params = {"query": opts.query, "limit": str(min(opts.count, SPEC.max_results)), "offset": "0",
              "fields": FIELDS}
    bounds = date_bounds(opts)
    if bounds:
        params["publicationDateOrYear"] = f"{bounds[0]:%Y-%m-%d}:{bounds[1]:%Y-%m-%d}"
    headers = {"Accept": "application/json"}
    if conn.key:
        headers["x-api-key"] = conn.key
    return HttpRequest("GET", conn.url, params=params, headers=headers)


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict) or not isinstance(data.get("data", []), list):
        return ParsedPage(problem="expected a JSON object with a `data` list")
    if "data" not in data:
        message = as_text(data.get("error")) or as_text(data.get("message"))
        if message:
            return ParsedPage(error=BadResponse(f"Semantic Scholar refused the request: {message}"))
        if "total" not in data:
            return ParsedPage(problem="no `data` in the answer")
    hits = [_hit(item, opts) for item in as_dicts(data.get("data"))]
    return ParsedPage(hits=[h for h in hits if h.url], total=as_int(data.get("total")), more=False)


def _hit(item: dict, opts: SearchOptions):
    doi = bare_doi(dig(item, "externalIds", "DOI"))
    venue = as_text(item.get("venue")) or as_text(dig(item, "journal", "name")) or \
        as_text(dig(item, "publicationVenue", "name"))
    landing = as_text(item.get("url")) or (f"{PAPER_PAGE}{item['paperId']}" if isinstance(item.get("paperId"), str)
                                           and item["paperId"].isalnum() else "")
    return paper_hit(title=item.get("title"), landing=landing, doi=doi,
                     authors=[as_text(a.get("name")) for a in as_dicts(item.get("authors"))],
                     year=year_of(item.get("year")), venue=venue, abstract=as_text(raw_abstract(item.get("abstract"))),
                     pdf_url=dig(item, "openAccessPdf", "url") or "", published=item.get("publicationDate"),
                     opts=opts, source="Semantic Scholar")


def _message(payload: Any) -> str:
    return (as_text(dig(payload, "message")) or as_text(dig(payload, "error")))[:200]


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = _message(payload)
    if status == 429:
        return RateLimited(f"Semantic Scholar is rate-limiting Quarry (HTTP 429: {message or 'too many requests'}); "
                           "wait a minute, or set semanticscholar_api_key for a higher limit", status=status)
    if status == 404 and message:
        return BadResponse(f"Semantic Scholar found no such record (HTTP 404: {message}); is "
                           "semanticscholar_api_url its /graph/v1/paper/search endpoint?", status=status)
    if status == 400 and message:
        return BadResponse(f"Semantic Scholar refused the request (HTTP 400: {message})", status=status)
    if status == 403:
        return Blocked(f"Semantic Scholar refused the request (HTTP 403: {message or 'forbidden'})", status=status)
    return None


def refine_error(error: SearchError, conn: Connection) -> SearchError:
    """A 401/403 with semanticscholar_api_key set is the key being refused."""
    if error.status not in (401, 403) or not conn.key:
        return error
    return BadKey(f"Semantic Scholar rejected the API key (HTTP {error.status}); check semanticscholar_api_key "
                  "or leave it empty to use the public pool", status=error.status, retry_after=error.retry_after)
