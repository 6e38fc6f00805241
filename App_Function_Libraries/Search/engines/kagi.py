"""Kagi Search API v0 (GET <kagi_api_url>?q=…&limit=N, header Authorization: Bot <token>).

The answer's `data` mixes search results (t=0) with related searches (t=1); only t=0 items are results.
The API takes no country, language, date or safe-search parameter.
"""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions, query_with_operators)
from App_Function_Libraries.Search.errors import BadKey, QuotaExceeded, SearchError
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_text, as_url, dig,
                                                                 iso_date)

SPEC = EngineSpec(
    name="kagi", label="Kagi",
    honours={"count": "limit", "site_blacklist": "-site: operators",
             "include_sites": "site: operators", "exact_terms": "quoted phrases",
             "exclude_terms": "-term operators"},
    auth="header Authorization: Bot <token>", page_size=100, max_results=100)


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    params = {"q": query_with_operators(opts), "limit": str(min(opts.count, SPEC.max_results))}
    return HttpRequest("GET", conn.url, params=params, headers={"Authorization": f"Bot {conn.key}"})


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    errors = _errors(data)
    if errors and not isinstance(data.get("data"), list):
        return ParsedPage(problem=errors)
    items = as_dicts(data.get("data"))
    hits = [_hit(item, opts) for item in items if item.get("t") == 0]
    return ParsedPage(hits=[h for h in hits if h.url])


def _hit(item: dict, opts: SearchOptions) -> Hit:
    return Hit(title=as_text(item.get("title")), url=as_url(item.get("url")),
               snippet=as_text(item.get("snippet")),
               date_published=iso_date(item.get("published"), opts.today))


def _errors(payload: Any) -> str:
    return "; ".join(as_text(e.get("msg")) for e in as_dicts(dig(payload, "error")) if as_text(e.get("msg")))


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = _errors(payload)
    low = message.lower()
    if status == 401 or "unauthorized" in low or "token" in low and "invalid" in low:
        return BadKey(f"Kagi rejected the API token (HTTP {status}: {message or 'unauthorized'}); "
                      "check kagi_api_key", status=status)
    if status == 402 or "balance" in low or "credit" in low:
        return QuotaExceeded(f"Kagi: the API balance is used up (HTTP {status}: {message}); top it up in "
                             "Kagi's billing settings", status=status)
    return None
