"""Crossref works query (GET <crossref_api_url>?query=…&rows=…): {status, message-type: work-list,
message: {total-results, items: [work, …]}}. Polite use: `mailto` ([engines] contact_email) puts Quarry in
Crossref's polite pool; a Metadata Plus token, when set, goes in the Crossref-Plus-API-Token header."""
from __future__ import annotations

import re
from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, HttpRequest, ParsedPage,
                                                        SearchOptions)
from App_Function_Libraries.Search.engines.scholarly import (NO_SAFESEARCH, bare_doi, contact_email, date_bounds,
                                                             day_from_parts, paper_hit, raw_abstract)
from App_Function_Libraries.Search.engines.textclean import as_dicts, as_float, as_list, as_text, dig
from App_Function_Libraries.Search.errors import BadKey, BadResponse, RateLimited, SearchError

SPEC = EngineSpec(
    name="crossref", label="Crossref",
    honours={"date_range": "filter=from-pub-date,until-pub-date", "safesearch": NO_SAFESEARCH,
             "count": "rows", "sort": "sort=published&order=desc"},
    auth="optional header Crossref-Plus-API-Token: Bearer <token>", needs_key=False, page_size=100,
    max_results=100)

_JATS_TITLE = re.compile(r"<(jats:)?title>.*?</(jats:)?title>", re.S | re.I)
_BLOCK_END = re.compile(r"</(jats:)?(p|sec)>", re.I)
_DATE_FIELDS = ("published", "issued", "published-print", "published-online", "created")


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    params = {"query": opts.query, "rows": str(min(opts.count, SPEC.max_results)), "offset": "0"}
    bounds = date_bounds(opts)
    if bounds:
        params["filter"] = f"from-pub-date:{bounds[0]:%Y-%m-%d},until-pub-date:{bounds[1]:%Y-%m-%d}"
    if opts.sort == "date":
        params.update(sort="published", order="desc")
    if contact_email(conn):
        params["mailto"] = contact_email(conn)
    headers = {"Accept": "application/json"}
    if conn.key:
        headers["Crossref-Plus-API-Token"] = f"Bearer {conn.key}"
    return HttpRequest("GET", conn.url, params=params, headers=headers)


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    if data.get("status") == "failed":
        return ParsedPage(error=BadResponse(f"Crossref refused the query: {_failure(data)}"))
    items = dig(data, "message", "items")
    if not isinstance(items, list):
        return ParsedPage(problem="no `message.items` in the answer")
    hits = [_hit(item, opts) for item in as_dicts(items)]
    # total-results of a relevance query counts every loosely matching work (millions): not reported
    return ParsedPage(hits=[h for h in hits if h.url], more=False)


def _hit(item: dict, opts: SearchOptions):
    doi = bare_doi(item.get("DOI"))
    parts = next((dig(item, name, "date-parts") for name in _DATE_FIELDS if dig(item, name, "date-parts")), None)
    year = dig(parts, 0, 0) if isinstance(dig(parts, 0, 0), int) else None
    authors = [as_text(a.get("name")) or " ".join(p for p in (as_text(a.get("given")), as_text(a.get("family"))) if p)
               for a in as_dicts(item.get("author"))]
    return paper_hit(title=_first(item.get("title")), landing=as_text(item.get("URL")), doi=doi, authors=authors,
                     year=year, venue=_first(item.get("container-title")), abstract=_abstract(item.get("abstract")),
                     pdf_url=_open_pdf(item), published=day_from_parts(parts), opts=opts, source="Crossref",
                     score=as_float(item.get("score")))


def _first(value: Any) -> str:
    texts = [as_text(v) for v in as_list(value) if as_text(v)]
    return texts[0] if texts else as_text(value)


def _abstract(value: Any) -> str:
    """JATS or HTML markup out, the "Abstract" heading dropped, paragraphs kept apart."""
    value = raw_abstract(value)
    return as_text(_BLOCK_END.sub(" ", _JATS_TITLE.sub(" ", value))) if value else ""


def _open_pdf(item: dict) -> str:
    """A PDF link, only when the work carries a Creative Commons licence (else it is likely paywalled)."""
    licensed = any("creativecommons.org" in as_text(lic.get("URL")) for lic in as_dicts(item.get("license")))
    if not licensed:
        return ""
    return next((as_text(link.get("URL")) for link in as_dicts(item.get("link"))
                 if as_text(link.get("content-type")) == "application/pdf"), "")


def _failure(payload: Any) -> str:
    messages = [as_text(m.get("message")) for m in as_dicts(dig(payload, "message"))]
    return "; ".join(m for m in messages if m)[:200] or as_text(dig(payload, "message"))[:200] or "no reason given"


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    if status == 429:
        return RateLimited("Crossref is rate-limiting Quarry (HTTP 429); set [engines] contact_email for the polite "
                           "pool, or search fewer sub-queries at once", status=status)
    if status in (401, 403) and "token" in text.lower():
        return BadKey(f"Crossref rejected the Metadata Plus token (HTTP {status}); check crossref_api_key",
                      status=status)
    if isinstance(payload, dict) and payload.get("status") == "failed":
        return BadResponse(f"Crossref refused the query (HTTP {status}: {_failure(payload)})", status=status)
    return None
