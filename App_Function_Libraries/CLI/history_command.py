"""`python app.py history ...`: past searches and their reports.

    history [--search TEXT] [--limit N]          the list: id, time, question, number of results; then the
                                                 runs that did not finish (interrupted, cancelled): resume them
                                                 with python app.py research --resume ID
    history show ID [--format md|json|html|bib|ris|csl|txt] [--output FILE]
    history export ID --format pdf|docx|md|html|json|bib|ris|csl|txt -o FILE [--citation-style numbered|apa|chicago]
    history note ID [--title T] [--keywords a,b]  save the report as a note
    history ask ID "QUESTION" [--json]           a question about the report, answered from its own sources
    history keep ID                              add its read pages and papers to the document library
    history delete ID
"""
from __future__ import annotations

import argparse
import sys

from App_Function_Libraries.CLI.notes_command import guarded, note_from_report, when, write_output
from App_Function_Libraries.CLI.terminal import json_text, one_line, say


def register(sub) -> None:
    p = sub.add_parser("history", help="past searches and reports: list, show, export, save as a note, ask about, "
                                       "keep the sources, delete")
    _list_args(p)
    p.set_defaults(func=run_list)
    actions = p.add_subparsers(dest="history_action", metavar="ACTION")

    a = actions.add_parser("list", help="past searches, newest first")
    _list_args(a, keep_given=True)  # `history --json list` is `history list --json`
    a.set_defaults(func=run_list)

    a = actions.add_parser("show", help="print a past report")
    a.add_argument("id", help="the report id (its first characters are enough)")
    a.add_argument("--format", default="md", choices=("md", "json", "html", "bib", "ris", "csl", "txt"),
                   help="output format (default md)")
    a.add_argument("--output", "-o", help="write to this file instead of printing")
    _style_arg(a)
    a.set_defaults(func=run_show)

    a = actions.add_parser("export", help="write a past report to a file: PDF, Word, Markdown, HTML, JSON, BibTeX, "
                                          "RIS, CSL-JSON or text")
    a.add_argument("id", help="the report id (its first characters are enough)")
    a.add_argument("--format", "-f", help="pdf, docx, md, html, json, bib, ris, csl or txt (default: the output "
                                          "file's ending)")
    a.add_argument("--output", "-o", required=True, help="the file to write")
    _style_arg(a)
    a.set_defaults(func=run_export)

    a = actions.add_parser("note", help="save a past report as a note")
    a.add_argument("id")
    a.add_argument("--title", help="the note's title (default: the question)")
    a.add_argument("--keywords", help="comma-separated keywords")
    a.set_defaults(func=run_note)

    a = actions.add_parser("ask", help="ask about a past report: answered from its own sources, saved with it")
    a.add_argument("id", help="the report id (its first characters are enough)")
    a.add_argument("question", help="the question about the report")
    a.add_argument("--json", action="store_true", help="print the exchange as JSON")
    a.set_defaults(func=run_ask)

    a = actions.add_parser("keep", help="keep a past report's sources: its read pages and papers become documents "
                                        "in the library (each once)")
    a.add_argument("id", help="the report id (its first characters are enough)")
    a.set_defaults(func=run_keep)

    a = actions.add_parser("delete", help="delete a past search and its report")
    a.add_argument("id")
    a.set_defaults(func=run_delete)


def _style_arg(parser) -> None:
    parser.add_argument("--citation-style", help="the sources list: numbered, apa or chicago (default: the report's "
                                                 "own, else [research] citation_style)")


def _list_args(parser, keep_given: bool = False) -> None:
    """The list's options, on `history` and on `history list`. On the latter (keep_given) they default to
    SUPPRESS: argparse would otherwise write its defaults over the options given before `list`."""
    defaults = {"search": None, "limit": 30, "offset": 0, "json": False}
    if keep_given:
        defaults = dict.fromkeys(defaults, argparse.SUPPRESS)
    parser.add_argument("--search", default=defaults["search"],
                        help="only searches whose question or report contains this text")
    parser.add_argument("--limit", type=int, default=defaults["limit"], help="most searches shown (default 30)")
    parser.add_argument("--offset", type=int, default=defaults["offset"], help="skip this many first")
    parser.add_argument("--json", action="store_true", default=defaults["json"], help="print JSON")


@guarded
def run_list(args) -> int:
    from App_Function_Libraries import quarry
    reports = quarry.history.list(limit=args.limit, offset=args.offset, query=args.search)
    if args.json:
        print(json_text([r.__dict__ for r in reports], indent=2))
        return 0
    if not reports:
        print("no saved searches" + (" match" if args.search else " yet"))
    for r in reports:
        say(f"{r.id[:8]}  {when(r.created_at)}  {r.source_count:3d} results  {r.mode:10s}  {one_line(r.question)}")
    runs = [] if args.search or args.offset else quarry.runs.unfinished(limit=args.limit)
    if runs:
        say("\nnot finished (python app.py research --resume ID):")
    for run in runs:
        say(f"{run.id[:8]}  {when(run.updated_at)}  {run.status:11s}  after {run.stage or 'nothing':10s}  "
            f"{one_line(run.question)}")
    return 0


@guarded
def run_show(args) -> int:
    from App_Function_Libraries import quarry
    try:
        text = quarry.export(args.id, args.format, citation_style=args.citation_style)
    except quarry.QuarryError:
        if args.format not in ("md", "txt"):
            raise
        return _show_unfinished(args)
    if args.format in ("md", "txt"):
        facts = quarry.runs.facts_markdown(args.id)
        text = text.rstrip("\n") + ("\n\n" + facts + "\n" if facts else "\n")
    write_output(text, args.output, args.format)
    return 0


def _show_unfinished(args) -> int:
    """`history show` of a run that has no report yet: its status, last stage, plan and how to resume it."""
    from App_Function_Libraries import quarry
    try:
        run = quarry.runs.get(args.id)
    except quarry.QuarryError:
        raise quarry.QuarryError(f"no saved report with id {args.id!r}") from None
    text = (f"# {one_line(run.question)}\n\nrun {run.id}: {run.status} after {run.stage or 'no stage'}; "
            f"resume with: python app.py research --resume {run.id[:8]}\n\n"
            + quarry.render.plan_markdown((run.state.get("params") or {}).get("plan") or run.plan))
    write_output(text, args.output, args.format)
    return 0


@guarded
def run_export(args) -> int:
    """Check the format and style, find the report, make the export, then write it (nothing is written when
    any step fails; each failure is one line)."""
    from App_Function_Libraries import quarry
    from pathlib import Path
    fmt = quarry.history.export_format(args.format or _suffix_format(args.output))
    data = quarry.export(args.id, fmt, citation_style=args.citation_style)
    try:
        Path(args.output).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    except OSError as exc:
        say(f"error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.output} ({fmt}, {len(data if isinstance(data, bytes) else data.encode('utf-8'))} bytes)")
    return 0


def _suffix_format(path: str) -> str:
    name = str(path or "").lower()
    return "csl" if name.endswith(".csl.json") else name.rsplit(".", 1)[-1] if "." in name else ""


@guarded
def run_note(args) -> int:
    note = note_from_report(args.id, args.title, args.keywords)
    say(f"saved as note {note.id} ({one_line(note.title)})")
    return 0


@guarded
def run_ask(args) -> int:
    from App_Function_Libraries import quarry
    asked = quarry.history.ask(args.id, args.question)
    if args.json:
        print(json_text(asked.exchange.to_dict(), indent=2))
    else:
        say(asked.text())  # page text quoted in the answer: no terminal control characters
    return 0


@guarded
def run_keep(args) -> int:
    from App_Function_Libraries import quarry
    for line in keep_lines(quarry.history.keep_sources(args.id)):
        say(line)
    return 0


def keep_lines(kept) -> list[str]:
    """The summary of a KeepReport, then one line per source not kept and why."""
    return [kept.summary()] + [f"  not kept: {one_line(why)}" for why in kept.skipped]


@guarded
def run_delete(args) -> int:
    from App_Function_Libraries import quarry
    print(f"deleted search {quarry.history.delete(args.id)}")
    return 0

