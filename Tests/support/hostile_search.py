"""Hostile search APIs on the test world, each at a base URL an engine can be pointed at (the SearXNG engine
asks <base>/search; any other engine's API URL may name <base>/search itself):

    drip-body      200, `Content-Length: 100000` at once, then the body one byte every `delay` seconds
    drip-headers   the status line and headers themselves one byte every `delay` seconds
    drip-redirect  a 302 at once to drip-headers
    surrogate      a SearXNG answer whose JSON holds lone surrogate escapes (\\ud800, \\udfff) in a title, a
                   snippet and a URL, beside results on the mini web (when one is given)
    text-surrogate the same with the surrogates in titles and snippets only (a URL that cannot be encoded
                   made the old engine fail as a whole; this one reached the save and the exports)
    big-number     a SearXNG answer whose score is a 400-digit integer

    hostile = HostileSearch(world, delay=1.0).install()
    hostile.base("drip-body")      -> "http://127.0.0.1:PORT/hostile/drip-body"
    quarry_threads()               -> the threads of this process that are not the test world's
"""
from __future__ import annotations

import json
import threading

from Tests.support.testworld import Request, Response, TestWorld

DRIP_BYTES = 100_000
_WORLD_THREADS = ("(process_request_thread)", "(serve_forever)")


def quarry_threads() -> set[threading.Thread]:
    """Every live thread but the test world's own (its server and the handlers still writing to a client that
    went away): what must be back to its count once a hostile case has ended."""
    return {t for t in threading.enumerate() if not t.name.endswith(_WORLD_THREADS)}


def searxng_answer(results: list[dict]) -> dict:
    return {"query": "q", "number_of_results": len(results), "results": results, "answers": [],
            "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}


class HostileSearch:
    def __init__(self, world: TestWorld, delay: float = 1.0, pages: list[dict] | None = None) -> None:
        self.world, self.delay = world, delay
        self.pages = pages or []  # SearXNG results served beside the surrogate ones (e.g. the mini web's)

    def base(self, name: str) -> str:
        return self.world.url(f"/hostile/{name}")

    def install(self) -> "HostileSearch":
        routes = {"drip-body": self._drip_body, "drip-headers": self._drip_headers,
                  "drip-redirect": lambda req: Response.redirect(self.base("drip-headers") + "/search"),
                  "surrogate": self._surrogate, "big-number": self._big_number,
                  "text-surrogate": lambda req: self._surrogate(req, in_url=False)}
        for name, handler in routes.items():
            self.world.route("GET", f"/hostile/{name}", handler, prefix=True)
            self.world.route("POST", f"/hostile/{name}", handler, prefix=True)
        return self

    def _head(self) -> bytes:
        return (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {DRIP_BYTES}\r\n\r\n"
                ).encode()

    def _drip_body(self, req: Request) -> Response:
        body = (bytes([b]) for b in b"{" + b" " * (DRIP_BYTES - 1))
        return Response(raw=_chain([self._head()], body), chunk_delay=self.delay)

    def _drip_headers(self, req: Request) -> Response:
        return Response(raw=(bytes([b]) for b in self._head() + b" " * DRIP_BYTES), chunk_delay=self.delay)

    def _surrogate(self, req: Request, in_url: bool = True) -> Response:
        odd = [{"url": "https://surrogate.example/a" + ("\ud800" if in_url else "") + "b",
                "title": "Waggle \ud800 dance \udfff",
                "content": "Honey bees dance \ud800 to tell the way to food.", "engine": "odd"},
               {"url": "https://surrogate.example/plain", "title": "Bees \ud83d\udc1d (a pair, kept)",
                "content": "A lone low \udc00 surrogate in a snippet.", "engine": "odd"}]
        body = json.dumps(searxng_answer(self.pages + odd))  # ensure_ascii: the surrogates go as \ud800 escapes
        return Response(200, body.encode("ascii"), {"Content-Type": "application/json"})

    def _big_number(self, req: Request) -> Response:
        body = json.dumps(searxng_answer([{"url": "https://big.example/", "title": "Big", "content": "x",
                                           "score": 0}])).replace('"score": 0', '"score": ' + "9" * 400)
        return Response(200, body.encode(), {"Content-Type": "application/json"})


def _chain(*parts):
    for part in parts:
        yield from part
