"""DuckDuckGo through the `ddgs` library: `DDGS(timeout=…).text(query, region=, safesearch=, timelimit=,
max_results=, backend=)`. No key or URL; `duckduckgo_backend` picks ddgs' backend ("auto", "duckduckgo",
"bing", … or a comma-separated list).

ddgs does its own HTTP, so the runner calls `search_library` instead of sending requests; results are
dicts with `title`, `href`, `body` (text search) or `url`, `date`, `source` (news).
"""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Web_Search.engines.base import (Connection, EngineSpec, Hit, ParsedPage,
                                                            SearchOptions, date_range_value, query_with_operators)
from App_Function_Libraries.Web_Search.engines.errors import (Blocked, RateLimited, SearchError, TimedOut,
                                                              Unreachable)
from App_Function_Libraries.Web_Search.engines.textclean import as_dicts, as_text, as_url, iso_date

SPEC = EngineSpec(
    name="duckduckgo", label="DuckDuckGo (ddgs)",
    honours={"content_country": "region cc-lang", "search_lang": "region cc-lang",
             "search_result_language": "region cc-lang",
             "date_range": "timelimit d/w/m/y or YYYY-MM-DD..YYYY-MM-DD", "safesearch": "safesearch on/moderate/off",
             "result_count": "max_results", "site_blacklist": "-site: operators", "exactTerms": "quoted phrases",
             "excludeTerms": "-term operators"},
    auth="none", needs_key=False, needs_url=False, page_size=100, max_results=100, transport="library")

_SAFE = {"off": "off", "moderate": "moderate", "strict": "on"}
_TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
_REGION_COUNTRY = {"GB": "uk"}  # DuckDuckGo's own region code for the United Kingdom


def library_arguments(opts: SearchOptions, conn: Connection) -> dict[str, Any]:
    """The keyword arguments of DDGS.text for this search (pure)."""
    lang = opts.result_lang or opts.search_lang or "en"
    region = f"{_REGION_COUNTRY.get(opts.country, (opts.country or '').lower())}-{lang}" if opts.country \
        else "wt-wt"
    kwargs: dict[str, Any] = {"region": region, "safesearch": _SAFE[opts.safesearch or "moderate"],
                              "timelimit": None, "max_results": min(opts.count, SPEC.max_results),
                              "backend": conn.extras.get("backend") or "auto"}
    if opts.date_range:
        kwargs["timelimit"] = date_range_value(opts, _TIMELIMIT, "{start:%Y-%m-%d}..{end:%Y-%m-%d}")
    return kwargs


def search_library(opts: SearchOptions, conn: Connection, timeout: float) -> ParsedPage:
    """Run the search through ddgs; its exceptions become typed SearchErrors."""
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
    try:
        items = DDGS(timeout=max(1, round(timeout))).text(query_with_operators(opts),
                                                          **library_arguments(opts, conn))
    except RatelimitException as exc:
        raise RateLimited(f"DuckDuckGo is rate-limiting Quarry ({_short(exc)}); wait a few minutes or set "
                          "duckduckgo_backend to another ddgs backend") from None
    except TimeoutException as exc:
        raise TimedOut(f"DuckDuckGo did not answer within {timeout:g} s ({_short(exc)})") from None
    except DDGSException as exc:
        return _from_library_error(exc)
    return parse_response(items, opts)


def _from_library_error(exc: Exception) -> ParsedPage:
    text = _short(exc)
    low = text.lower()
    if "no results found" in low:
        return ParsedPage()
    if "captcha" in low or "403" in low or "blocked" in low:
        raise Blocked(f"DuckDuckGo blocked the request ({text}); try again later or set duckduckgo_backend "
                      "to another ddgs backend") from None
    if "ratelimit" in low or "429" in low:
        raise RateLimited(f"DuckDuckGo is rate-limiting Quarry ({text})") from None
    if "timed out" in low or "timeout" in low:
        raise TimedOut(f"DuckDuckGo did not answer in time ({text})") from None
    if any(word in low for word in ("dns", "connect", "error sending request", "resolve", "network")):
        reason = "its host name could not be resolved" if "dns" in low or "resolv" in low else "connection failed"
        raise Unreachable(f"cannot reach DuckDuckGo ({reason}); check your internet connection (or the proxy "
                          "in DDGS_PROXY)") from None
    raise SearchError(f"DuckDuckGo search failed: {text}") from None


def _short(exc: Exception, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "…"


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    """ddgs result dicts → hits."""
    if not isinstance(data, list):
        return ParsedPage(problem="ddgs returned something other than a list of results")
    hits = [_hit(item, opts) for item in as_dicts(data)]
    return ParsedPage(hits=[h for h in hits if h.url])


def _hit(item: dict, opts: SearchOptions) -> Hit:
    url = as_url(item.get("href")) or as_url(item.get("url"))
    return Hit(title=as_text(item.get("title")), url=url, snippet=as_text(item.get("body")),
               date_published=iso_date(item.get("date"), opts.today), source=as_text(item.get("source")) or None)
