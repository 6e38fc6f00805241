"""Serper.dev Google search API (POST <serper_api_url> with a JSON body, header X-API-KEY)."""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions, date_range_value, query_with_operators)
from App_Function_Libraries.Search.errors import BadKey, QuotaExceeded, SearchError
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_text, as_url, dig, iso_date)

SPEC = EngineSpec(
    name="serper", label="Serper",
    honours={"country": "gl (geolocation wins)", "search_lang": "hl",
             "date_range": "tbs=qdr:d/w/m/y or tbs=cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY",
             "count": "num (10 to 100, in tens)", "site_blacklist": "-site: operators",
             "include_sites": "site: operators",
             "exact_terms": "quoted phrases", "exclude_terms": "-term operators", "geolocation": "gl"},
    auth="header X-API-KEY", page_size=100, max_results=100)

_QDR = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    wanted = min(opts.count, SPEC.max_results)
    body: dict[str, Any] = {"q": query_with_operators(opts), "num": max(10, -(-wanted // 10) * 10), "page": 1}
    notes = []
    if opts.geolocation or opts.country:
        body["gl"] = (opts.geolocation or opts.country).lower()
    if opts.geolocation and opts.country and opts.geolocation != opts.country \
            and opts.set_by_caller("country"):
        notes.append(f"serper: content_country and geolocation are both its gl; gl={body['gl']} (geolocation) "
                     f"sent, content_country {opts.country} ignored")
    if opts.search_lang:
        body["hl"] = opts.search_lang
    if opts.date_range:
        body["tbs"] = date_range_value(opts, _QDR, "cdr:1,cd_min:{start.month}/{start.day}/{start.year},"
                                             "cd_max:{end.month}/{end.day}/{end.year}")
    headers = {"X-API-KEY": conn.key, "Content-Type": "application/json"}
    return HttpRequest("POST", conn.url, headers=headers, json_body=body, notes=notes)


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    if "organic" not in data and "searchParameters" not in data:
        return ParsedPage(problem=as_text(data.get("message")) or "no `organic` results in the answer")
    hits = [_hit(item, opts) for item in as_dicts(data.get("organic"))]
    return ParsedPage(hits=[h for h in hits if h.url])


def _hit(item: dict, opts: SearchOptions) -> Hit:
    return Hit(title=as_text(item.get("title")), url=as_url(item.get("link")),
               snippet=as_text(item.get("snippet")), date_published=iso_date(item.get("date"), opts.today))


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = as_text(dig(payload, "message"))
    if status in (401, 403) or "unauthorized" in message.lower():
        return BadKey(f"Serper rejected the API key (HTTP {status}: {message or 'unauthorized'}); "
                      "check serper_api_key", status=status)
    if "credit" in message.lower() or status == 402:
        return QuotaExceeded(f"Serper: the account has no credits left (HTTP {status}: {message})",
                             status=status)
    return None
