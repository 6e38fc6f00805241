"""The MCP tools: the endpoints of quarry/endpoints.py (the same table the HTTP API registers), each run in a
worker thread, answering plain JSON. A facade failure is a tool error carrying the CLI's one-line message; the
pipeline's stage events go out as progress notifications; a cancelled call stops its research run."""
import inspect
import sys
import threading
from typing import Annotated, Any

import anyio
from mcp_types import CallToolResult, TextContent
from mcp.server.mcpserver import Context
from pydantic import Field

from App_Function_Libraries.quarry import plain as shapes


class Tools:
    """The tool functions, bound to the settings the server started with."""

    def __init__(self, settings) -> None:
        self.settings = settings

    async def call(self, work, *, cancel: threading.Event | None = None):
        """work() in a worker thread; a QuarryError is a tool error carrying exactly its line (scrubbed); a
        cancelled call sets `cancel` (the research pipeline stops at its next check) and does not wait."""
        from App_Function_Libraries.quarry import QuarryError
        try:
            return shapes.safe(await anyio.to_thread.run_sync(work, abandon_on_cancel=True), self.settings)
        except anyio.get_cancelled_exc_class():
            if cancel is not None:
                cancel.set()
            raise
        except QuarryError as exc:
            return self.error(str(exc))
        except Exception as exc:  # noqa: BLE001 - one line, never a crash of the server
            return self.error(f"{type(exc).__name__}: {exc}")

    def error(self, message: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=shapes.safe_message(message, self.settings))],
                              is_error=True)


def progress_bridge(ctx, cancel: threading.Event):
    """An on_progress for the pipeline (called in its threads) that sends MCP progress notifications:
    progress counts finished stages plus the current stage's fraction, out of the number of stages. Stages
    overlap (rank and extract run while pages arrive), and progress must only increase: an event that would
    not move it forward is not sent."""
    from App_Function_Libraries.quarry.endpoints import stages as pipeline_stages
    stages, lock, last = pipeline_stages(), threading.Lock(), [-1.0]

    def on_progress(event) -> None:
        if cancel.is_set() or event.stage == "done":
            return
        at = stages.index(event.stage) if event.stage in stages else len(stages) - 1
        value = at + (event.done / event.total if event.total else 0.0)
        message = event.text()
        with lock:  # sent under the lock too: two threads' notifications cannot overtake each other
            if value <= last[0]:
                return
            last[0] = value
            try:
                anyio.from_thread.run(ctx.report_progress, value, len(stages), message)
            except Exception:  # noqa: BLE001 - the client went away or the call ended: progress is best effort
                pass
    return on_progress


def _field(arg, typed) -> Any:
    limits = {k: v for k, v in (("ge", arg.low), ("le", arg.high)) if v is not None}
    return Annotated[typed, Field(description=arg.help, **limits)]


def tool(endpoint, settings, tools: Tools):
    """An MCP tool function for `endpoint`: its arguments typed (pydantic checks them), run in a worker thread; a
    long one gets progress notifications and stops when the call is cancelled."""
    from App_Function_Libraries.quarry.endpoints import signature
    sig = signature(endpoint, _field)

    async def call(ctx: Context, **arguments):
        cancel = threading.Event()
        extra = {"on_progress": progress_bridge(ctx, cancel), "cancel": cancel} if endpoint.long else {}

        def work():
            try:
                return endpoint.call(settings, **arguments, **extra)
            finally:
                if endpoint.long and cancel.is_set():
                    print(f"quarry mcp: {endpoint.name} cancelled; the run stopped", file=sys.stderr, flush=True)
        return await tools.call(work, cancel=cancel)
    ctx = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    call.__signature__ = sig.replace(parameters=[*sig.parameters.values(), ctx])  # type: ignore[attr-defined]
    call.__annotations__ = {**{n: p.annotation for n, p in sig.parameters.items()}, "ctx": Context,
                            "return": sig.return_annotation}
    call.__name__ = endpoint.name
    return call


def register(server, settings) -> None:
    """Add every endpoint of quarry/endpoints.py to the MCPServer `server` as a tool."""
    from App_Function_Libraries.quarry.endpoints import ENDPOINTS
    tools = Tools(settings)
    for endpoint in ENDPOINTS:
        server.tool(name=endpoint.name, description=endpoint.help)(tool(endpoint, settings, tools))
