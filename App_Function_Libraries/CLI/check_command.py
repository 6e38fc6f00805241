"""`python app.py check`: a verdict for each configured LLM role and search engine, the Wikipedia index and
the document library; with --settings, the settings in force after them (keys masked)."""
from __future__ import annotations

import argparse

from App_Function_Libraries.CLI.terminal import json_text, say
from App_Function_Libraries.config import get_settings, masked
from App_Function_Libraries.quarry.check import local_verdicts
from App_Function_Libraries.status import status_lines


def register(sub) -> None:
    p = sub.add_parser("check", help="test each LLM role and search engine, the Wikipedia index and the document "
                                     "library (--settings: show the settings too)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--settings", action="store_true", help="also show every setting (keys masked), after the "
                                                           "verdicts")
    p.add_argument("--no-settings", action="store_true", help=argparse.SUPPRESS)  # the default now; still accepted
    p.set_defaults(func=run_check)


def run_check(args) -> int:
    settings = get_settings()
    verdicts = status_lines(settings) + local_verdicts(settings)
    show_settings = getattr(args, "settings", False)
    code = 0 if all(v.ok is not False for v in verdicts) else 1
    if args.json:
        data = {"config": str(settings.path), "checks": [v.__dict__ for v in verdicts]}
        if show_settings:
            data["settings"] = masked(settings)
        print(json_text(data, indent=2, default=str))
        return code
    for v in verdicts:
        mark = {True: "OK  ", False: "FAIL", None: "SKIP"}[v.ok]
        say(f"{mark} {v.name}: {v.message}")  # server-supplied model names and error text
    if show_settings:
        print(f"\nConfig file: {settings.path}")
        for section, values in masked(settings).items():
            print(f"[{section}]")
            for key, value in values.items():
                print(f"  {key} = {value}")
    else:
        print(f"Config file: {settings.path} (python app.py check --settings shows every setting)")
    return code
