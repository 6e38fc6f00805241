"""Brave Search web search API (GET <brave_api_url>?q=…, key in X-Subscription-Token)."""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions, date_range_value, query_with_operators)
from App_Function_Libraries.Search.errors import BadKey, QuotaExceeded, SearchError
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_text, as_url, dig, iso_date)

SPEC = EngineSpec(
    name="brave", label="Brave Search",
    honours={"country": "country", "search_lang": "ui_lang (lang-COUNTRY)",
             "result_lang": "search_lang",
             "date_range": "freshness (pd/pw/pm/py or YYYY-MM-DDtoYYYY-MM-DD)", "safesearch": "safesearch",
             "count": "count + offset (20 a page, 10 pages)", "site_blacklist": "-site: operators",
             "include_sites": "site: operators",
             "exact_terms": "quoted phrases", "exclude_terms": "-term operators"},
    auth="header X-Subscription-Token", page_size=20, max_results=200)

_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
MAX_PAGE_OFFSET = 9


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    wanted = min(opts.count, SPEC.max_results)
    if page > MAX_PAGE_OFFSET or page * SPEC.page_size >= wanted:
        return None
    params = {"q": query_with_operators(opts), "count": str(min(SPEC.page_size, wanted)), "offset": str(page),
              "result_filter": "web", "text_decorations": "false"}
    if opts.country:
        params["country"] = opts.country
    if opts.result_lang or opts.search_lang:
        params["search_lang"] = opts.result_lang or opts.search_lang
    if opts.search_lang:
        params["ui_lang"] = f"{opts.search_lang}-{opts.country or 'US'}"
    if opts.safesearch:
        params["safesearch"] = opts.safesearch
    if opts.date_range:
        params["freshness"] = date_range_value(opts, _FRESHNESS, "{start:%Y-%m-%d}to{end:%Y-%m-%d}")
    headers = {"X-Subscription-Token": conn.key, "Accept": "application/json"}
    return HttpRequest("GET", conn.url, params=params, headers=headers)


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    if data.get("type") == "ErrorResponse":
        return ParsedPage(problem=_error_text(data) or "an ErrorResponse")
    hits = [_hit(item, opts) for item in as_dicts(dig(data, "web", "results"))]
    more = dig(data, "query", "more_results_available")
    return ParsedPage(hits=[h for h in hits if h.url], more=bool(more) if more is not None else bool(hits))


def _hit(item: dict, opts: SearchOptions) -> Hit:
    date = iso_date(item.get("page_age"), opts.today) or iso_date(item.get("age"), opts.today)
    source = as_text(dig(item, "profile", "name")) or as_text(dig(item, "meta_url", "hostname")) or None
    return Hit(title=as_text(item.get("title")), url=as_url(item.get("url")),
               snippet=as_text(item.get("description")), date_published=date, source=source,
               language=as_text(item.get("language")) or None)


def _error_text(payload: Any) -> str:
    return as_text(dig(payload, "error", "detail")) or as_text(dig(payload, "error", "code"))


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    code = as_text(dig(payload, "error", "code"))
    detail = _error_text(payload)
    if status == 401 or "TOKEN_INVALID" in code or "TOKEN_MISSING" in code:
        return BadKey(f"Brave rejected the subscription token (HTTP {status}: {detail or 'unauthorized'}); "
                      "check brave_api_key", status=status)
    if status == 402 or "QUOTA" in code or "quota" in detail.lower():
        return QuotaExceeded(f"Brave: the plan's monthly quota is used up (HTTP {status}: {detail})",
                             status=status)
    return None
