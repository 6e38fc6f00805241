"""DuckDuckGo through the `ddgs` library: `DDGS(timeout=…).text(query, region=, safesearch=, timelimit=,
max_results=, backend=)`. No key or URL; `duckduckgo_backend` picks ddgs' backend ("auto", "duckduckgo",
"bing", … or a comma-separated list).

What ddgs 9.16.1's text backends do with `timelimit` (read from its engines/*.py): `duckduckgo` sends it as
`df`, which takes d/w/m/y and an explicit 'YYYY-MM-DD..YYYY-MM-DD'; `brave` maps d/w/m/y and raises KeyError
on anything else; wikipedia, grokipedia and mojeek ignore it (startpage and yahoo pass it on unmapped). So a
search with a date range goes to the backends that honour it (DATE_BACKENDS), and `region` is one
country-language pair ('wt-wt' = no region), so a language without a country cannot be sent.

ddgs does its own HTTP, so the runner calls `search_library` instead of sending requests; results are
dicts with `title`, `href`, `body` (text search) or `url`, `date`, `source` (news).
"""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, ParsedPage,
                                                            SearchOptions, date_range_value, query_with_operators)
from App_Function_Libraries.Search.errors import (Blocked, RateLimited, SearchError, TimedOut,
                                                              Unreachable)
from App_Function_Libraries.Search.engines.textclean import as_dicts, as_text, as_url, iso_date
from App_Function_Libraries.valid_unicode import valid_json

#: ddgs backends that honour a date range: for a preset (d/w/m/y) and for an explicit range
DATE_BACKENDS = {"preset": ("duckduckgo", "brave"), "explicit": ("duckduckgo",)}

SPEC = EngineSpec(
    name="duckduckgo", label="DuckDuckGo (ddgs)",
    honours={"country": "region cc-lang", "search_lang": "region cc-lang (needs a country)",
             "result_lang": "region cc-lang (needs a country; wins over search_lang)",
             "date_range": "timelimit d/w/m/y (ddgs backends duckduckgo, brave) or YYYY-MM-DD..YYYY-MM-DD "
                           "(duckduckgo backend only)", "safesearch": "safesearch on/moderate/off",
             "count": "max_results", "site_blacklist": "-site: operators",
             "include_sites": "site: operators", "exact_terms": "quoted phrases",
             "exclude_terms": "-term operators"},
    auth="none", needs_key=False, needs_url=False, page_size=100, max_results=100, transport="library")

_SAFE = {"off": "off", "moderate": "moderate", "strict": "on"}
_TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
_REGION_COUNTRY = {"GB": "uk"}  # DuckDuckGo's own region code for the United Kingdom


def library_arguments(opts: SearchOptions, conn: Connection) -> tuple[dict[str, Any], list[str]]:
    """The keyword arguments of DDGS.text for this search, and notes on what it could not take (pure)."""
    notes: list[str] = []
    lang = opts.result_lang or opts.search_lang
    if opts.country:
        region = f"{_REGION_COUNTRY.get(opts.country, opts.country.lower())}-{lang or 'en'}"
        if opts.result_lang and opts.search_lang and opts.result_lang != opts.search_lang \
                and opts.set_by_caller("search_lang"):
            notes.append(f"duckduckgo: its region takes one language; search_result_language {opts.result_lang} "
                         f"sent, search_lang {opts.search_lang} ignored")
    else:
        region = "wt-wt"
        asked = [name for name in ("search_lang", "result_lang") if opts.set_by_caller(name)]
        if asked:
            notes.append(f"duckduckgo: {', '.join(SearchOptions.label(n) for n in asked)} {lang} needs a content_country (ddgs takes a "
                         "country-language region), ignored; searched all regions (wt-wt)")
    backend, timelimit = _backend_and_timelimit(opts, conn.extras.get("backend") or "auto", notes)
    kwargs: dict[str, Any] = {"region": region, "safesearch": _SAFE[opts.safesearch or "moderate"],
                              "timelimit": timelimit, "max_results": min(opts.count, SPEC.max_results),
                              "backend": backend}
    return kwargs, notes


def _backend_and_timelimit(opts: SearchOptions, configured: str, notes: list[str]) -> tuple[str, str | None]:
    """The ddgs backend(s) and timelimit: with a date range, only backends that honour it."""
    if not opts.date_range:
        return configured, None
    kind = "preset" if opts.date_range.preset else "explicit"
    timelimit = date_range_value(opts, _TIMELIMIT, "{start:%Y-%m-%d}..{end:%Y-%m-%d}")
    wanted = [b.strip() for b in configured.split(",") if b.strip()]
    if not wanted or "auto" in wanted or "all" in wanted:
        return ",".join(DATE_BACKENDS[kind]), timelimit
    able = [b for b in wanted if b in DATE_BACKENDS[kind]]
    what = "an explicit date_range" if kind == "explicit" else "date_range"
    if not able:
        notes.append(f"duckduckgo: {what} is honoured only by ddgs' {' and '.join(DATE_BACKENDS[kind])} "
                     f"backend, not by duckduckgo_backend {configured!r}; date_range ignored")
        return configured, None
    if len(able) < len(wanted):
        left = [b for b in wanted if b not in able]
        notes.append(f"duckduckgo: ddgs backend {', '.join(left)} cannot take {what}; searched with "
                     f"{', '.join(able)} only")
    return ",".join(able), timelimit


def search_library(opts: SearchOptions, conn: Connection, timeout: float) -> ParsedPage:
    """Run the search through ddgs; its exceptions become typed SearchErrors."""
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
    kwargs, notes = library_arguments(opts, conn)
    try:
        items = DDGS(timeout=max(1, round(timeout))).text(query_with_operators(opts), **kwargs)
    except RatelimitException as exc:
        raise RateLimited(f"DuckDuckGo is rate-limiting Quarry ({_short(exc)}); wait a few minutes or set "
                          "duckduckgo_backend to another ddgs backend") from None
    except TimeoutException as exc:
        raise TimedOut(f"DuckDuckGo did not answer within {timeout:g} s ({_short(exc)})") from None
    except (DDGSException, KeyError, ValueError) as exc:
        page = _from_library_error(exc, kwargs["backend"])
    else:
        page = parse_response(valid_json(items), opts)  # ddgs decoded its JSON: no lone surrogate kept
    page.notes = notes + page.notes
    return page


def _from_library_error(exc: Exception, backend: str) -> ParsedPage:
    cause = exc.args[0] if exc.args else None
    if isinstance(exc, (KeyError, ValueError)) or isinstance(cause, (KeyError, ValueError)):
        # a ddgs backend's payload builder could not map an option (brave: timelimit outside d/w/m/y)
        raise SearchError(f"DuckDuckGo: ddgs' {backend} backend cannot take one of the search options "
                          f"({type(cause if isinstance(cause, Exception) else exc).__name__}: {_short(exc)}); "
                          "set duckduckgo_backend to duckduckgo") from None
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
