"""A SearXNG instance's JSON API (GET <searxng_api_url>/search?q=…&format=json). The instance must list
`json` in `search.formats` of its settings.yml. A key, when set, is sent as a Bearer token (for instances
behind an authenticating proxy).

Design after SearXNG's own engine modules (facts + request builder + response parser); no code from it.
"""
from __future__ import annotations

from typing import Any

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions, query_with_operators)
from App_Function_Libraries.Search.errors import BadKey, Blocked, RateLimited, SearchError
from App_Function_Libraries.Search.engines.textclean import (as_dicts, as_float, as_int, as_list, as_text,
                                                                 as_url, dig, iso_date)

SPEC = EngineSpec(
    name="searxng", label="SearXNG",
    honours={"country": "language=xx-CC", "search_lang": "language",
             "result_lang": "language (wins over search_lang)",
             "date_range": "time_range (day/week/month/year only)",
             "safesearch": "safesearch 0/1/2", "count": "pageno (as many pages as needed, 5 at most)",
             "site_blacklist": "-site: operators (for the upstream engines) + filtered here",
             "include_sites": "site: operators (for the upstream engines) + filtered here",
             "exact_terms": "quoted phrases", "exclude_terms": "-term operators"},
    auth="optional header Authorization: Bearer", needs_key=False, page_size=10, max_results=100)

MAX_PAGES = 5
_SAFE = {"off": "0", "moderate": "1", "strict": "2"}
JSON_DISABLED_MESSAGE = ("this SearXNG instance has JSON output disabled: add `json` to `search.formats` in "
                         "its settings.yml")


def search_url(base: str) -> str:
    base = base.rstrip("/")
    return base if base.endswith("/search") else base + "/search"


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page >= MAX_PAGES or page * SPEC.page_size >= opts.count:
        return None
    params = {"q": query_with_operators(opts), "format": "json", "pageno": str(page + 1),
              "categories": "general"}
    notes = _count_note(opts) if page == 0 else []
    lang = opts.result_lang or opts.search_lang
    if lang:
        params["language"] = f"{lang}-{opts.country}" if opts.country else lang
    elif opts.set_by_caller("country"):
        notes.append("searxng: content_country needs a language (it is sent as language=xx-CC), ignored")
    if opts.result_lang and opts.search_lang and opts.result_lang != opts.search_lang \
            and opts.set_by_caller("search_lang"):
        notes.append(f"searxng: takes one language; search_result_language {opts.result_lang} sent, "
                     f"search_lang {opts.search_lang} ignored")
    if opts.safesearch:
        params["safesearch"] = _SAFE[opts.safesearch]
    if opts.date_range and opts.date_range.preset:
        params["time_range"] = opts.date_range.preset
    elif opts.date_range:
        notes.append("searxng: an explicit date_range is not supported (only day/week/month/year), ignored")
    headers = {"Accept": "application/json"}
    if conn.key:
        headers["Authorization"] = f"Bearer {conn.key}"
    return HttpRequest("GET", search_url(conn.url), params=params, headers=headers,
                       notes=notes if page == 0 else [])


def _count_note(opts: SearchOptions) -> list[str]:
    most = MAX_PAGES * SPEC.page_size
    if opts.count <= most:
        return []
    return [f"searxng: result_count {opts.count} may not be reached: Quarry asks for {MAX_PAGES} pages at most "
            f"(about {most} results)"]


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, dict):
        return ParsedPage(problem="expected a JSON object")
    if "results" not in data and "query" not in data:
        return ParsedPage(problem="no `results` in the answer")
    hits = [_hit(item, opts) for item in as_dicts(data.get("results"))]
    hits = [h for h in hits if h.url]
    return ParsedPage(hits=hits, total=as_int(data.get("number_of_results")) or None, more=bool(hits),
                      unresponsive=_unresponsive(data.get("unresponsive_engines")))


def _hit(item: dict, opts: SearchOptions) -> Hit:
    engines = [as_text(e) for e in as_list(item.get("engines")) if as_text(e)]
    source = ", ".join(engines) or as_text(item.get("engine")) or None
    return Hit(title=as_text(item.get("title")), url=as_url(item.get("url")),
               snippet=as_text(item.get("content")),
               date_published=iso_date(item.get("publishedDate") or item.get("pubdate"), opts.today),
               author=as_text(item.get("author")) or None, source=source, score=as_float(item.get("score")))


def _unresponsive(value: Any) -> list[str]:
    """[[engine, reason], …] as 'engine (reason)'."""
    out = []
    for entry in as_list(value):
        if isinstance(entry, list) and entry:
            name = as_text(entry[0]) or "?"
            reason = as_text(entry[1]) if len(entry) > 1 else ""
            out.append(f"{name} ({reason})" if reason else name)
        elif isinstance(entry, str) and entry.strip():
            out.append(as_text(entry))
    return out


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    if status == 403:
        return Blocked(JSON_DISABLED_MESSAGE + " (HTTP 403)", status=status)
    if status == 429:
        return RateLimited("the SearXNG instance's limiter refused Quarry (HTTP 429): for your own instance "
                           "set `server.limiter: false` in its settings.yml, or pass it "
                           "X-Forwarded-For/X-Real-IP through a proxy", status=status)
    return None


def refine_error(error: SearchError, conn: Connection) -> SearchError:
    """A 403 means "JSON output disabled" only when Quarry sent no credentials: with searxng_api_key set, the
    likelier cause is the instance or its proxy refusing them."""
    if error.status != 403 or not conn.key:
        return error
    return BadKey("SearXNG refused the request (HTTP 403) although searxng_api_key is set: the instance or the "
                  "authenticating proxy in front of it did not accept the credentials; check searxng_api_key. "
                  "If they are right, the instance may have JSON output disabled: add `json` to `search.formats` "
                  "in its settings.yml", status=403, retry_after=error.retry_after)


def empty_answer_message(unresponsive: list[str]) -> str:
    return ("SearXNG found nothing because its upstream engines did not answer: " + ", ".join(unresponsive)
            + ". Enable other engines in its settings.yml or try again later")
