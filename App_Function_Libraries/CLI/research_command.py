"""`python app.py research "QUESTION" [--engine E,…] [--no-llm] [--json | --md]`: research a question on the
web and print a cited report. Progress goes to stderr; Ctrl-C stops the run and prints what was done. A run
where no search answered (no internet, an engine without its key) prints why and exits 1, saving nothing.

--keep-sources adds the read pages and papers to the document library (after saving; also with --no-save).
Every research option of App_Function_Libraries/options.py is a flag (`--help` lists them): the search options
(--search-lang, --date-range, --include-sites, ...), report options --tone, --report-format,
--report-language, --length-words, --preset NAME (a saved report prompt). --rounds N digs deeper N times after
the report; --follow-up-of ID researches a follow-up question of a saved report.
--plan-only prints the plan (queries, engines per query, sites, dates, budget) as JSON without searching;
--plan FILE runs a plan (edited or not; the question comes from it). --budget-seconds/-pages/-tokens cap the
run. Each stage is committed as it completes: --resume ID continues an interrupted or cancelled run.
Titles, page text and error messages come from strangers: everything is printed through terminal.py."""
from __future__ import annotations

import sys
import threading
import time
import uuid

from App_Function_Libraries import options
from App_Function_Libraries.CLI.terminal import clean, json_text, one_line, say


#: the command's own switches (what to print and keep), beside the research options of options.py
CONTROLS = ("question", "json", "md", "no_save", "keep_sources")


def register(sub) -> None:
    p = sub.add_parser("research", help="research a question on the web and print a cited report")
    p.add_argument("question", nargs="?", help="the question, in quotes (not with --plan or --resume)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the whole result as JSON")
    out.add_argument("--md", action="store_true",
                     help="print only the report and its numbered sources, as Markdown (escapes kept)")
    p.add_argument("--no-save", action="store_true", help="do not save the result in the research database")
    p.add_argument("--keep-sources", action="store_true",
                   help="add the read pages and papers to the document library (each once; see `history keep`)")
    options.add_arguments(p, options.RESEARCH)
    p.set_defaults(func=run_research)


def build_params(args, settings):
    """ResearchParams from the command line (quarry.research_params; BadArgument, a QuarryError, when wrong)."""
    from App_Function_Libraries.quarry import research_params
    values = options.from_arguments(args, options.PARAMS + ("follow_up_of",))
    return research_params(settings, **values)


def _run_options(args) -> dict:
    """rounds, plan, plan_only, resume as given (BadArgument when they do not fit together)."""
    given = options.from_arguments(args, ("rounds", "plan", "plan_only", "resume"))
    for group in options.EXCLUSIVE:
        both = [name for name in group if given.get(name)]
        if len(both) > 1:
            raise options.BadArgument(None, f"give only one of {', '.join(options.OPTIONS[n].flag for n in both)}")
    given["rounds"] = options.parse("rounds", given.get("rounds")) or 0
    return given


class ProgressLine:
    """One status line on stderr: rewritten in place on a terminal, otherwise a line per finished stage, and
    again when a stage finishes saying something new ("report: 1/1 (nothing in the 10 pages read answers the
    question: reading further)", a dig-deeper round's stages)."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.printed: set[str] = set()

    def __call__(self, event) -> None:
        elapsed = time.monotonic() - self.started
        text = clean(f"[{elapsed:5.1f}s] {event.text()}", keep="")
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if event.stage == "done" else ""))
            self.stream.flush()
        elif event.done == event.total and event.stage != "done" and event.text() not in self.printed:
            self.printed.add(event.text())
            print(text, file=self.stream, flush=True)


def format_markdown(result) -> str:
    """The report, then its listed sources (ResearchResult.listed_sources: cited, then read but not cited; with
    any warning on their page), then the other selected sources and why they were not used."""
    lines = [f"# {one_line(result.question)}", "", result.report_markdown.strip(), "", "## Sources", ""]
    listed = result.listed_sources()
    cited = len(result.cited_sources())
    lines += [_source_line(n, s) for n, s in listed[:cited]] or ["None cited."]  # never an empty section
    if listed[cited:]:
        lines += ["", "Read but not cited:"] + [_source_line(n, s) for n, s in listed[cited:]]
    shown = {id(s) for _, s in listed}
    unused = [s for s in result.sources if id(s) not in shown and s.selected]
    if unused:
        lines += ["", "Selected but not used:"]
        lines += [f"- {one_line(s.title or s.url)} - {one_line(s.url)}: {one_line(_why_unused(s))}" for s in unused]
    return "\n".join(lines)


def format_report(result, markdown: bool) -> str:
    """What the command prints: with --md the Markdown as it is; else text to read, its escapes resolved (a
    quoted page's "[Tesla]" shows as it is, not as "\\[Tesla\\]")."""
    from App_Function_Libraries import quarry
    text = format_markdown(result)
    return text if markdown else quarry.render.markdown_text(text)


def _source_line(n: int, s) -> str:
    """[n] title — a paper's facts - its address (as every list of sources shows it), where it was read when a
    redirect led elsewhere, any warning on its page."""
    moved = s.final_url and s.final_url != s.url
    return (f"[{n}] {one_line(s.title or s.url)}{_paper_facts(s.paper)} - {one_line(s.url)}"
            + (f" (read at {one_line(s.final_url)})" if moved else "")
            + (f" ({one_line(s.warning)})" if s.warning else ""))


def _paper_facts(paper) -> str:
    """ — authors, year, venue, DOI of a paper source ("" for any other source)."""
    facts = paper.facts() if paper is not None else []
    return " — " + one_line("; ".join(facts)) if facts else ""


def _why_unused(source) -> str:
    if source.duplicate:
        return source.duplicate
    if not source.fetched:
        return source.failure or source.skipped or "not read"
    return "nothing on the question" + (f" ({source.warning})" if source.warning else "")


def format_summary(result) -> str:
    t = result.timings
    usage = result.llm_usage or {}
    lines = ["", f"mode: {result.mode}; sources: {len(result.cited_sources())} cited of {len(result.sources)} "
                 f"found; citations: {len(result.citations)}; not supported: {result.unsupported_citations}; "
                 f"invalid removed: {result.invalid_citations_removed}",
             f"time: {t.get('total', 0):.1f}s; LLM calls: {usage.get('calls', 0)}"]
    lines += [f"note: {e}" for e in result.errors]
    if result.follow_ups:
        lines.append(f"follow-up questions (python app.py research --follow-up-of {result.id[:8]} \"…\"):")
        lines += [f"  - {q}" for q in result.follow_ups]
    return "\n".join(lines)


def run_research(args) -> int:
    from App_Function_Libraries import quarry
    from App_Function_Libraries.config import get_settings
    settings = get_settings()
    try:
        run = _run_options(args)
        args.rounds, args.plan, args.plan_only, args.resume = (run["rounds"], run.get("plan"), run.get("plan_only"),
                                                                run.get("resume"))
        params = build_params(args, settings)
        question, plan = _question_and_plan(args)
        if args.plan_only:
            print(json_text(quarry.runs.plan(question, params, settings=settings).to_dict(), indent=2))
            return 0
    except (ValueError, OSError, quarry.QuarryError) as exc:
        say(f"research: {exc.cli_text() if isinstance(exc, quarry.BadArgument) else one_line(exc)}", file=sys.stderr)
        return 2
    cancel, box = threading.Event(), {}
    run_id = args.resume or str(uuid.uuid4())
    if not args.no_save and not args.resume:
        print(f"run {run_id[:8]} (if it stops: python app.py research --resume {run_id[:8]})", file=sys.stderr)

    def work():
        try:
            if args.resume:
                box["result"] = quarry.runs.resume(args.resume, rounds=args.rounds, save=False,
                                                   on_progress=ProgressLine(), cancel=cancel, settings=settings)
            else:
                box["result"] = quarry.research(question, params, plan=plan, run_id=run_id, rounds=args.rounds,
                                                save=False, durable=not args.no_save, on_progress=ProgressLine(),
                                                cancel=cancel, settings=settings)
        except Exception as exc:  # noqa: BLE001 - shown as one line below
            box["error"] = exc

    worker = threading.Thread(target=work, name="research", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        print("\nstopping…", file=sys.stderr)
        cancel.set()
        worker.join(30)
    if "error" in box or "result" not in box:
        error = box.get("error", "stopped")
        say(error if isinstance(error, quarry.QuarryError) else f"research failed: {error}", file=sys.stderr)
        return 1
    result = box["result"]
    if result.searched_nothing:
        return _searched_nothing(result, args.json)
    for line in quarry.round_lines(result):
        say(line, file=sys.stderr)
    _save(result, settings, args.no_save)
    if args.keep_sources:
        _keep(result, settings)
    if args.json:
        print(json_text(result.to_dict(), indent=2))
    else:
        say(format_report(result, markdown=args.md))
        if not args.md:
            say(format_summary(result), file=sys.stderr)
    return 130 if cancel.is_set() else 0


def _searched_nothing(result, as_json: bool) -> int:
    """A run where no search answered: no report, nothing saved; why on stderr (and the JSON on stdout)."""
    if as_json:
        print(json_text(result.to_dict(), indent=2))
    from App_Function_Libraries import quarry
    say(str(quarry.nothing_searched(result)), file=sys.stderr)
    for note in result.errors:
        say(f"note: {note}", file=sys.stderr)
    return 1


def _question_and_plan(args):
    """(question, plan or None) from the arguments; BadArgument (one line) when they do not fit together."""
    from App_Function_Libraries import quarry
    if args.plan:
        text = sys.stdin.read() if args.plan == "-" else open(args.plan, encoding="utf-8").read()
        plan = quarry.runs.read_plan(text)
        if args.question and " ".join(args.question.split()) != plan.question:
            raise quarry.BadArgument(None, "the question differs from the plan's; leave it out with --plan")
        return plan.question, plan
    if args.resume:
        if args.question:
            raise quarry.BadArgument(None, "--resume continues a run: leave out the question")
        return "", None
    if not args.question:
        raise quarry.BadArgument(None, "the question is missing")
    return args.question, None


def _save(result, settings, skip: bool) -> None:
    if skip:
        return
    from App_Function_Libraries import quarry
    try:
        print(f"saved as {quarry.save_result(result, settings)}", file=sys.stderr)
    except quarry.QuarryError as exc:  # saving is a convenience; the report is still printed
        say(str(exc), file=sys.stderr)


def _keep(result, settings) -> None:
    """Keep the result's sources in the document library; its lines on stderr (stdout is the report)."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.CLI.history_command import keep_lines
    try:
        lines = keep_lines(quarry.history.keep_result(result, settings))
    except quarry.QuarryError as exc:  # the report is still printed
        lines = [f"error: {exc}"]
    for line in lines:
        say(line, file=sys.stderr)
