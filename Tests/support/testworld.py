"""The offline test world: one loopback HTTP server (threads, random port) that plays the services Quarry
talks to — search APIs, an OpenAI-compatible LLM server, a small web of pages — with latency and fault
injection per route, and a log of every request it received.

Test code only: it stands in for services we cannot reach from here, speaking their real wire protocols.

    world = TestWorld().start()
    world.route("GET", "/hello", lambda req: Response.text("hi"))
    world.fault("/hello", status=429, headers={"Retry-After": "1"}, times=1)
    world.url("/hello")  ->  "http://127.0.0.1:PORT/hello"
    world.stop()
"""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterable
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    time: float = field(default_factory=time.time)

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def json(self):
        return json.loads(self.body.decode("utf-8")) if self.body else None

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


@dataclass
class Response:
    status: int = 200
    body: bytes | Iterable[bytes] = b""
    headers: dict[str, str] = field(default_factory=dict)
    chunk_delay: float = 0.0  # seconds between chunks of an iterable body (slow pages, streaming)
    raw: Iterable[bytes] | None = None  # bytes written to the socket as they are, status line and headers
    # included, chunk_delay apart (a server that drips its headers); status, headers and body are then unused

    @staticmethod
    def json(obj, status: int = 200, headers: dict | None = None) -> "Response":
        return Response(status, json.dumps(obj).encode("utf-8"),
                        {"Content-Type": "application/json; charset=utf-8", **(headers or {})})

    @staticmethod
    def text(text: str, status: int = 200, content_type: str = "text/plain; charset=utf-8") -> "Response":
        return Response(status, text.encode("utf-8"), {"Content-Type": content_type})

    @staticmethod
    def html(html: str | bytes, status: int = 200, charset: str | None = "utf-8") -> "Response":
        body = html.encode(charset or "utf-8") if isinstance(html, str) else html
        ctype = f"text/html; charset={charset}" if charset else "text/html"
        return Response(status, body, {"Content-Type": ctype})

    @staticmethod
    def redirect(location: str, status: int = 302) -> "Response":
        return Response(status, b"", {"Location": location})


@dataclass
class Fault:
    """What a route does instead of (or before) its normal answer.

    delay: seconds to wait first; status/body/headers: answer this instead; reset: close the connection
    without an answer; hang: read the request and never answer (the connection stays open until the world
    stops); malformed_json: answer 200 with broken JSON; content_type: override the type;
    times: how many requests it applies to (None: all)."""
    delay: float = 0.0
    status: int | None = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    reset: bool = False
    hang: bool = False
    malformed_json: bool = False
    content_type: str | None = None
    times: int | None = None


Handler = Callable[[Request], Response]


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default listen backlog of 5 stalls bursts of concurrent connections


class TestWorld:
    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.routes: list[tuple[str, str, bool, Handler]] = []
        self.faults: list[tuple[str, Fault]] = []
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()  # releases the requests a `hang` fault holds

    # ------------------------------------------------------------ set-up
    def route(self, method: str, path: str, handler: Handler, prefix: bool = False) -> "TestWorld":
        """Answer METHOD PATH (or every path under PATH when prefix) with handler(request)."""
        with self._lock:
            self.routes.insert(0, (method.upper(), path, prefix, handler))
        return self

    def fault(self, path: str, **kw) -> Fault:
        """Inject a fault into every request whose path starts with `path`. Returns it (to remove later)."""
        f = Fault(**kw)
        with self._lock:
            self.faults.append((path, f))
        return f

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    def start(self) -> "TestWorld":
        world = self
        self._stopping.clear()

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _serve(self):
                world._handle(self)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _serve

        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self) -> int:
        assert self._server, "start() the world first"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def requests_to(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path.startswith(path)]

    # ------------------------------------------------------------ serving
    def _find(self, method: str, path: str) -> Handler | None:
        with self._lock:
            for m, p, prefix, handler in self.routes:
                if m == method and (path == p or prefix and path.startswith(p)):
                    return handler
        return None

    def _active_fault(self, path: str) -> Fault | None:
        with self._lock:
            for p, f in self.faults:
                if path.startswith(p) and (f.times is None or f.times > 0):
                    if f.times is not None:
                        f.times -= 1
                    return f
        return None

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        req = Request(h.command, parts.path, parse_qs(parts.query, keep_blank_values=True),
                      {k.lower(): v for k, v in h.headers.items()}, body)
        with self._lock:
            self.requests.append(req)
        fault = self._active_fault(parts.path)
        if fault and fault.delay:
            time.sleep(fault.delay)
        if fault and fault.hang:
            self._stopping.wait()
        if fault and (fault.reset or fault.hang):
            _reset(h)
            return
        handler = self._find(h.command if h.command != "HEAD" else "GET", parts.path)
        if fault and fault.status is not None:
            resp = Response(fault.status, fault.body or b"", dict(fault.headers))
        elif handler is None:
            resp = Response.text(f"no route for {h.command} {parts.path}", 404)
        else:
            try:
                resp = handler(req)
            except Exception as exc:  # noqa: BLE001 - a broken handler is a 500, like a real server
                resp = Response.text(f"handler error: {exc!r}", 500)
        if fault and fault.malformed_json:
            resp = Response(200, b'{"results": [{"title": "broken', {"Content-Type": "application/json"})
        if fault and fault.content_type:
            resp.headers["Content-Type"] = fault.content_type
        if fault and fault.headers and fault.status is None:
            resp.headers.update(fault.headers)
        _write(h, resp, head=h.command == "HEAD")


def _reset(h: BaseHTTPRequestHandler) -> None:
    """Close the connection abruptly (RST) without answering."""
    try:
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    h.close_connection = True
    try:
        h.connection.close()
    except OSError:
        pass


def _write_raw(h: BaseHTTPRequestHandler, resp: Response) -> None:
    h.close_connection = True
    try:
        for piece in resp.raw:
            h.wfile.write(piece)
            h.wfile.flush()
            if resp.chunk_delay:
                time.sleep(resp.chunk_delay)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _write(h: BaseHTTPRequestHandler, resp: Response, head: bool = False) -> None:
    if resp.raw is not None:
        _write_raw(h, resp)
        return
    try:
        h.send_response(resp.status)
        for k, v in resp.headers.items():
            h.send_header(k, v)
        if isinstance(resp.body, (bytes, bytearray)):
            h.send_header("Content-Length", str(len(resp.body)))
            h.end_headers()
            if not head:
                h.wfile.write(resp.body)
            return
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for chunk in resp.body:
            if not chunk:
                continue
            h.wfile.write(f"{len(chunk):X}\r\n".encode() + chunk + b"\r\n")
            h.wfile.flush()
            if resp.chunk_delay:
                time.sleep(resp.chunk_delay)
        h.wfile.write(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        h.close_connection = True
