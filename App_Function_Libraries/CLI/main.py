"""Argument parsing and dispatch for `python app.py`.

Each subcommand lives in its own module listed in SUBCOMMAND_MODULES; a module exposes
`register(subparsers)` which adds its parser and sets `func` (called with the parsed args, returns an exit
code). Modules import their heavy dependencies inside the functions, so `--help` stays instant.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from App_Function_Libraries.config import ConfigError, get_settings, load_settings, set_settings

SUBCOMMAND_MODULES = [
    "App_Function_Libraries.CLI.ui_command",
    "App_Function_Libraries.CLI.check_command",
    "App_Function_Libraries.CLI.research_command",
    "App_Function_Libraries.CLI.extract_command",
    "App_Function_Libraries.CLI.search_command",
    "App_Function_Libraries.CLI.wiki_command",
    "App_Function_Libraries.CLI.notes_command",
    "App_Function_Libraries.CLI.history_command",
    "App_Function_Libraries.CLI.watch_command",
    "App_Function_Libraries.CLI.docs_command",
    "App_Function_Libraries.CLI.mcp_command",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python app.py",
        description="Quarry, a local research assistant. With no subcommand, starts the desktop UI.")
    parser.add_argument("--config", help="config file to use (default: Config_Files/config.txt or $QUARRY_CONFIG)")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND")
    ui_module = importlib.import_module(SUBCOMMAND_MODULES[0])
    ui_module.add_ui_arguments(parser)
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        set_settings(load_settings(args.config) if args.config else None)
        get_settings()
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    func = getattr(args, "func", None)
    if func is None:
        from App_Function_Libraries.CLI.ui_command import run_ui
        func = run_ui
    try:
        return int(func(args) or 0)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
