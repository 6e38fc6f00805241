"""`python app.py notes ...`: list, search, show, add, edit, delete, restore, export and import notes.

    notes list [--keyword K] [--deleted]        notes search "QUERY"   (notes search -- "-word" to start with -)
    notes show ID [--format md|json|html|bib|txt] [--output FILE]
    notes add --title T --content TEXT [--keywords a,b]     (--content - reads stdin, --file PATH reads a file)
    notes add --from-report ID [--title T] [--keywords a,b]
    notes edit ID [--title T] [--content TEXT | --file PATH] [--keywords a,b] [--expected-version N]
    notes delete ID [--permanent]    notes restore ID    notes keywords
    notes export DIR_OR_ZIP [--include-deleted]    notes import PATH

IDs may be shortened to their first characters, as `notes list` prints them. Printed text has terminal control
characters removed (see terminal.py); `--output FILE` writes a note exactly as stored.
"""
from __future__ import annotations

import sqlite3
import sys

from App_Function_Libraries.CLI.terminal import clean, escape_json, json_text, one_line, say


def register(sub) -> None:
    p = sub.add_parser("notes", help="your notes: list, search, show, add, edit, delete, restore, export, import")
    p.set_defaults(func=run_list, keyword=None, deleted=False, limit=50, offset=0, json=False)
    actions = p.add_subparsers(dest="notes_action", metavar="ACTION")

    a = actions.add_parser("list", help="notes, most recently edited first")
    a.add_argument("--keyword", help="only notes with this keyword (any case)")
    a.add_argument("--deleted", action="store_true", help="list the trash (deleted notes) instead")
    _paging(a)
    a.set_defaults(func=run_list)

    a = actions.add_parser("search", help="full-text search of titles and contents")
    a.add_argument("query", help='words (prefixes match), "an exact phrase", OR; -word or NOT word leaves out '
                                 'the notes that have it (a query that starts with -: notes search -- -word)')
    _paging(a, limit=20)
    a.set_defaults(func=run_search)

    a = actions.add_parser("show", help="print one note")
    a.add_argument("id")
    _format_args(a)
    a.set_defaults(func=run_show)

    a = actions.add_parser("add", help="create a note")
    a.add_argument("--title", help="the title (for --from-report: default is the question)")
    _content_args(a)
    a.add_argument("--keywords", help="comma-separated keywords, e.g. bees,biology")
    a.add_argument("--from-report", metavar="ID", help="save a past report (see `history`) as the note")
    a.set_defaults(func=run_add)

    a = actions.add_parser("edit", help="change a note's title, content or keywords")
    a.add_argument("id")
    a.add_argument("--title")
    _content_args(a)
    a.add_argument("--keywords", help="the new comma-separated keywords (replacing the old ones; '' clears them)")
    a.add_argument("--expected-version", type=int,
                   help="refuse the edit if the note is no longer at this version (default: its current one)")
    a.set_defaults(func=run_edit)

    a = actions.add_parser("delete", help="move a note to the trash (restore brings it back)")
    a.add_argument("id")
    a.add_argument("--permanent", action="store_true", help="erase it for good instead")
    a.set_defaults(func=run_delete)

    a = actions.add_parser("restore", help="bring a note back from the trash")
    a.add_argument("id")
    a.set_defaults(func=run_restore)

    a = actions.add_parser("keywords", help="keywords in use, with how many notes have each")
    a.set_defaults(func=run_keywords)

    a = actions.add_parser("export", help="write every note to a folder, or a .zip file")
    a.add_argument("destination", help="a folder, or a path ending in .zip")
    a.add_argument("--include-deleted", action="store_true", help="also export the trash")
    a.set_defaults(func=run_export)

    a = actions.add_parser("import", help="import notes from a folder, .zip, .md or .json file")
    a.add_argument("path")
    a.set_defaults(func=run_import)


def _paging(parser, limit: int = 50) -> None:
    parser.add_argument("--limit", type=int, default=limit, help=f"most notes shown (default {limit})")
    parser.add_argument("--offset", type=int, default=0, help="skip this many first")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _format_args(parser) -> None:
    parser.add_argument("--format", default="md", choices=("md", "json", "html", "bib", "txt"),
                        help="output format (default md)")
    parser.add_argument("--output", "-o", help="write to this file instead of printing")


def _content_args(parser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--content", help="the markdown content ('-' reads standard input)")
    group.add_argument("--file", help="read the content from this file")


# ---------------------------------------------------------------- helpers

def guarded(func):
    """Run a command body, turning storage errors into one line on stderr and exit code 1 (a database file
    that is not SQLite or is damaged is named by the store, with the setting that points at it)."""
    def wrapper(args) -> int:
        from App_Function_Libraries.quarry import QuarryError
        try:
            return int(func(args) or 0)
        except (QuarryError, OSError, UnicodeDecodeError) as exc:
            say(f"error: {exc}", file=sys.stderr)
            return 1
        except sqlite3.DatabaseError as exc:
            say(f"error: the database could not be used ({' '.join(str(exc).split())})", file=sys.stderr)
            return 1
    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


def write_output(text: str, output: str | None, fmt: str = "md") -> None:
    """Write `text` exactly to the file `output` and say where, or print it without terminal control
    characters (JSON, `fmt` "json", stays exact: those characters are written as \\u escapes)."""
    if output:
        with open(output, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        print(f"wrote {output}")
    else:
        text = escape_json(text) if fmt == "json" else clean(text)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def when(epoch: float | None) -> str:
    """Local date and time of `epoch`; "-" when there is none, "?" when it is not a valid time."""
    from App_Function_Libraries.quarry.render import format_epoch
    return format_epoch(epoch, invalid="?") if epoch else "-"


def _content(args) -> str | None:
    if getattr(args, "file", None):
        with open(args.file, encoding="utf-8") as handle:
            return handle.read()
    if args.content == "-":
        return sys.stdin.read()
    return args.content


def _print_notes(notes, as_json: bool) -> None:
    if as_json:
        print(json_text([{k: v for k, v in n.to_dict().items() if k != "report"} for n in notes], indent=2))
        return
    if not notes:
        print("no notes")
    for note in notes:
        keywords = f"  [{', '.join(note.keywords)}]" if note.keywords else ""
        say(f"{note.id[:8]}  {when(note.updated_at)}  v{note.version}  {one_line(note.title)}{keywords}")


# ---------------------------------------------------------------- commands

@guarded
def run_list(args) -> int:
    from App_Function_Libraries import quarry
    _print_notes(quarry.notes.list(args.keyword, args.limit, args.offset, deleted=args.deleted), args.json)
    return 0


@guarded
def run_search(args) -> int:
    """Matches in bold on a terminal; JSON gives the snippet's text and the (start, end) of each match."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.quarry.render import END, START, snippet_plain, snippet_terminal
    hits = quarry.notes.search(args.query, limit=args.limit, offset=args.offset)
    if args.json:
        rows = [(h, *snippet_plain(h.snippet)) for h in hits]
        print(json_text([{"id": h.note.id, "title": h.note.title, "snippet": text, "matches": spans,
                          "score": h.score} for h, text, spans in rows], indent=2))
        return 0
    if not hits:
        print("no matching notes")
    bold = sys.stdout.isatty()
    for hit in hits:
        snippet = snippet_terminal(clean(hit.snippet, keep=START + END), bold)  # marks kept; BOLD added after
        print(f"{one_line(hit.note.id[:8])}  {one_line(hit.note.title)}\n          {snippet}")
    return 0


@guarded
def run_show(args) -> int:
    from App_Function_Libraries import quarry
    write_output(quarry.notes.export(quarry.notes.get(args.id), args.format), args.output, args.format)
    return 0


def note_from_report(report_id: str, title: str | None, keywords: str | None):
    """Save the past report `report_id` (or the start of its id) as a note; returns the note."""
    from App_Function_Libraries import quarry
    return quarry.notes.add(title, None, keywords, from_report=report_id)


@guarded
def run_add(args) -> int:
    if args.from_report:
        note = note_from_report(args.from_report, args.title, args.keywords)
    else:
        content = _content(args)
        if not args.title or content is None:
            print("error: notes add needs --title and --content (or --file, or --from-report)", file=sys.stderr)
            return 2
        from App_Function_Libraries import quarry
        note = quarry.notes.add(args.title, content, args.keywords)
    say(f"added note {note.id} ({one_line(note.title)})")
    return 0


@guarded
def run_edit(args) -> int:
    from App_Function_Libraries import quarry
    note = quarry.notes.get(args.id)
    content = _content(args)
    if args.title is None and content is None and args.keywords is None:
        print("error: nothing to change; give --title, --content/--file or --keywords", file=sys.stderr)
        return 2
    note = quarry.notes.edit(note.id, args.expected_version, title=args.title, content=content,
                             keywords=args.keywords)
    say(f"note {note.id[:8]} is now at version {note.version}")
    return 0


@guarded
def run_delete(args) -> int:
    from App_Function_Libraries import quarry
    try:
        note_id = quarry.notes.delete(args.id, permanent=args.permanent)
    except quarry.notes.AlreadyInTrash as exc:
        note_id = exc.note_id
        say(f"note {note_id[:8]} is already in the trash (python app.py notes restore {note_id[:8]} brings it "
            f"back; notes delete {note_id[:8]} --permanent erases it)", file=sys.stderr)
        return 1
    say(f"erased note {note_id}" if args.permanent else
        f"moved note {note_id[:8]} to the trash (python app.py notes restore {note_id[:8]} brings it back)")
    return 0


@guarded
def run_restore(args) -> int:
    from App_Function_Libraries import quarry
    note = quarry.notes.restore(args.id)
    say(f"restored note {note.id[:8]} ({one_line(note.title)})")
    return 0


@guarded
def run_keywords(args) -> int:
    from App_Function_Libraries import quarry
    keywords = quarry.notes.keywords()
    if not keywords:
        print("no keywords")
    for keyword, uses in keywords:
        say(f"{uses:5d}  {one_line(keyword)}")
    return 0


@guarded
def run_export(args) -> int:
    from App_Function_Libraries import quarry
    count = quarry.notes.export_all(args.destination, include_deleted=args.include_deleted)
    say(f"exported {count} notes to {args.destination}")
    return 0


@guarded
def run_import(args) -> int:
    from App_Function_Libraries import quarry
    summary = quarry.notes.import_file(args.path)
    say(f"import from {args.path}: {summary.line()}")
    for error in summary.errors:
        say(f"  skipped {one_line(error)}", file=sys.stderr)
    return 1 if summary.errors else 0
