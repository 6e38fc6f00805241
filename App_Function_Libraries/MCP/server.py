"""Build and run Quarry's MCP server (the official `mcp` SDK's MCPServer) over stdio or streamable HTTP.

HTTP listens on loopback unless told otherwise; any other address needs a bearer token ([mcp] token or
QUARRY_MCP_TOKEN): the server refuses to start without one, and answers 401 to a request without it."""
from __future__ import annotations

import hmac
import ipaddress
import sys

from App_Function_Libraries.errors import QuarryError

INSTRUCTIONS = ("Quarry is a local research assistant. `research` answers a question from the web with a report "
                "whose citations are checked against quotes; `wiki_ask` and `docs_ask` answer from the local "
                "Wikipedia index and the user's documents; notes_* and history_* reach saved notes and reports.")


class StartError(QuarryError):
    """The server cannot start as asked (one line for the command line)."""


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def argument_errors(tool: str, error) -> str:
    """A pydantic ValidationError of a tool's arguments as one line naming each wrong argument."""
    parts = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg'].lower()}" for e in error.errors()]
    return f"{tool}: bad argument " + "; ".join(parts)


def build_server(settings):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    from App_Function_Libraries.MCP.tools import register

    class QuarryMCPServer(MCPServer):
        async def call_tool(self, name, arguments, context=None):
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):  # the values stay out: they are the caller's
                    raise ToolError(argument_errors(name, exc.__cause__)) from None
                raise

    server = QuarryMCPServer(name="quarry", instructions=INSTRUCTIONS, log_level="WARNING")
    register(server, settings)
    return server


def run_stdio(settings) -> None:
    build_server(settings).run("stdio")


def bearer_token(header: bytes) -> bytes:
    """The credentials of an `Authorization: Bearer <token>` header value; the scheme's name is matched without
    regard to case (RFC 7235, 2.1); b"" for any other scheme or none."""
    scheme, _, credentials = header.strip().partition(b" ")
    return credentials.strip(b" ") if scheme.lower() == b"bearer" else b""


class BearerGuard:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>` (else 401)."""

    def __init__(self, app, token: str) -> None:
        self.app, self.expected = app, token.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            sent = bearer_token(dict(scope.get("headers") or []).get(b"authorization", b""))
            if not hmac.compare_digest(sent, self.expected):
                body = b'{"error": "unauthorized: send Authorization: Bearer <token> ([mcp] token)"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def rebinding_guard(host: str):
    """The SDK's DNS rebinding protection for a server bound to `host` (a loopback address or name): requests
    must name a loopback name or that address in Host, and a browser's Origin must be one of them too."""
    from mcp.server.transport_security import TransportSecuritySettings
    bare = host.strip().strip("[]").lower()
    bound = f"[{bare}]" if ":" in bare else bare
    names = list(dict.fromkeys((*LOOPBACK_NAMES, bound)))
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=[n + suffix for n in names for suffix in ("", ":*")],
                                     allowed_origins=[f"http://{n}" + suffix for n in names
                                                      for suffix in ("", ":*")])


def http_app(settings, host: str):
    """The streamable-HTTP Starlette app at /mcp, behind BearerGuard when a token is set (StartError when
    `host` is not loopback and no token is)."""
    from mcp.server.transport_security import TransportSecuritySettings
    token = settings.mcp.token
    if not is_loopback(host) and not token:
        raise StartError(f"mcp: refusing to listen on {host} without a token: set [mcp] token (or "
                         f"QUARRY_MCP_TOKEN), or listen on 127.0.0.1")
    # Without a token the SDK checks Host and Origin, for whatever loopback address is bound (no web page can
    # reach the server by DNS rebinding); with a token, the token does that job (a page cannot know it), and a
    # server on a LAN name must accept its name
    security = (TransportSecuritySettings(enable_dns_rebinding_protection=False) if token
                else rebinding_guard(host))
    app = build_server(settings).streamable_http_app(host=host, transport_security=security)
    return BearerGuard(app, token) if token else app


def run_http(settings, host: str, port: int) -> None:
    import uvicorn
    app = http_app(settings, host)
    print(f"quarry mcp: streamable HTTP on http://{host}:{port}/mcp"
          + (" (bearer token required)" if settings.mcp.token else ""), file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
