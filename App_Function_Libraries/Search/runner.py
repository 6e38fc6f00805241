"""The one place search requests go over the wire: sends an engine's requests page by page, each under a
wall-clock deadline of `RunPolicy.timeout` for the whole exchange (connecting, status line, headers, redirects,
body: download_deadline.py shuts the sockets down when it passes, or at once when `RunPolicy.cancel` is set),
retries with back-off on 429/5xx/time-outs (honouring Retry-After; a cancel ends the wait), and every failure
turned into a typed SearchError whose message says what to do.

    run_engine(module, opts, conn, policy) -> RunOutcome      (raises SearchError)
    run_local(module, opts, settings, policy) -> RunOutcome   a local engine (no HTTP), under the same deadline

A local engine's search runs in a thread of its own that the caller waits on for at most `RunPolicy.timeout`
(a cancel ends the wait at once); one left past its deadline ends by itself and its answer is dropped. At most
LOCAL_CONCURRENCY local searches run at once. Opening the index or library (and loading its embedding model,
once per process) comes before and is not timed.

`RunPolicy.sleep` is injectable so tests can check the delays asked for without waiting.
"""
from __future__ import annotations

import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, TypeVar

import requests
from requests.adapters import HTTPAdapter

from App_Function_Libraries.download_deadline import DownloadDeadline, deadline_pools
from App_Function_Libraries.retry import backoff_delay, parse_retry_after
from App_Function_Libraries.valid_unicode import loads_json
from App_Function_Libraries.Search.engines.base import (Connection, Hit, HttpRequest, ParsedPage,
                                                            SearchOptions)
from App_Function_Libraries.Search.errors import (BadKey, BadResponse, Blocked, Cancelled, QuotaExceeded,
                                                              RateLimited, SearchError, ServerError, TimedOut,
                                                              Unreachable)
from App_Function_Libraries.Search.engines.textclean import as_text, dig, strip_markup
from App_Function_Libraries.Search.urls import normalize_url

MAX_PAGES = 20
#: local searches running at once in this process (they share the CPU and the embedding model); one waiting
#: for its turn is waiting within its deadline
LOCAL_CONCURRENCY = 2
_local_turns = threading.BoundedSemaphore(LOCAL_CONCURRENCY)
MAX_RESPONSE_BYTES = 20_000_000
XML_CHUNK_BYTES = 64 * 1024  # an XML answer is parsed this much at a time (to stop after the items asked for)
_CAPTCHA_WORDS = ("captcha", "are you a robot", "unusual traffic", "verify you are human", "cf-challenge")
T = TypeVar("T")


@dataclass
class RunPolicy:
    timeout: float = 15.0  # wall-clock limit of one request (connect, headers, redirects, body), seconds
    connect_timeout: float = 5.0
    max_retries: int = 2
    sleep: Callable[[float], None] = time.sleep
    user_agent: str = "Quarry/0.1 (research assistant)"
    cancel: threading.Event | None = None  # set: the request under way is broken off, no other is sent


@dataclass
class RunOutcome:
    hits: list[Hit] = field(default_factory=list)
    total: int | None = None
    notes: list[str] = field(default_factory=list)
    unresponsive: list[str] = field(default_factory=list)


def run_engine(module: ModuleType, opts: SearchOptions, conn: Connection, policy: RunPolicy) -> RunOutcome:
    """All the pages needed for opts.count results (fewer when the service runs out)."""
    if module.SPEC.transport == "library":
        return _library_outcome(module, opts, conn, policy)
    outcome, seen = RunOutcome(), set()
    for page_number in range(MAX_PAGES):
        request = module.build_request(opts, conn, page_number)
        if request is None:
            break
        outcome.notes += request.notes
        try:
            page = with_retries(lambda: fetch_page(module, request, opts, policy), policy)
            page = _follow_up(module, page, opts, conn, policy)
        except SearchError as exc:
            if page_number == 0:
                raise
            outcome.notes.append(f"{module.SPEC.name}: page {page_number + 1} failed, kept the earlier pages "
                                 f"({exc})")
            break
        new = [hit for hit in page.hits if normalize_url(hit.url) not in seen]
        seen.update(normalize_url(hit.url) for hit in new)
        _merge_page(outcome, page, new)
        if len(outcome.hits) >= opts.count or not new or not page.more:
            break
    return outcome


def _follow_up(module: ModuleType, page: ParsedPage, opts: SearchOptions, conn: Connection,
                policy: RunPolicy) -> ParsedPage:
    """The page completed by the engine's second request (PubMed: esearch names the ids, efetch describes
    them), sent, retried and typed like the first; the first page's total and `more` are kept."""
    if page.follow_up is None:
        return page
    request = module.build_follow_up(page, opts, conn)
    second = with_retries(lambda: fetch_page(module, request, opts, policy), policy)
    second.total = second.total if second.total is not None else page.total
    second.more = page.more
    second.notes = page.notes + request.notes + second.notes
    second.follow_up = None
    return second


def _merge_page(outcome: RunOutcome, page: ParsedPage, new: list[Hit]) -> None:
    outcome.hits += new
    outcome.total = outcome.total if outcome.total is not None else page.total
    outcome.notes += page.notes
    outcome.unresponsive += [name for name in page.unresponsive if name not in outcome.unresponsive]


def _library_outcome(module: ModuleType, opts: SearchOptions, conn: Connection, policy: RunPolicy) -> RunOutcome:
    """An engine reached through a library (it does its own HTTP); retried like a request."""
    page = with_retries(lambda: module.search_library(opts, conn, policy.timeout), policy)
    if page.problem:
        raise BadResponse(f"{module.SPEC.label} gave an answer Quarry does not understand: {page.problem}")
    outcome = RunOutcome()
    _merge_page(outcome, page, page.hits)
    return outcome


def run_local(module: ModuleType, opts: SearchOptions, settings: Any, policy: RunPolicy) -> RunOutcome:
    """A local engine's hits for opts: its searcher opened (NotSetUp when there is nothing to search), the
    search run under the policy's deadline and cancel, what it found parsed."""
    label = module.SPEC.label
    check_cancel(policy)
    try:
        search = module.open_searcher(settings)
        check_cancel(policy)
        found = _within_deadline(lambda: search(opts.query, opts.count), policy, label)
    except SearchError:
        raise
    except Exception as exc:  # noqa: BLE001 - a broken index or library is that engine's failure, said in one line
        raise SearchError(f"{label} could not be searched ({' '.join(str(exc).split())[:200] or type(exc).__name__})")
    page = module.parse_found(found, opts)
    outcome = RunOutcome()
    _merge_page(outcome, page, page.hits)
    return outcome


def _within_deadline(call: Callable[[], T], policy: RunPolicy, label: str) -> T:
    """call() in a thread of its own, waited on until it ends, policy.timeout passes or policy.cancel is set."""
    done, answer = threading.Event(), {}

    def work() -> None:
        try:
            with _local_turns:
                answer["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            answer["error"] = exc
        finally:
            done.set()
    threading.Thread(target=work, name=f"local-{label}", daemon=True).start()
    ends = time.monotonic() + policy.timeout
    while not done.wait(min(0.05, max(0.0, ends - time.monotonic()))):
        check_cancel(policy)
        if time.monotonic() >= ends:
            raise TimedOut(f"{label} did not answer within {policy.timeout:g} s")
    if "error" in answer:
        raise answer["error"]
    return answer["value"]


def with_retries(call: Callable[[], T], policy: RunPolicy) -> T:
    """call() again after a retryable SearchError, up to policy.max_retries more times, waiting
    backoff_delay (the server's Retry-After when it sent one)."""
    for attempt in range(policy.max_retries + 1):
        check_cancel(policy)
        try:
            return call()
        except SearchError as exc:
            if not exc.retryable or attempt >= policy.max_retries:
                if attempt:
                    exc.args = (f"{exc} (after {attempt + 1} tries)",)
                raise
            _pause(policy, backoff_delay(attempt, exc.retry_after))
    raise AssertionError("unreachable")  # pragma: no cover


def check_cancel(policy: RunPolicy) -> None:
    if policy.cancel is not None and policy.cancel.is_set():
        raise Cancelled("cancelled")


def _pause(policy: RunPolicy, seconds: float) -> None:
    """The wait before a retry; a cancel ends it at once (an injected sleep is called as it is)."""
    if policy.cancel is not None and policy.sleep is time.sleep:
        policy.cancel.wait(seconds)
    else:
        policy.sleep(seconds)


# ---------------------------------------------------------------- one request

def fetch_page(module: ModuleType, request: HttpRequest, opts: SearchOptions, policy: RunPolicy) -> ParsedPage:
    """Send one request and parse its answer; raises a typed SearchError."""
    label = module.SPEC.label
    response = send(request, policy, label)
    payload = decode_answer(response, module, opts.count)
    page = module.parse_response(payload, opts)
    if page.error is not None:
        page.error.status = page.error.status or response.status_code
        raise page.error
    if page.problem:
        raise BadResponse(f"{label} gave an answer Quarry does not understand: {page.problem}",
                          status=response.status_code)
    return page


def send(request: HttpRequest, policy: RunPolicy, label: str) -> requests.Response:
    """The answer, its body read (at most MAX_RESPONSE_BYTES), within policy.timeout seconds all told."""
    with DownloadDeadline(policy.timeout, policy.cancel) as deadline:
        try:
            response = _exchange(request, policy, deadline)
        except Exception as exc:  # noqa: BLE001 - every failure is typed below
            raise _failure(exc, deadline, request.url, policy, label) from None
        if deadline.expired:  # the watchdog cut the body short
            raise _ended(deadline, policy, label)
    return response


def _exchange(request: HttpRequest, policy: RunPolicy, deadline: DownloadDeadline) -> requests.Response:
    """One request on a session of its own whose every socket (redirect hops too) the deadline watches."""
    adapter = HTTPAdapter(max_retries=0)
    adapter.poolmanager.pool_classes_by_scheme = deadline_pools(deadline)
    headers = {"User-Agent": policy.user_agent, **request.headers}
    left = deadline.remaining()
    with requests.Session() as session:
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        response = session.request(request.method, request.url, params=request.params or None,
                                   json=request.json_body, headers=headers, stream=True,
                                   timeout=(min(policy.connect_timeout, left), min(policy.timeout, left)))
        try:
            response._content = response.raw.read(MAX_RESPONSE_BYTES, decode_content=True)
        finally:
            response.close()
    return response


def _ended(deadline: DownloadDeadline, policy: RunPolicy, label: str) -> SearchError:
    if deadline.cancelled:
        return Cancelled("cancelled")
    return TimedOut(f"{label} did not answer within {policy.timeout:g} s")


def _failure(exc: Exception, deadline: DownloadDeadline, where: str, policy: RunPolicy, label: str) -> SearchError:
    """The typed error for what the request raised (the deadline's end, when the watchdog broke it)."""
    if deadline.expired:
        return _ended(deadline, policy, label)
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return TimedOut(f"{label} at {where} did not accept a connection within {policy.connect_timeout:g} s; "
                        "check the address and your network")
    if isinstance(exc, requests.exceptions.Timeout):
        return TimedOut(f"{label} did not answer within {policy.timeout:g} s")
    if isinstance(exc, requests.exceptions.SSLError):
        return Unreachable(f"cannot reach {label} at {where}: the TLS certificate check failed")
    if isinstance(exc, requests.exceptions.ConnectionError):
        return Unreachable(f"cannot reach {label} at {where}: {_connection_reason(exc)}; check the address "
                           "and your network")
    if isinstance(exc, requests.exceptions.RequestException):
        return Unreachable(f"cannot reach {label} at {where}: {type(exc).__name__}")
    if "timed out" in str(exc).lower():  # urllib3 errors raised while reading the body
        return TimedOut(f"{label} did not answer within {policy.timeout:g} s")
    return Unreachable(f"{label} broke off its answer ({type(exc).__name__})")


def _connection_reason(exc: Exception) -> str:
    text = str(exc).lower()
    for needle, reason in (("refused", "connection refused"), ("name or service", "unknown host name"),
                           ("nodename", "unknown host name"), ("resolve", "unknown host name"),
                           ("reset", "the connection was reset"), ("aborted", "the connection was closed"),
                           ("remotedisconnected", "the server closed the connection")):
        if needle in text:
            return reason
    return "connection failed"


# ---------------------------------------------------------------- reading an answer

def decode_answer(response: requests.Response, module: ModuleType, most: int = 0) -> Any:
    """The JSON (or, for an engine whose answers are XML, the root element) of a successful answer, or the
    typed error a failed one stands for. With `most`, an XML answer is parsed only up to its `most`-th item
    (SPEC.answer_items: a feed of 60,000 entries costs what 10 cost when 10 were asked for). An error body is
    given to the engine as JSON when it is JSON (NCBI answers a 429 in JSON whatever was asked), else as XML for
    an XML engine (arXiv's Atom error feed)."""
    label, status = module.SPEC.label, response.status_code
    text = response.content.decode("utf-8-sig", errors="replace")
    xml = getattr(module.SPEC, "answer_format", "json") == "xml"
    items = getattr(module.SPEC, "answer_items", "")
    payload = _xml_or_none(response.content, items, most) if xml and not _is_html(response, text) else \
        None if xml else _json_or_none(text)
    if status >= 400 or status < 200:
        if xml:
            payload = _json_or_none(text) if payload is None else payload
        raise _http_error(module, status, payload, text, response.headers.get("Retry-After"))
    if payload is None:
        raise _not_json(label, response, text, "XML" if xml else "JSON")
    return payload


def _is_html(response: requests.Response, text: str) -> bool:
    """An HTML page (a portal, a 404 page), even a well-formed one, is not an XML engine's answer."""
    ctype = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    return ctype == "text/html" or text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))


def _xml_or_none(body: bytes, item: str = "", most: int = 0) -> ET.Element | None:
    """The root element, or None for a body that is not well-formed XML. Expat fetches no external entity
    or DTD and refuses entity-expansion bombs. With an item tag and `most`, parsing stops once `most` of
    those elements are complete; the root then holds those (the rest of the body is never parsed)."""
    body = body.lstrip(b"\xef\xbb\xbf \t\r\n")
    try:
        if not item or most <= 0:
            return ET.fromstring(body)
        return _first_items(body, item, most)
    except (ET.ParseError, ValueError, RecursionError):
        return None


def _first_items(body: bytes, item: str, most: int) -> ET.Element:
    parser = ET.XMLPullParser(events=("start", "end"))
    root, done = None, 0
    for offset in range(0, len(body) or 1, XML_CHUNK_BYTES):
        parser.feed(body[offset:offset + XML_CHUNK_BYTES])
        for event, element in parser.read_events():
            root = element if root is None else root
            done += event == "end" and element.tag == item
            if done >= most:
                for extra in root.findall(item)[most:]:  # begun in the same chunk
                    root.remove(extra)
                return root
    parser.close()  # raises ParseError for a body that is not a whole document
    for _event, element in parser.read_events():
        root = element if root is None else root
    if root is None:
        raise ET.ParseError("no element")
    return root


def _json_or_none(text: str) -> Any:
    """The JSON value (every string valid Unicode: a lone surrogate escape is U+FFFD), or None."""
    try:
        return loads_json(text)
    except (ValueError, RecursionError):
        return None


def _not_json(label: str, response: requests.Response, text: str, wanted: str = "JSON") -> SearchError:
    ctype = response.headers.get("Content-Type", "").split(";")[0] or "no content type"
    head = text.lstrip()[:2000].lower()
    if any(word in head for word in _CAPTCHA_WORDS):
        return Blocked(f"{label} answered with a CAPTCHA/bot-check page instead of results; wait a while or "
                       "use another engine", status=response.status_code)
    markup = head.startswith(("<!doctype html", "<html")) or (wanted == "JSON" and head.startswith("<"))
    if markup or "html" in ctype:
        return BadResponse(f"{label} answered HTML ({ctype}) instead of {wanted}: is the configured URL "
                           f"({response.url.split('?')[0]}) its API endpoint?", status=response.status_code)
    if not text.strip():
        return BadResponse(f"{label} sent an empty answer (HTTP {response.status_code})",
                           status=response.status_code)
    return BadResponse(f"{label} sent malformed {wanted} (HTTP {response.status_code}, {ctype}, "
                       f"{len(response.content)} bytes)", status=response.status_code)


def _http_error(module: ModuleType, status: int, payload: Any, text: str, retry_after: str | None) -> SearchError:
    wait = parse_retry_after(retry_after)
    explain = getattr(module, "explain_error", None)
    error = explain(status, payload, text) if explain else None
    if error is None:
        error = _default_http_error(module.SPEC, status, _server_message(payload, text))
    error.status = status
    if error.retry_after is None:
        error.retry_after = wait
    return error


def _default_http_error(spec, status: int, message: str) -> SearchError:
    label, detail = spec.label, f" ({message})" if message else ""
    if status == 401:
        return BadKey(f"{label} rejected the API key (HTTP 401){detail}; check {spec.name}_api_key")
    if status == 402:
        return QuotaExceeded(f"{label}: the plan's quota is used up (HTTP 402){detail}")
    if status == 403:
        if any(word in message.lower() for word in _CAPTCHA_WORDS):
            return Blocked(f"{label} asked for a CAPTCHA (HTTP 403); wait a while or use another engine")
        return Blocked(f"{label} refused the request (HTTP 403){detail}; check {spec.name}_api_key and the "
                       "plan's permissions")
    if status == 404:
        return BadResponse(f"{label} has no API at the configured address (HTTP 404); check {spec.name}_api_url")
    if status == 429:
        return RateLimited(f"{label} is rate-limiting Quarry (HTTP 429){detail}; wait a minute or search fewer "
                           "sub-queries at once")
    if status >= 500:
        return ServerError(f"{label} had a server error (HTTP {status}){detail}; try again later")
    return BadResponse(f"{label} refused the request (HTTP {status}){detail}")


def _server_message(payload: Any, text: str) -> str:
    """A short human-readable error message out of an error body."""
    for path in (("error", "message"), ("error", "detail"), ("message",), ("detail",), ("error",)):
        value = dig(payload, *path)
        if isinstance(value, str) and value.strip():
            return as_text(value)[:200]
    if payload is None and text.strip():
        return strip_markup(text)[:160]
    return ""
