"""Tavily search API (POST <tavily_api_url> with a JSON body, header Authorization: Bearer <key>)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions)
from App_Function_Libraries.Search.errors import BadKey, QuotaExceeded, SearchError
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_float, as_text, as_url, dig,
                                                                 iso_date)

SPEC = EngineSpec(
    name="tavily", label="Tavily",
    honours={"country": "country (English country name)",
             "date_range": "time_range (day/week/month/year) or start_date/end_date",
             "count": "max_results (20 at most)", "site_blacklist": "exclude_domains",
             "include_sites": "include_domains"},
    auth="header Authorization: Bearer <key>", page_size=20, max_results=20)


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    body: dict[str, Any] = {"query": opts.query, "max_results": min(opts.count, SPEC.max_results),
                            "search_depth": "basic", "topic": "general", "include_answer": False,
                            "include_raw_content": False, "include_images": False}
    notes = []
    if opts.site_blacklist:
        body["exclude_domains"] = list(opts.site_blacklist)
    if opts.include_sites:
        body["include_domains"] = list(opts.include_sites)
    if opts.date_range and opts.date_range.preset:
        body["time_range"] = opts.date_range.preset
    elif opts.date_range:
        start, end = opts.date_range.bounds(opts.today)
        body.update(start_date=start.isoformat(), end_date=end.isoformat())
    if opts.country:
        name = country_name(opts.country)
        if name:
            body["country"] = name
        else:
            notes.append(f"tavily: content_country {opts.country} has no country name Tavily knows, ignored")
    headers = {"Authorization": f"Bearer {conn.key}", "Content-Type": "application/json"}
    return HttpRequest("POST", conn.url, headers=headers, json_body=body, notes=notes)


@lru_cache(maxsize=256)
def country_name(code: str) -> str | None:
    """ISO alpha-2 → the lower-case English name Tavily expects ('US' → 'united states')."""
    try:
        from babel import Locale
        name = Locale("en").territories.get(code.upper())
    except Exception:  # noqa: BLE001 - babel missing or broken: the option is reported as ignored
        return None
    return name.lower() if name else None


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    if "results" not in data:
        return ParsedPage(problem=_error_text(data) or "no `results` in the answer")
    hits = [_hit(item, opts) for item in as_dicts(data.get("results"))]
    return ParsedPage(hits=[h for h in hits if h.url])


def _hit(item: dict, opts: SearchOptions) -> Hit:
    return Hit(title=as_text(item.get("title")), url=as_url(item.get("url")),
               snippet=as_text(item.get("content")),
               date_published=iso_date(item.get("published_date"), opts.today), score=as_float(item.get("score")))


def _error_text(payload: Any) -> str:
    detail = dig(payload, "detail")
    if isinstance(detail, dict):
        return as_text(detail.get("error"))
    return as_text(detail) or as_text(dig(payload, "error"))


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = _error_text(payload)
    if status in (401, 403):
        return BadKey(f"Tavily rejected the API key (HTTP {status}: {message or 'unauthorized'}); "
                      "check tavily_api_key", status=status)
    if status in (402, 432, 433):
        return QuotaExceeded(f"Tavily: the plan's credit limit is reached (HTTP {status}: {message})",
                             status=status)
    return None
