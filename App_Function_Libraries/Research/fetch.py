"""Fetching web pages safely: the SSRF guard on every hop, our own redirect following, a streaming byte cap,
connect/read/total time-outs, a global and a per-host concurrency limit, and prompt cancellation. The page's
HTTP charset is kept with the bytes; decoding them is Retrieval/reading.py's job (stage "extract").

The total time-out is a hard wall-clock deadline for the whole download (connecting, headers, every redirect
hop, body): a watchdog shuts the fetch's sockets down when it passes (download_deadline.py), so a server that
drips bytes cannot hold a fetch past it.

`PageFetcher.fetch(url)` never raises: failures are recorded in `FetchedPage.error` as one line a person can
read. `PageFetcher.fetch_many(urls)` fetches concurrently and returns in the order given.
"""
from __future__ import annotations

import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urljoin, urlsplit

from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.download_deadline import DownloadDeadline, deadline_pools
from App_Function_Libraries.Research.ssrf import CheckedTarget, Resolver, SSRFBlocked, check_url
from App_Function_Libraries.errors import QuarryError

CHUNK_BYTES = 16 * 1024
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
BINARY_TYPES = ("image/", "audio/", "video/", "font/", "application/zip", "application/gzip",
                "application/x-", "application/vnd.", "application/octet-stream", "application/java")
POLL_SECONDS = 0.05


class FetchFailed(QuarryError):
    """One page could not be fetched; str() is the one-line reason stored with the source."""


class FetchCancelled(FetchFailed):
    pass


@dataclass
class FetchedPage:
    url: str
    final_url: str = ""
    status: int | None = None
    content_type: str = ""  # media type only, lower case (e.g. "text/html")
    header_charset: str = ""
    body: bytes = b""
    truncated: bool = False  # the body was cut at max_bytes
    redirects: list[str] = field(default_factory=list)
    error: str = ""
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error


# ---------------------------------------------------------------- connecting to the checked address

def pinned_adapter(target: CheckedTarget, address: str | None = None, deadline: DownloadDeadline | None = None):
    """A requests adapter that connects to an address the SSRF guard checked (not a fresh DNS answer),
    while TLS still verifies the certificate against the URL's host name. With a deadline, every socket it
    opens is shut down when the deadline passes."""
    address = address or target.addresses[0]
    from requests.adapters import HTTPAdapter

    class PinnedAdapter(HTTPAdapter):
        def build_connection_pool_key_attributes(self, request, verify, cert=None):
            host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
            host_params["host"] = address
            if target.scheme == "https":
                pool_kwargs["server_hostname"] = target.host
                pool_kwargs["assert_hostname"] = target.host
            return host_params, pool_kwargs

    adapter = PinnedAdapter(max_retries=0)
    if deadline is not None:
        adapter.poolmanager.pool_classes_by_scheme = deadline_pools(deadline)
    return adapter


def host_header(url: str) -> str:
    return urlsplit(url).netloc.rsplit("@", 1)[-1]


# ---------------------------------------------------------------- the fetcher

class PageFetcher:
    """Fetches pages under the [fetch] limits. One instance is shared by a whole research run."""

    def __init__(self, settings: FetchSettings, resolver: Resolver | None = None):
        self.settings = settings
        self.resolver = resolver
        self._global = threading.BoundedSemaphore(settings.concurrency)
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._hosts_lock = threading.Lock()

    def _host_slot(self, url: str) -> threading.BoundedSemaphore:
        try:
            host = (urlsplit(url).hostname or "").lower()
        except ValueError:  # not a valid URL: the SSRF check says so once the slot is taken
            host = ""
        with self._hosts_lock:
            if host not in self._hosts:
                self._hosts[host] = threading.BoundedSemaphore(self.settings.per_host_concurrency)
            return self._hosts[host]

    # --- one page
    def fetch(self, url: str, cancel: threading.Event | None = None) -> FetchedPage:
        page = FetchedPage(url=url)
        started = time.monotonic()
        slots = (self._global, self._host_slot(url))
        acquired: list[threading.BoundedSemaphore] = []
        try:
            for slot in slots:
                _acquire(slot, cancel)
                acquired.append(slot)
            with DownloadDeadline(self.settings.total_timeout_seconds, cancel) as deadline:
                self._fetch_following_redirects(page, deadline, cancel)
        except SSRFBlocked as exc:
            page.error = f"blocked: {exc}"
        except FetchFailed as exc:
            page.error = str(exc)
        finally:
            for slot in reversed(acquired):
                slot.release()
            page.elapsed = time.monotonic() - started
        return page

    def _fetch_following_redirects(self, page: FetchedPage, deadline: DownloadDeadline, cancel) -> None:
        url, seen = page.url, {page.url}
        for _hop in range(self.settings.max_redirects + 1):
            target = check_url(url, self.settings.allow_private_addresses, self.resolver)
            location = self._fetch_once(url, target, page, deadline, cancel)
            if location is None:
                page.final_url = url
                return
            next_url = _redirect_target(url, location)
            if next_url in seen:
                raise FetchFailed(f"redirect loop: {next_url} was already visited")
            seen.add(next_url)
            page.redirects.append(next_url)
            url = next_url
        raise FetchFailed(f"too many redirects (more than {self.settings.max_redirects})")

    def _fetch_once(self, url: str, target: CheckedTarget, page: FetchedPage, deadline: DownloadDeadline,
                    cancel) -> str | None:
        """GET one URL into page; returns the redirect Location when the answer is a redirect."""
        import requests
        s = self.settings
        remaining = _remaining(deadline, s)
        headers = {"User-Agent": s.user_agent, "Host": host_header(url),
                   "Accept": "text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5",
                   "Accept-Encoding": "gzip, deflate"}
        try:
            prepared = requests.Request("GET", url, headers=headers).prepare()
        except (requests.exceptions.RequestException, ValueError) as exc:
            raise FetchFailed(f"not a valid URL: {url[:200]} ({_short(exc)})") from None
        adapter, resp = self._connect(prepared, target, deadline, remaining)
        try:
            _check_deadline(deadline, s)  # headers cut short by the deadline are no answer
            page.status = resp.status_code
            if resp.status_code in REDIRECT_STATUSES and resp.headers.get("Location"):
                return resp.headers["Location"]
            if resp.status_code >= 400:
                raise FetchFailed(_status_message(resp.status_code, resp.reason))
            page.content_type, page.header_charset = _parse_content_type(resp.headers.get("Content-Type", ""))
            self._read_body(resp, page, deadline, cancel)
            return None
        finally:
            deadline.release()
            resp.close()
            adapter.close()

    def _connect(self, prepared, target: CheckedTarget, deadline: DownloadDeadline, remaining: float):
        """(adapter, response headers) from the first checked address that accepts the connection."""
        import requests
        s = self.settings
        timeout = (min(s.connect_timeout_seconds, remaining), min(s.read_timeout_seconds, remaining))
        for i, address in enumerate(target.addresses):
            adapter = pinned_adapter(target, address, deadline)
            try:
                return adapter, adapter.send(prepared, stream=True, timeout=timeout)
            except requests.exceptions.ReadTimeout:
                adapter.close()
                _check_deadline(deadline, s)
                raise FetchFailed(_timeout_message(deadline, s)) from None
            except requests.exceptions.RequestException as exc:
                adapter.close()
                _check_deadline(deadline, s)  # the watchdog broke the connection
                connect_failed = isinstance(exc, (requests.exceptions.ConnectTimeout,
                                                  requests.exceptions.ConnectionError))
                if connect_failed and i + 1 < len(target.addresses):
                    continue  # another address of the same host may answer
                if isinstance(exc, requests.exceptions.ConnectTimeout):
                    raise FetchFailed(f"could not connect within {s.connect_timeout_seconds:g} s") from None
                raise FetchFailed(f"connection failed: {_short(exc)}") from None
        raise FetchFailed("no address to connect to")

    def _read_body(self, resp, page: FetchedPage, deadline: DownloadDeadline, cancel) -> None:
        import requests
        s = self.settings
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in resp.iter_content(CHUNK_BYTES):
                if cancel is not None and cancel.is_set():
                    raise FetchCancelled("cancelled")
                _check_deadline(deadline, s)
                if not chunks and _is_binary_type(page.content_type) and not chunk.startswith(b"%PDF"):
                    raise FetchFailed(f"not a text page ({page.content_type})")
                chunks.append(chunk)
                size += len(chunk)
                if size >= s.max_bytes:
                    page.truncated = True
                    break
        except (requests.exceptions.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
            _check_deadline(deadline, s)  # the watchdog broke the connection
            if "timed out" in str(exc).lower():
                raise FetchFailed(_timeout_message(deadline, s)) from None
            raise FetchFailed(f"connection broke while reading: {_short(exc)}") from None
        except requests.exceptions.ContentDecodingError as exc:
            _check_deadline(deadline, s)
            raise FetchFailed(f"could not decompress the page: {_short(exc)}") from None
        _check_deadline(deadline, s)  # a body cut short by the deadline is no page
        page.body = b"".join(chunks)[:s.max_bytes]

    # --- many pages
    def fetch_many(self, urls: list[str], cancel: threading.Event | None = None,
                   on_done: Callable[[int, FetchedPage], None] | None = None) -> list[FetchedPage]:
        """Fetch concurrently (the semaphores keep the limits); results in input order. On cancel, returns
        promptly with unfinished pages marked cancelled."""
        results: list[FetchedPage | None] = [None] * len(urls)
        if not urls:
            return []
        pool = ThreadPoolExecutor(max_workers=min(len(urls), 4 * self.settings.concurrency),
                                  thread_name_prefix="fetch")
        futures = {pool.submit(self.fetch, url, cancel): i for i, url in enumerate(urls)}
        pending = set(futures)
        try:
            while pending and not (cancel is not None and cancel.is_set()):
                done, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = futures[fut]
                    results[i] = fut.result()
                    if on_done:
                        on_done(i, results[i])
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return [r if r is not None else FetchedPage(url=urls[i], error="cancelled") for i, r in enumerate(results)]


# ---------------------------------------------------------------- helpers

def _acquire(slot: threading.BoundedSemaphore, cancel: threading.Event | None) -> None:
    while not slot.acquire(timeout=POLL_SECONDS):
        if cancel is not None and cancel.is_set():
            raise FetchCancelled("cancelled")
    if cancel is not None and cancel.is_set():
        slot.release()
        raise FetchCancelled("cancelled")


def _redirect_target(url: str, location: str) -> str:
    """The absolute address a Location header points to; FetchFailed when it is not a valid URL."""
    try:
        target = urljoin(url, location)
        urlsplit(target).hostname  # parses the host: an unclosed "[" or a bad IPv6 literal raises here
    except ValueError as exc:
        raise FetchFailed(f"bad redirect location {location[:100]!r} ({_short(exc)})") from None
    return target


def _remaining(deadline: DownloadDeadline, s: FetchSettings) -> float:
    _check_deadline(deadline, s)
    left = deadline.remaining()
    if left <= 0:
        raise FetchFailed(_total_timeout(s))
    return left


def _check_deadline(deadline: DownloadDeadline, s: FetchSettings) -> None:
    """FetchCancelled / FetchFailed once the watchdog has shut the fetch's sockets down."""
    if deadline.expired:
        raise FetchCancelled("cancelled") if deadline.cancelled else FetchFailed(_total_timeout(s))


def _total_timeout(s: FetchSettings) -> str:
    return f"took longer than the total time-out of {s.total_timeout_seconds:g} s"


def _timeout_message(deadline: DownloadDeadline, s: FetchSettings) -> str:
    if deadline.expired or deadline.remaining() <= 0.05:
        return _total_timeout(s)
    return f"no data for {s.read_timeout_seconds:g} s (read time-out)"


def _status_message(status: int, reason: str | None) -> str:
    hint = {429: " (rate limited)", 403: " (forbidden)", 404: " (not found)"}.get(status, "")
    if status >= 500 and not hint:
        hint = " (server error)"
    return f"HTTP {status}{hint}" if not reason else f"HTTP {status} {reason}{hint}"


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]


def _parse_content_type(value: str) -> tuple[str, str]:
    media = value.split(";", 1)[0].strip().lower()
    m = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", value, re.IGNORECASE)
    return media, (m.group(1).lower() if m else "")


def _is_binary_type(media: str) -> bool:
    return any(media.startswith(prefix) for prefix in BINARY_TYPES)
