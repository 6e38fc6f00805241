"""`python app.py mcp [--http [--host H] [--port N]]`: Quarry's tools for MCP clients (desktop assistants,
scripts). Over stdio by default (what an assistant launches); --http serves streamable HTTP at /mcp, on
loopback unless --host says otherwise (then [mcp] token or QUARRY_MCP_TOKEN is required). See Docs/mcp.md."""
from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("mcp", help="serve Quarry's tools to MCP clients (stdio, or --http)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", help="address to listen on with --http (default: [mcp] host, 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on with --http (default: [mcp] port, 8765)")
    p.set_defaults(func=run_mcp)


def run_mcp(args) -> int:
    from App_Function_Libraries.config import get_settings
    from App_Function_Libraries.MCP.server import StartError, run_http, run_stdio
    settings = get_settings()
    if not args.http:
        if args.host or args.port:
            print("mcp: --host and --port go with --http", file=sys.stderr)
            return 2
        run_stdio(settings)
        return 0
    try:
        run_http(settings, args.host or settings.mcp.host, args.port or settings.mcp.port)
    except StartError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    return 0
