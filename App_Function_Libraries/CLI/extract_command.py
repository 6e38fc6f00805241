"""`python app.py extract PATH_OR_URL… [--json]`: the main text of saved pages or live URLs, through the same
fetch and extraction code the research pipeline uses (so extraction quality can be measured on any pages),
under the same [fetch] limits: a parse worker killed at extract_timeout_seconds or extract_memory_mb."""
from __future__ import annotations

import sys

from App_Function_Libraries.CLI.terminal import clean, json_text, one_line


def register(sub) -> None:
    p = sub.add_parser("extract", help="print the main text of web pages (files or URLs) as research reads them")
    p.add_argument("locations", nargs="+", metavar="PATH_OR_URL", help="saved page files or http(s) URLs")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per line: source, title, text (and error when it failed)")
    p.set_defaults(func=run_extract)


def run_extract(args) -> int:
    """Every input in turn: its text on stdout; a failure is one line on stderr naming the input (and, with
    --json, a record with "error"), then the next input. Exit code 1 when any input failed."""
    from App_Function_Libraries import quarry
    failures = 0
    for page in quarry.extract.pages(args.locations):
        failures += bool(page.error)
        _print_result(page.location, page.title, page.text, page.error, args.json)
    return 1 if failures else 0


def _print_result(location: str, title: str, text: str, error: str, as_json: bool) -> None:
    if error:
        print(f"{location}: {clean(error)}", file=sys.stderr, flush=True)  # the page's words cleaned, not yours
    if as_json:
        record = {"source": location, "title": title, "text": text, **({"error": error} if error else {})}
        print(json_text(record), flush=True)
    elif not error:
        print(f"==> {location} <==\n# {one_line(title)}\n\n{clean(text)}\n", flush=True)
