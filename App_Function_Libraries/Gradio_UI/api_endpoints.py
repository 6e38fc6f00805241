"""The UI server's HTTP API: stable, named Gradio endpoints (gr.api), one per entry of quarry/endpoints.py (the
table the MCP tools are made from too: same names, same arguments, same plain JSON); a failure is a gr.Error
carrying the CLI's one-line message. Every other event of the UI is
plumbing and hidden from the API (see hide_plumbing). Docs/api.md shows how to call them with gradio_client."""
from __future__ import annotations

from typing import Any

import gradio as gr

from App_Function_Libraries.quarry.endpoints import ENDPOINTS, NAMES as PUBLIC, signature


def _call(work, settings_fn):
    from App_Function_Libraries.quarry import QuarryError
    from App_Function_Libraries.quarry.plain import safe, safe_message
    settings = settings_fn()
    try:
        return safe(work(settings), settings)
    except QuarryError as exc:
        raise gr.Error(safe_message(str(exc), settings)) from None


def endpoint_function(endpoint, settings_fn):
    """A function gr.api can register for `endpoint`: its signature and docstring (the arguments' help) are
    the endpoint's, the same arguments the MCP tool takes."""
    sig = signature(endpoint, lambda arg, typed: typed)

    def call(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return _call(lambda settings: endpoint.call(settings, **bound.arguments), settings_fn)
    call.__signature__ = sig  # type: ignore[attr-defined]
    call.__annotations__ = {**{n: p.annotation for n, p in sig.parameters.items()}, "return": sig.return_annotation}
    call.__name__ = endpoint.name
    call.__doc__ = endpoint.help + "\n\nArgs:\n" + "".join(f"    {a.name}: {a.help}\n" for a in endpoint.args)
    return call


def register(settings_fn) -> None:
    """Add the named endpoints (quarry/endpoints.py) to the Blocks being built; `settings_fn()` gives the
    current settings."""
    for endpoint in ENDPOINTS:
        gr.api(endpoint_function(endpoint, settings_fn), api_name=endpoint.name)


def hide_plumbing(app: gr.Blocks) -> None:
    """Every event that is not one of the PUBLIC endpoints: off the API page and out of reach of API clients
    (the page's own events still run)."""
    names = [fn.api_name for fn in app.fns.values()]
    missing = sorted(set(PUBLIC) - set(names))
    if missing:  # a UI handler named like an endpoint takes its name, and the endpoint becomes name_1
        raise RuntimeError(f"API endpoints not found under their names: {', '.join(missing)}")
    for fn in app.fns.values():
        if fn.api_name not in PUBLIC:
            fn.api_visibility = "private"
