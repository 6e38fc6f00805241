"""The search APIs Quarry talks to, played on the test world in each service's own wire format: Bing Web
Search v7, Brave, Google Custom Search, SearXNG, Kagi v0, Tavily and Serper (DuckDuckGo goes through the
ddgs library and is tested at that boundary instead).

Each service checks its key the way the real one does and answers a bad key with its own error body;
it pages with its own parameters and limits. Results are generated from the query (TOTAL of them, in the
service's markup and date format); a query containing NOTHING_QUERY finds none.

    apis = SearchAPIs(world).install()
    settings = make_settings(apis.config())           # every engine pointed at the world, keys set
    apis.requests_to("brave")                         # what the Brave endpoint received

Test modules import `clean_health` (an autouse fixture) so engine suspensions do not leak between tests.
"""
from __future__ import annotations

import re
from typing import Callable

import pytest

from Tests.support.testworld import Request, Response, TestWorld

KEY = "test-key-4f9c2a71"
GOOGLE_CX = "test-cx-123"
TOTAL = 57
NOTHING_QUERY = "zzznothing"
PATHS = {"bing": "/bing/v7.0/search", "brave": "/brave/res/v1/web/search", "google": "/google/customsearch/v1",
         "searxng": "/searxng", "kagi": "/kagi/api/v0/search", "tavily": "/tavily/search",
         "serper": "/serper/search"}


@pytest.fixture(autouse=True)
def clean_health():
    """Import into a test module so no engine health board outlives its test (health is kept in each test's own
    database; a board that fell back to memory is dropped here)."""
    from App_Function_Libraries.Search.health import forget_health_boards
    forget_health_boards()
    yield
    forget_health_boards()


def doc(query: str, i: int) -> dict:
    """The i-th (0-based) page every service knows for query."""
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")[:40] or "q"
    return {"title": f"{query} — result {i + 1}", "url": f"https://www.site{i % 5}.example/{slug}/{i + 1}/",
            "text": f"Page {i + 1} about {query}: facts & figures", "day": f"2024-03-{(i % 28) + 1:02d}",
            "site": f"site{i % 5}.example"}


def docs(query: str) -> list[dict]:
    return [] if NOTHING_QUERY in query else [doc(query, i) for i in range(TOTAL)]


class SearchAPIs:
    def __init__(self, world: TestWorld, key: str = KEY) -> None:
        self.world = world
        self.key = key
        self.searxng_json = True  # False: the instance has json missing from search.formats (403)
        self.searxng_unresponsive: list[list[str]] = []

    def install(self) -> "SearchAPIs":
        handlers: dict[str, tuple[str, Callable[[Request], Response]]] = {
            "bing": ("GET", self.bing), "brave": ("GET", self.brave), "google": ("GET", self.google),
            "kagi": ("GET", self.kagi), "tavily": ("POST", self.tavily), "serper": ("POST", self.serper)}
        for engine, (method, handler) in handlers.items():
            self.world.route(method, PATHS[engine], handler)
        self.world.route("GET", PATHS["searxng"] + "/search", self.searxng)
        return self

    def url(self, engine: str) -> str:
        return self.world.url(PATHS[engine])

    def config(self, **search) -> dict:
        """make_settings values: every engine at the world with the right key (search: extra [search] keys)."""
        engines = {}
        for engine in PATHS:
            engines[f"{engine}_api_url"] = self.url(engine)
            engines[f"{engine}_api_key"] = self.key if engine != "searxng" else ""
        engines["google_search_engine_id"] = GOOGLE_CX
        return {"engines": engines, "search": {"search_max_retries": 0, **search}}

    def requests_to(self, engine: str) -> list[Request]:
        return self.world.requests_to(PATHS[engine])

    # ------------------------------------------------------------ Bing Web Search v7
    def bing(self, req: Request) -> Response:
        if req.header("ocp-apim-subscription-key") != self.key:
            return Response.json({"error": {"code": "401", "message": "Access denied due to invalid subscription "
                                            "key or wrong API endpoint."}}, status=401)
        count, offset = min(int(req.arg("count", "10")), 50), int(req.arg("offset", "0"))
        q = req.arg("q", "")
        found = docs(q)
        body = {"_type": "SearchResponse", "queryContext": {"originalQuery": q}}
        if found:
            body["webPages"] = {"webSearchUrl": "https://www.bing.com/search?q=x",
                                "totalEstimatedMatches": len(found),
                                "value": [{"id": f"https://api.bing.microsoft.com/api/v7/#WebPages.{i}",
                                           "name": d["title"], "url": d["url"], "displayUrl": d["url"],
                                           "snippet": d["text"].replace("&", "&amp;"), "language": "en",
                                           "datePublished": d["day"] + "T00:00:00.0000000",
                                           "isFamilyFriendly": True, "siteName": d["site"]}
                                          for i, d in enumerate(found[offset:offset + count])]}
        return Response.json(body)

    # ------------------------------------------------------------ Brave
    def brave(self, req: Request) -> Response:
        if req.header("x-subscription-token") != self.key:
            return Response.json({"type": "ErrorResponse", "error": {
                "id": "0d1e", "status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID",
                "detail": "The provided subscription token is invalid.", "meta": {"component": "authentication"}},
                "time": 1700000000}, status=422)
        count, offset = int(req.arg("count", "20")), int(req.arg("offset", "0"))
        if count > 20 or offset > 9:
            error = {"status": 422, "code": "VALIDATION", "detail": "Unable to validate request parameter(s)"}
            return Response.json({"type": "ErrorResponse", "error": error}, status=422)
        q = req.arg("q", "")
        found = docs(q)
        page = found[offset * count:(offset + 1) * count]
        results = [{"title": d["title"], "url": d["url"], "is_source_local": False,
                    "description": f"<strong>{d['text'].replace('&', '&amp;')}</strong> it&#x27;s here",
                    "age": "March 5, 2024", "page_age": d["day"] + "T00:00:00", "language": "en",
                    "profile": {"name": d["site"], "url": d["url"]}, "meta_url": {"hostname": d["site"]},
                    "type": "search_result"} for d in page]
        return Response.json({"type": "search", "query": {"original": q, "more_results_available":
                                                          (offset + 1) * count < len(found)},
                              "mixed": {"type": "mixed", "main": []},
                              "web": {"type": "search", "results": results, "family_friendly": True}})

    # ------------------------------------------------------------ Google Custom Search JSON API
    def google(self, req: Request) -> Response:
        if (req.header("x-goog-api-key") or req.arg("key")) != self.key:
            return Response.json({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                                             "errors": [{"message": "API key not valid. Please pass a valid API key.",
                                                         "domain": "global", "reason": "badRequest"}],
                                             "status": "INVALID_ARGUMENT",
                                             "details": [{"reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}},
                                 status=400)
        num, start = int(req.arg("num", "10")), int(req.arg("start", "1"))
        if not 1 <= num <= 10 or start + num > 101:
            return Response.json({"error": {"code": 400, "message": "Request contains an invalid argument.",
                                            "errors": [{"reason": "badRequest"}], "status": "INVALID_ARGUMENT"}},
                                 status=400)
        q = req.arg("q", "")
        found = docs(q)
        page = found[start - 1:start - 1 + num]
        request_info = {"totalResults": str(len(found)), "searchTerms": q, "count": num, "startIndex": start,
                        "cx": req.arg("cx")}
        body = {"kind": "customsearch#search", "queries": {"request": [request_info]},
                "searchInformation": {"searchTime": 0.21, "totalResults": str(len(found))}}
        if start - 1 + num < min(len(found), 100):
            body["queries"]["nextPage"] = [{**request_info, "startIndex": start + num}]
        if page:
            body["items"] = [{"kind": "customsearch#result", "title": d["title"], "htmlTitle": f"<b>{d['title']}</b>",
                              "link": d["url"], "displayLink": d["site"], "snippet": d["text"],
                              "htmlSnippet": f"<b>{d['text']}</b>",
                              "pagemap": {"metatags": [{"article:published_time": d["day"] + "T10:00:00+00:00",
                                                        "author": "A. Writer"}]}} for d in page]
        return Response.json(body)

    # ------------------------------------------------------------ SearXNG
    def searxng(self, req: Request) -> Response:
        if req.arg("format") != "json":
            return Response.html("<!DOCTYPE html><html><body><div id='results'></div></body></html>")
        if not self.searxng_json:
            return Response.html("<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>", status=403)
        q, pageno = req.arg("q", ""), int(req.arg("pageno", "1"))
        found = [] if self.searxng_unresponsive else docs(q)
        page = found[(pageno - 1) * 10:pageno * 10]
        results = [{"url": d["url"], "title": d["title"].replace("&", "&amp;"), "content": d["text"],
                    "engine": "duckduckgo", "engines": ["duckduckgo", "wikipedia"], "positions": [i + 1, 2],
                    "score": round(2.0 / (i + 1), 4), "category": "general", "template": "default.html",
                    "parsed_url": ["https", d["site"], "/", "", "", ""],
                    "publishedDate": d["day"] + "T00:00:00" if i % 2 == 0 else None}
                   for i, d in enumerate(page)]
        return Response.json({"query": q, "number_of_results": 0, "results": results, "answers": [],
                              "corrections": [], "infoboxes": [], "suggestions": [],
                              "unresponsive_engines": self.searxng_unresponsive})

    # ------------------------------------------------------------ Kagi v0
    def kagi(self, req: Request) -> Response:
        if req.header("authorization") != f"Bot {self.key}":
            return Response.json({"meta": {"id": "e1", "node": "us-east", "ms": 2}, "data": None,
                                  "error": [{"code": 1, "msg": "Unauthorized", "ref": None}]}, status=401)
        limit = int(req.arg("limit", "10"))
        found = docs(req.arg("q", ""))[:limit]
        data = [{"t": 0, "rank": i + 1, "url": d["url"], "title": d["title"],
                 "snippet": f"<b>{d['text'].replace('&', '&amp;')}</b>&nbsp;...", "published": d["day"] + "T08:00:00Z"}
                for i, d in enumerate(found)]
        if found:
            data.insert(1, {"t": 1, "list": ["related one", "related two"]})
        return Response.json({"meta": {"id": "m1", "node": "us-east", "ms": 120, "api_balance": 9.5}, "data": data})

    # ------------------------------------------------------------ Tavily
    def tavily(self, req: Request) -> Response:
        body = req.json() or {}
        if req.header("authorization") != f"Bearer {self.key}" and body.get("api_key") != self.key:
            return Response.json({"detail": {"error": "Unauthorized: missing or invalid API key."}}, status=401)
        limit = int(body.get("max_results", 5))
        if limit > 20:
            return Response.json({"detail": {"error": "max_results must be between 0 and 20"}}, status=400)
        q = body.get("query", "")
        found = docs(q)[:limit]
        return Response.json({"query": q, "follow_up_questions": None, "answer": None, "images": [],
                              "results": [{"title": d["title"], "url": d["url"], "content": d["text"],
                                           "score": round(0.99 - i * 0.01, 4), "raw_content": None}
                                          for i, d in enumerate(found)], "response_time": 0.42})

    # ------------------------------------------------------------ Serper
    def serper(self, req: Request) -> Response:
        if req.header("x-api-key") != self.key:
            return Response.json({"message": "Unauthorized.", "statusCode": 403}, status=403)
        body = req.json() or {}
        num, page = int(body.get("num", 10)), int(body.get("page", 1))
        q = body.get("q", "")
        found = docs(q)[(page - 1) * num:page * num]
        return Response.json({"searchParameters": {"q": q, "gl": body.get("gl", "us"), "type": "search",
                                                   "num": num, "engine": "google"},
                              "organic": [{"title": d["title"], "link": d["url"], "snippet": d["text"],
                                           "date": "Mar 5, 2024", "position": i + 1}
                                          for i, d in enumerate(found)], "credits": 1})
