"""`python app.py watch ...`: re-run saved researches on a schedule, reporting only what is new.

    watch add ID --every 1d        watch a saved research (id or prefix, see `history`): 1d, 12h, 30m, 2w
    watch list [--json]            the watches, when each is due, and their runs
    watch remove WATCH_ID
    watch run [WATCH_ID]           run the watches that are due (or this one now); for cron or a systemd user
                                   timer (Docs/runs.md). Prints one line per run; exit 1 if any failed.
"""
from __future__ import annotations

import sys

from App_Function_Libraries.CLI.notes_command import guarded, when
from App_Function_Libraries.CLI.terminal import json_text, one_line, say


def register(sub) -> None:
    p = sub.add_parser("watch", help="re-run saved researches on a schedule; report only what is new")
    actions = p.add_subparsers(dest="watch_action", metavar="ACTION", required=True)
    a = actions.add_parser("add", help="watch a saved research")
    a.add_argument("id", help="the report id (its first characters are enough)")
    a.add_argument("--every", default="1d", help="how often: 1d, 12h, 30m, 2w, or seconds (default 1d)")
    a.set_defaults(func=run_add)
    a = actions.add_parser("list", help="the watches and their runs")
    a.add_argument("--json", action="store_true", help="print JSON")
    a.set_defaults(func=run_list)
    a = actions.add_parser("remove", help="stop watching")
    a.add_argument("watch_id")
    a.set_defaults(func=run_remove)
    a = actions.add_parser("run", help="run the watches that are due (cron, systemd timer), or one now")
    a.add_argument("watch_id", nargs="?", help="run this watch now, due or not")
    a.set_defaults(func=run_run)


@guarded
def run_add(args) -> int:
    from App_Function_Libraries import quarry
    watch = quarry.watch.add(args.id, args.every)
    say(f"watch {watch.id[:8]}: {one_line(watch.question)}; every {_every(watch.every_seconds)}, next "
        f"{when(watch.next_due)} (python app.py watch run, from cron or a systemd timer: see Docs/runs.md)")
    return 0


@guarded
def run_list(args) -> int:
    from App_Function_Libraries import quarry
    watches = quarry.watch.list()
    if args.json:
        print(json_text([{**w.__dict__, "runs": [r.__dict__ for r in runs]} for w, runs in watches], indent=2))
        return 0
    if not watches:
        print("no watches (python app.py watch add ID --every 1d)")
    for w, runs in watches:
        say(f"{w.id[:8]}  every {_every(w.every_seconds):>4s}  next {when(w.next_due)}  {one_line(w.question)}")
        for r in runs:
            say(f"    {when(r.ran_at)}  run {r.run_id[:8]}  {r.new_sources} new, {r.changed_sources} changed"
                + ("  notified" if r.notified else ""))
    return 0


@guarded
def run_remove(args) -> int:
    from App_Function_Libraries import quarry
    watch = quarry.watch.remove(args.watch_id)
    say(f"removed watch {watch.id[:8]} ({one_line(watch.question)}); its runs stay in history")
    return 0


@guarded
def run_run(args) -> int:
    from App_Function_Libraries import quarry
    outcomes = [quarry.watch.run(args.watch_id)] if args.watch_id else quarry.watch.run_due()
    if not outcomes:
        print("no watch is due")
    for outcome in outcomes:
        say(outcome.summary())
        for finding in outcome.findings:
            say(f"  - {one_line(finding)}")
    failed = [o for o in outcomes if o.problem and not o.run_id]
    if any(o.problem for o in outcomes):
        say("; ".join(o.problem for o in outcomes if o.problem), file=sys.stderr)
    return 1 if failed else 0


def _every(seconds: float) -> str:
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"
