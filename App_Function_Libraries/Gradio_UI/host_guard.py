"""The UI answers only requests meant for it: a guard against DNS rebinding and cross-site posts.

A web page the user visits can make its own name resolve to 127.0.0.1 (DNS rebinding) and then call the UI's
API as if it were the UI's own page: read the history, index the user's files, point the LLM at its own server
to receive the stored key. Such requests carry the page's name in `Host`. So every request (pages, /config,
/gradio_api/*, the queue's join and data stream, uploads, files, websockets) must name in `Host`:

- `localhost`, `127.0.0.1` or `[::1]`, the address the UI is bound to (`--host`) or the `[ui] host` setting;
- or any IP address (an address typed in the browser cannot be rebound: rebinding needs the attacker's name).

A request that changes state (POST, PUT, PATCH, DELETE, a websocket) from a browser also carries `Origin`: it
must be the UI's own (the same host and port as `Host`) or one of the names above. No `Origin` (gradio_client,
curl) is fine; `Origin: null` (a sandboxed frame, a local file) is not. Refused requests get 403 and a
one-line reason.
"""
from __future__ import annotations

import ipaddress
import logging
from typing import Iterable
from urllib.parse import urlsplit

log = logging.getLogger("quarry.ui")

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def host_name(value: str | None) -> str:
    """The name in a Host header or an origin's authority, lowercased, without port, brackets or final dot
    ('' when there is none)."""
    value = (value or "").strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0].rstrip(".") if value.count(":") == 1 else value.rstrip(".")


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def allowed_names(*hosts: str | None) -> frozenset[str]:
    """The loopback names and the configured/bound hosts, as host_name() reads them."""
    return frozenset(LOOPBACK_NAMES) | {host_name(h) for h in hosts if h and host_name(h)}


def refusal(method: str, host: str | None, origin: str | None, names: frozenset[str],
            websocket: bool = False) -> str | None:
    """Why a request is refused (None: it is allowed)."""
    name = host_name(host)
    if not name:
        return "a request without a Host header"
    if name not in names and not is_ip_address(name):
        return f"host {name!r} is not this UI's address (DNS rebinding guard)"
    if origin is None or not (websocket or method.upper() in STATE_CHANGING):
        return None
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"origin {origin.strip()[:80]!r} may not change anything here"
    if parts.netloc.lower() == (host or "").strip().lower() or host_name(parts.netloc) in names:
        return None
    return f"origin {host_name(parts.netloc)!r} may not change anything here (cross-site request)"


class HostGuard:
    """ASGI middleware: refuses (403) the requests `refusal` names a reason for; lifespan passes through."""

    def __init__(self, app, allowed: Iterable[str] = ()):
        self.app = app
        self.names = allowed_names(*allowed)
        self._logged: set[str] = set()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        reason = refusal(scope.get("method", "GET"), headers.get("host"), headers.get("origin"), self.names,
                         websocket=scope["type"] == "websocket")
        if reason is None:
            await self.app(scope, receive, send)
            return
        self._log(reason)
        await refuse(scope["type"], send, reason)

    def _log(self, reason: str) -> None:
        if reason not in self._logged and len(self._logged) < 100:
            self._logged.add(reason)
            log.warning("refused a request: %s", reason)


async def refuse(kind: str, send, reason: str) -> None:
    """Answer a refused request: 403 and the one-line reason (a websocket: closed with code 1008)."""
    if kind == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
        return
    body = f"Quarry refused this request: {reason}.\n".encode("utf-8")
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode("ascii"))]})
    await send({"type": "http.response.body", "body": body})


def guard_middleware(*hosts: str | None) -> list:
    """For launch(app_kwargs={"middleware": ...}): the guard allowing these hosts (bound, configured)."""
    from starlette.middleware import Middleware
    return [Middleware(HostGuard, allowed=[h for h in hosts if h])]
