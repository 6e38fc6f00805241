"""Google Custom Search JSON API (GET <google_api_url>?cx=…&q=…, key in the X-Goog-Api-Key header so it
never appears in a URL). It returns at most 10 results a request and 100 a query: pages via `start`.

Google closed the Custom Search JSON API to new customers; the endpoint stays configurable.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions, date_range_value, query_with_operators)
from App_Function_Libraries.Search.errors import (BadKey, QuotaExceeded, RateLimited, SearchError)
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_int, as_text, as_url,
                                                                 dig, iso_date)

SPEC = EngineSpec(
    name="google", label="Google Custom Search",
    honours={"country": "gl + cr=countryXX", "search_lang": "hl",
             "result_lang": "lr=lang_xx",
             "date_range": "dateRestrict d1/w1/m1/y1; explicit range as sort=date:r:YYYYMMDD:YYYYMMDD",
             "safesearch": "safe (active/off)", "count": "num + start (10 a page, 100 in all)",
             "site_blacklist": "siteSearch + siteSearchFilter=e (one site), -site: operators (more)",
             "include_sites": "site: operators",
             "exact_terms": "exactTerms (the first phrase; more as quoted phrases in q)",
             "exclude_terms": "excludeTerms (the first term; more as -term in q)", "dedupe_filter": "filter (0/1)",
             "geolocation": "gl", "sort": "sort=date"},
    auth="header X-Goog-Api-Key (+ cx from google_search_engine_id)", page_size=10, max_results=100)

_DATE_RESTRICT = {"day": "d1", "week": "w1", "month": "m1", "year": "y1"}
_SNIPPET_DATE = re.compile(r"^([A-Z][a-z]{2} \d{1,2}, \d{4}|\d+ (?:day|hour|week)s? ago) \.\.\. ")
_DATE_METATAGS = ("article:published_time", "og:article:published_time", "datePublished", "date",
                  "dc.date", "article:modified_time")


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    start = 1 + page * SPEC.page_size
    wanted = min(opts.count, SPEC.max_results)
    if start > wanted:
        return None
    one_site = len(opts.site_blacklist) == 1
    # exactTerms and excludeTerms each take ONE phrase/word: the first goes there, the rest into q
    in_query = dataclasses.replace(opts, exact_terms=opts.exact_terms[1:], exclude_terms=opts.exclude_terms[1:])
    params = {"cx": conn.extras.get("cx", ""), "q": query_with_operators(in_query, sites=not one_site),
              "num": str(min(SPEC.page_size, wanted - start + 1)), "start": str(start)}
    if one_site:
        params.update(siteSearch=opts.site_blacklist[0], siteSearchFilter="e")
    _add_location_and_language(params, opts)
    notes = _add_dates_and_sort(params, opts)
    if opts.safesearch:
        params["safe"] = "off" if opts.safesearch == "off" else "active"
        if opts.safesearch == "moderate" and page == 0 and opts.set_by_caller("safesearch"):
            notes.append("google: safesearch has only active/off; moderate sent as active")
    if opts.exact_terms:
        params["exactTerms"] = opts.exact_terms[0]
    if opts.exclude_terms:
        params["excludeTerms"] = opts.exclude_terms[0]
    if opts.dedupe_filter is not None:
        params["filter"] = "1" if opts.dedupe_filter else "0"
    return HttpRequest("GET", conn.url, params=params, headers={"X-Goog-Api-Key": conn.key},
                       notes=notes if page == 0 else [])


def _add_location_and_language(params: dict, opts: SearchOptions) -> None:
    if opts.geolocation or opts.country:
        params["gl"] = (opts.geolocation or opts.country).lower()
    if opts.country:
        params["cr"] = f"country{opts.country}"
    if opts.search_lang:
        params["hl"] = opts.search_lang
    if opts.result_lang:
        params["lr"] = f"lang_{opts.result_lang}"


def _add_dates_and_sort(params: dict, opts: SearchOptions) -> list[str]:
    notes = []
    rng = opts.date_range
    if rng and rng.preset:
        params["dateRestrict"] = _DATE_RESTRICT[rng.preset]
    if rng and not rng.preset:
        params["sort"] = date_range_value(opts, {}, "date:r:{start:%Y%m%d}:{end:%Y%m%d}")
        if opts.sort == "date":
            notes.append("google: an explicit date_range uses the sort parameter; sort_results_by ignored")
    elif opts.sort == "date":
        params["sort"] = "date"
    return notes


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    hits = [_hit(item, opts) for item in as_dicts(data.get("items"))]
    total = as_int(dig(data, "searchInformation", "totalResults"))
    more = bool(as_dicts(dig(data, "queries", "nextPage")))
    return ParsedPage(hits=[h for h in hits if h.url], total=total, more=more)


def _hit(item: dict, opts: SearchOptions) -> Hit:
    tags = as_dicts(dig(item, "pagemap", "metatags"))
    meta = tags[0] if tags else {}
    snippet = as_text(item.get("snippet"))
    date = next((d for d in (iso_date(meta.get(k), opts.today) for k in _DATE_METATAGS) if d), None)
    leading = _SNIPPET_DATE.match(snippet)  # Google starts some snippets with the page's date
    date = date or (iso_date(leading.group(1), opts.today) if leading else None)
    author = as_text(meta.get("author")) or as_text(meta.get("article:author")) or None
    return Hit(title=as_text(item.get("title")), url=as_url(item.get("link")),
               snippet=snippet, date_published=date, author=author,
               source=as_text(item.get("displayLink")) or None)


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = as_text(dig(payload, "error", "message"))
    reasons = {as_text(e.get("reason")) for e in as_dicts(dig(payload, "error", "errors"))}
    reasons.update(as_text(d.get("reason")) for d in as_dicts(dig(payload, "error", "details")))
    if reasons & {"keyInvalid", "API_KEY_INVALID"} or "API key not valid" in message or status == 401:
        return BadKey(f"Google rejected the API key (HTTP {status}: {message or 'key invalid'}); "
                      "check google_api_key", status=status)
    if reasons & {"dailyLimitExceeded", "quotaExceeded", "RATE_LIMIT_EXCEEDED"} or "quota" in message.lower():
        return QuotaExceeded(f"Google: the project's daily Custom Search quota is used up (HTTP {status}: "
                             f"{message})", status=status)
    if reasons & {"rateLimitExceeded", "userRateLimitExceeded"}:
        return RateLimited(f"Google is rate-limiting Quarry (HTTP {status}: {message})", status=status)
    if status == 400 and "cx" in message.lower() or reasons & {"invalid"} and "engine" in message.lower():
        return BadKey(f"Google does not know the search engine id (HTTP 400: {message}); "
                      "check google_search_engine_id", status=status)
    if status == 403:
        return BadKey(f"Google refused the request (HTTP 403: {message or 'forbidden'}); the project may not "
                      "have the Custom Search JSON API enabled (it is closed to new customers)", status=status)
    return None
