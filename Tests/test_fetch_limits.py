"""The page fetcher's limits: byte cap, redirects, time-outs, concurrency, cancellation, HTTP errors."""
from __future__ import annotations

import threading
import time

import pytest

from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.Research.fetch import PageFetcher
from Tests.support.deadline import finishes_within
from Tests.support.mini_web import HUGE_BYTES, MiniWeb
from Tests.support.testworld import Response

SLACK = 2.5  # past a time-out or a cancel, on a loaded 2-core machine; each slow page below takes far longer


def fetcher(**kw) -> PageFetcher:
    base = dict(allow_private_addresses=True, connect_timeout_seconds=2, read_timeout_seconds=1,
                total_timeout_seconds=3)
    return PageFetcher(FetchSettings(**{**base, **kw}))


@pytest.fixture
def web(world):
    return MiniWeb(world, timeout_delay=20).install()


def test_huge_page_is_cut_at_the_byte_cap_quickly(web):
    started = time.monotonic()
    page = fetcher(max_bytes=1_000_000).fetch(web.url("faults/huge"))
    assert page.ok and page.truncated and len(page.body) == 1_000_000 < HUGE_BYTES
    assert time.monotonic() - started < 2


def test_redirect_chain_is_followed_to_the_end(web):
    page = fetcher().fetch(web.url("go/waggle"))
    assert page.ok and page.final_url == web.url("bees/waggle-dance")
    assert page.redirects == [web.url("go/hop1"), web.url("go/hop2"), web.url("bees/waggle-dance")]


def test_too_many_redirects(web):
    page = fetcher(max_redirects=2).fetch(web.url("go/waggle"))
    assert "too many redirects" in page.error


def test_redirect_loop(web):
    page = fetcher().fetch(web.url("faults/loop-a"))
    assert page.error.startswith("redirect loop")


@pytest.mark.parametrize("path,words", [("faults/rate-limited", "HTTP 429"), ("faults/server-error", "HTTP 500")])
def test_http_errors_are_recorded(web, path, words):
    page = fetcher().fetch(web.url(path))
    assert words in page.error and page.status == int(words[-3:])


def test_read_timeout(web):
    started = time.monotonic()
    page = fetcher(read_timeout_seconds=0.5).fetch(web.url("faults/timeout"))
    assert "time-out" in page.error
    assert time.monotonic() - started < 0.5 + SLACK  # the page's first byte comes after 20 s


def test_total_timeout_holds_against_a_page_that_trickles(world):
    world.route("GET", "/trickle", lambda r: Response(200, (b"<p>bee</p>" for _ in range(100)),
                                                    {"Content-Type": "text/html"}, chunk_delay=0.2))
    started = time.monotonic()
    page = fetcher(read_timeout_seconds=1, total_timeout_seconds=1).fetch(world.url("/trickle"))
    assert "total time-out" in page.error
    assert time.monotonic() - started < 1 + SLACK  # the whole page takes 20 s


@pytest.mark.parametrize("path", ["stalling/drip-body", "stalling/drip-headers", "stalling/to-drip"])
def test_the_total_timeout_holds_against_a_server_that_drips_bytes(world, path):
    """A byte every 0.2 s never trips the 1 s read time-out: body, headers, or headers behind a redirect, the
    download still ends at the total time-out (it used to run until the 100 kB body was in: 5.5 hours)."""
    web = MiniWeb(world, include_faults=False, stalling=True, drip_delay=0.2).install()
    started = time.monotonic()
    page = finishes_within(15, lambda: fetcher(read_timeout_seconds=1, total_timeout_seconds=1.5).fetch(web.url(path)))
    assert page.error == "took longer than the total time-out of 1.5 s" and not page.body
    assert time.monotonic() - started < 1.5 + SLACK
    assert page.redirects == ([web.url("stalling/drip-headers")] if path == "stalling/to-drip" else [])


def test_cancel_stops_a_download_whose_headers_drip(world):
    web = MiniWeb(world, include_faults=False, stalling=True, drip_delay=0.2).install()
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    page = finishes_within(15, lambda: fetcher(total_timeout_seconds=10).fetch(web.url("stalling/drip-headers"),
                                                                             cancel))
    assert page.error == "cancelled" and time.monotonic() - started < 0.3 + SLACK


def test_binary_content_type_is_refused_without_reading_it_all(world):
    world.route("GET", "/video", lambda r: Response(200, bytes(range(256)) * 4000, {"Content-Type": "video/mp4"}))
    page = fetcher().fetch(world.url("/video"))
    assert "not a text page (video/mp4)" in page.error


def test_per_host_and_global_concurrency_limits(world):
    active, peak, lock = [0], [0], threading.Lock()

    def slow(req):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.15)
        with lock:
            active[0] -= 1
        return Response.text("ok")

    world.route("GET", "/p/", slow, prefix=True)
    urls = [world.url(f"/p/{i}") for i in range(8)]
    pages = fetcher(per_host_concurrency=2, concurrency=8).fetch_many(urls)
    assert all(p.ok for p in pages) and [p.url for p in pages] == urls
    assert peak[0] == 2
    peak[0] = 0
    fetcher(per_host_concurrency=8, concurrency=3).fetch_many(urls)
    assert peak[0] == 3


def test_cancel_returns_promptly_and_marks_unfinished_pages(web):
    cancel = threading.Event()
    urls = [web.url("faults/timeout")] * 3 + [web.url("bees/waggle-dance")]
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    pages = fetcher(read_timeout_seconds=10, total_timeout_seconds=15, per_host_concurrency=1).fetch_many(urls,
                                                                                                         cancel)
    assert time.monotonic() - started < 0.2 + SLACK  # without the cancel: 10 s or more
    assert sum(p.error == "cancelled" for p in pages) >= 3


def test_connection_refused_is_a_clean_error():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    page = fetcher().fetch(f"http://127.0.0.1:{port}/")
    assert page.error.startswith("connection failed") or "could not connect" in page.error


@pytest.mark.parametrize("location", ["http://[::1", "http://[zz]/page", "//["])
def test_a_redirect_to_a_malformed_address_is_a_clean_error(world, location):
    world.route("GET", "/bad-redirect", lambda r: Response.redirect(location))
    page = fetcher().fetch(world.url("/bad-redirect"))
    assert page.status == 302 and page.error.startswith("bad redirect location")


@pytest.mark.parametrize("url", ["http://[::1", "http://.test/", "http://a b.test/x"])
def test_a_malformed_address_is_a_clean_error(url):
    page = PageFetcher(FetchSettings(allow_private_addresses=True),
                       resolver=lambda host, port: ["127.0.0.1"]).fetch(url)
    assert "not a valid URL" in page.error
