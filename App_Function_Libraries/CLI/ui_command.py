"""`python app.py [--host H] [--port P] [--share --auth USER:PASS]`: start the desktop UI."""
from __future__ import annotations

import sys

from App_Function_Libraries.config import get_settings
from App_Function_Libraries.quarry.errors import BadArgument


def add_ui_arguments(parser) -> None:
    parser.add_argument("--host", help="address to listen on (default: [ui] host, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default: [ui] port, 7860)")
    parser.add_argument("--share", action="store_true", help="make a public Gradio share link (needs --auth)")
    parser.add_argument("--auth", help="USER:PASSWORD required to open the UI (required with --share)")


def register(sub) -> None:
    p = sub.add_parser("ui", help="start the desktop UI (the default when no subcommand is given)")
    add_ui_arguments(p)
    p.set_defaults(func=run_ui)


def parse_auth(value: str | None) -> tuple[str, str] | None:
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise BadArgument(None, "--auth must be USER:PASSWORD")
    return user, password


def run_ui(args) -> int:
    settings = get_settings()
    try:
        auth = parse_auth(getattr(args, "auth", None))
    except BadArgument as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "share", False) and not auth:
        print("error: --share makes the UI reachable from the internet; it requires --auth USER:PASSWORD",
              file=sys.stderr)
        return 2
    from App_Function_Libraries import quarry
    from App_Function_Libraries.Gradio_UI.app_ui import build_app, ui_css
    from App_Function_Libraries.Gradio_UI.downloads import prune_stale_roots
    from App_Function_Libraries.Gradio_UI.api_endpoints import PUBLIC
    from App_Function_Libraries.Gradio_UI.host_guard import guard_middleware
    from App_Function_Libraries.Gradio_UI.page_token import page_token_middleware
    prune_stale_roots()  # download folders left by UI processes that were killed
    app = build_app(settings)
    host = getattr(args, "host", None) or settings.ui.host
    port = getattr(args, "port", None) or settings.ui.port
    share = bool(getattr(args, "share", False))
    # requests naming another host (DNS rebinding) or posted by another site are refused, and only the page
    # (holding this launch's page token) runs the UI's private events; a share link is reached through Gradio's
    # tunnel under its own name, and is protected by the required --auth instead
    app_kwargs = {} if share else {"middleware": guard_middleware(host, settings.ui.host)
                                   + page_token_middleware(app, PUBLIC)}
    from App_Function_Libraries.Gradio_UI.warm_up import start_warm_up
    start_warm_up(settings)  # the embedding model loads while the page opens, not in the first research
    print(f"Quarry UI on http://{host}:{port}", flush=True)
    app.queue(default_concurrency_limit=4).launch(
        server_name=host, server_port=port, share=share, auth=auth, show_error=False, inbrowser=False,
        quiet=True, ssr_mode=False, css=ui_css(), app_kwargs=app_kwargs, max_file_size=quarry.docs.max_file_bytes())  # larger uploads refused (413)
    return 0
