"""Only the UI's own page runs the UI's private events; programs call the named public endpoints.

Gradio runs any event of the UI for any client that names it: `api_visibility="private"` only hides it from the
API page, and `/gradio_api/queue/join` with its `fn_index`, `/gradio_api/call/<name>` or `/gradio_api/run/<name>`
still runs it (index a folder, save the settings, delete notes). So each launch makes a random page token; the
page (GET /) is served with it in a cookie (HttpOnly: no script reads it; SameSite=Strict: no other site's page
sends it), and the browser sends it back with the page's own requests. A request that could run something
(POST, PUT, PATCH, DELETE, a websocket) must carry that cookie, except:

- a call of one of the public endpoints (api_endpoints.PUBLIC), by name or by its `fn_index`;
- `/gradio_api/cancel` of a public endpoint's job, `/gradio_api/reset` (a no-op), `/login` (gradio's --auth).

Anything this guard cannot read for sure (a body that is not JSON, an `fn_index` that is not a plain number)
needs the cookie. Refused requests get 403 and a one-line reason. A program that fetches the page as a browser
does gets the cookie too: on a computer shared with people you do not trust, start the UI with --auth.
"""
from __future__ import annotations

import hmac
import json
import logging
import secrets
from http.cookies import CookieError, SimpleCookie
from typing import Any, Iterable

from App_Function_Libraries.Gradio_UI.host_guard import refuse

log = logging.getLogger("quarry.ui")

PREFIX = "/gradio_api"
COOKIE = "quarry_page_{port}"  # one per port: two UIs on one machine do not overwrite each other's
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
OPEN_PATHS = frozenset({f"{PREFIX}/reset", f"{PREFIX}/reset/", "/login", "/login/"})
BY_INDEX = frozenset({f"{PREFIX}/queue/join", f"{PREFIX}/cancel"})  # the fn_index in the body names the event
BY_NAME = (f"{PREFIX}/call/v2/", f"{PREFIX}/call/")  # the rest of the path names the event
BY_NAME_OR_INDEX = (f"{PREFIX}/run/", f"{PREFIX}/api/")  # the body's fn_index, when there is one, wins


def public_fn_ids(app, public: Iterable[str]) -> frozenset[int]:
    """The ids (fn_index) of the app's events that are public endpoints."""
    names = set(public)
    return frozenset(fn_id for fn_id, fn in app.fns.items() if fn.api_name in names)


def page_cookie(port: int | None, token: str) -> bytes:
    return (f"{COOKIE.format(port=port or 0)}={token}; Path=/; HttpOnly; SameSite=Strict").encode("latin-1")


def sent_token(headers: dict[str, str], port: int | None) -> str:
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except CookieError:
        return ""
    morsel = cookie.get(COOKIE.format(port=port or 0))
    return morsel.value if morsel else ""


def event_name(path: str) -> str | None:
    """The api_name a call path names (/gradio_api/call/NAME, …/call/v2/NAME, …/run/NAME), else None."""
    for prefix in BY_NAME + BY_NAME_OR_INDEX:
        if path.startswith(prefix):
            return path[len(prefix):].rstrip("/") or None
    return None


def body_fn_index(body: bytes) -> tuple[bool, int | None]:
    """(readable, fn_index) of a JSON request body, read as gradio reads it (json.loads); fn_index None when it
    is missing or null. Not readable: not a JSON object, or an fn_index that is not a plain number."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False, None
    if not isinstance(data, dict):
        return False, None
    value = data.get("fn_index")
    if value is None:
        return True, None
    return (True, value) if type(value) is int else (False, None)


def public_call(path: str, body: bytes | None, public_names: frozenset[str], public_ids: frozenset[int]) -> bool:
    """Whether a request runs only a public endpoint (body: the request's, for the paths that need it)."""
    if path in OPEN_PATHS:
        return True
    if path in BY_INDEX:
        readable, index = body_fn_index(body or b"")
        return readable and index in public_ids
    name = event_name(path)
    if name is None:
        return False
    if path.startswith(BY_NAME):
        return name in public_names
    readable, index = body_fn_index(body or b"")
    return readable and (index in public_ids if index is not None else name in public_names)


def needs_body(path: str) -> bool:
    return path in BY_INDEX or path.startswith(BY_NAME_OR_INDEX)


class PageTokenGuard:
    """ASGI middleware: sets the page token cookie on the page, and refuses (403) a request that could run a
    private event without it."""

    def __init__(self, app, token: str, public_names: Iterable[str] = (), public_ids=frozenset()):
        self.app, self.token = app, token
        self.public_names = frozenset(public_names)
        self.public_ids = frozenset(public_ids)

    async def __call__(self, scope, receive, send) -> None:
        kind = scope["type"]
        method = scope.get("method", "GET").upper()
        if kind == "http" and method in SAFE_METHODS:
            await self.app(scope, receive, send if scope.get("path") != "/" else self._with_cookie(scope, send))
            return
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        port = (scope.get("server") or (None, None))[1]
        if hmac.compare_digest(sent_token(headers, port).encode("latin-1", "replace"), self.token.encode()):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if kind == "http" and needs_body(path):
            body, receive = await _read_body(receive)
        else:
            body = None
        if kind == "http" and public_call(path, body, self.public_names, self.public_ids):
            await self.app(scope, receive, send)
            return
        await _refuse(kind, send, path)

    def _with_cookie(self, scope, send):
        cookie = page_cookie((scope.get("server") or (None, None))[1], self.token)

        async def send_with_cookie(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 200:
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)
        return send_with_cookie


async def _read_body(receive):
    """The whole request body, and a receive() that gives it to the app again."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), _replay([message])
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    return body, _replay([{"type": "http.request", "body": body, "more_body": False}], receive)


def _replay(messages: list, then=None):
    async def receive():
        if messages:
            return messages.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}
    return receive


_logged: set[str] = set()


async def _refuse(kind: str, send, path: str) -> None:
    if path not in _logged and len(_logged) < 100:
        _logged.add(path)
        log.warning("refused a request without the page token: %s", path[:120])
    await refuse(kind, send, "only the UI's own page may run this (reload the page); programs call the public "
                             "endpoints")


def page_token_middleware(app, public: Iterable[str]) -> list:
    """For launch(app_kwargs={"middleware": ...}): the guard with a fresh token for this launch."""
    from starlette.middleware import Middleware
    public = tuple(public)
    return [Middleware(PageTokenGuard, token=secrets.token_urlsafe(32), public_names=public,
                       public_ids=public_fn_ids(app, public))]
