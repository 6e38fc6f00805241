"""Bing Web Search API v7 (GET <bing_api_url>?q=…, key in Ocp-Apim-Subscription-Key).

Microsoft retired the Bing Search APIs in 2025; the endpoint stays configurable for compatible services.
"""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions, date_range_value, query_with_operators)
from App_Function_Libraries.Search.errors import BadKey, QuotaExceeded, SearchError
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_int, as_text, as_url, dig,
                                                                 iso_date)

SPEC = EngineSpec(
    name="bing", label="Bing",
    honours={"country": "cc / mkt", "search_lang": "setLang",
             "result_lang": "mkt (needs a country)",
             "date_range": "freshness (Day/Week/Month or YYYY-MM-DD..YYYY-MM-DD; year as an explicit range)",
             "safesearch": "safeSearch", "count": "count + offset (50 a page)",
             "site_blacklist": "-site: operators", "include_sites": "site: operators", "exact_terms": "quoted phrases",
             "exclude_terms": "-term operators"},
    auth="header Ocp-Apim-Subscription-Key", page_size=50, max_results=100)

_FRESHNESS = {"day": "Day", "week": "Week", "month": "Month"}
_SAFE = {"off": "Off", "moderate": "Moderate", "strict": "Strict"}


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    offset = page * SPEC.page_size
    wanted = min(opts.count, SPEC.max_results)
    if offset >= wanted:
        return None
    params = {"q": query_with_operators(opts), "count": str(min(SPEC.page_size, wanted - offset)),
              "offset": str(offset), "responseFilter": "Webpages", "textDecorations": "false",
              "textFormat": "Raw"}
    notes = []
    market_lang = opts.result_lang or opts.search_lang
    if opts.country and market_lang:
        params["mkt"] = f"{market_lang}-{opts.country}"
    elif opts.country:
        params["cc"] = opts.country
    elif opts.set_by_caller("result_lang") and page == 0:
        notes.append(f"bing: search_result_language {opts.result_lang} needs a content_country (Bing takes it "
                     "as mkt=xx-CC), ignored")
    if opts.search_lang:
        params["setLang"] = opts.search_lang
    if opts.safesearch:
        params["safeSearch"] = _SAFE[opts.safesearch]
    if opts.date_range:
        params["freshness"] = date_range_value(opts, _FRESHNESS, "{start:%Y-%m-%d}..{end:%Y-%m-%d}")
    return HttpRequest("GET", conn.url, params=params, headers={"Ocp-Apim-Subscription-Key": conn.key},
                       notes=notes)


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    if data.get("_type") == "ErrorResponse":
        return ParsedPage(problem=_error_text(data) or "an ErrorResponse")
    pages = dig(data, "webPages")
    hits = [_hit(item, opts) for item in as_dicts(dig(pages, "value"))]
    total = as_int(dig(pages, "totalEstimatedMatches"))
    return ParsedPage(hits=[h for h in hits if h.url], total=total, more=bool(hits))


def _hit(item: dict, opts: SearchOptions) -> Hit:
    return Hit(title=as_text(item.get("name")), url=as_url(item.get("url")), snippet=as_text(item.get("snippet")),
               date_published=iso_date(item.get("datePublished"), opts.today),
               source=as_text(item.get("siteName")) or None, language=as_text(item.get("language")) or None)


def _error_text(payload: Any) -> str:
    errors = as_dicts(dig(payload, "errors"))
    if errors:
        return as_text(errors[0].get("message"))
    return as_text(dig(payload, "error", "message"))


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = _error_text(payload)
    if status == 401:
        return BadKey(f"Bing rejected the subscription key (HTTP 401: {message or 'access denied'}); "
                      "check bing_api_key", status=status)
    if status == 403 and ("quota" in message.lower() or "volume" in message.lower()):
        return QuotaExceeded(f"Bing: the subscription's call volume quota is used up (HTTP 403: {message})",
                             status=status)
    return None
