"""`python app.py check`: the active settings (keys masked) and a reachability verdict for each configured
LLM role and search engine."""
from __future__ import annotations

from App_Function_Libraries.CLI.terminal import json_text, say
from App_Function_Libraries.config import get_settings, masked
from App_Function_Libraries.status import status_lines


def register(sub) -> None:
    p = sub.add_parser("check", help="show settings (keys masked) and test each LLM role and search engine")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-settings", action="store_true", help="only the verdicts, not the settings")
    p.set_defaults(func=run_check)


def run_check(args) -> int:
    settings = get_settings()
    verdicts = status_lines(settings)
    if args.json:
        print(json_text({"config": str(settings.path), "settings": masked(settings),
                         "checks": [v.__dict__ for v in verdicts]}, indent=2, default=str))
        return 0 if all(v.ok is not False for v in verdicts) else 1
    if not args.no_settings:
        print(f"Config file: {settings.path}")
        for section, values in masked(settings).items():
            print(f"[{section}]")
            for key, value in values.items():
                print(f"  {key} = {value}")
        print()
    for v in verdicts:
        mark = {True: "OK  ", False: "FAIL", None: "SKIP"}[v.ok]
        say(f"{mark} {v.name}: {v.message}")  # server-supplied model names and error text
    return 0 if all(v.ok is not False for v in verdicts) else 1
