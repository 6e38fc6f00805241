"""`python app.py research "QUESTION" [--engine E,…] [--no-llm] [--json | --md]`: research a question on the
web and print a cited report. Progress goes to stderr; Ctrl-C stops the run and prints what was done."""
from __future__ import annotations

import json
import sys
import threading
import time


def register(sub) -> None:
    p = sub.add_parser("research", help="research a question on the web and print a cited report")
    p.add_argument("question", help="the question, in quotes")
    p.add_argument("--engine", help="search engines, comma-separated (default: [search] search_provider_default)")
    p.add_argument("--no-llm", action="store_true", help="extractive mode: no LLM calls even if one is configured")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the whole result as JSON")
    out.add_argument("--md", action="store_true", help="print only the report and its numbered sources")
    p.add_argument("--no-subqueries", action="store_true", help="search the question only")
    p.add_argument("--no-relevance", action="store_true", help="fetch every result without judging it")
    p.add_argument("--pages", type=int, help="most pages to read (default: [research] pages_max)")
    p.add_argument("--format", choices=("full", "short", "bullets", "table"), help="report format")
    p.add_argument("--no-cache", action="store_true", help="neither read nor fill the search and page caches")
    p.add_argument("--no-save", action="store_true", help="do not save the result in the research database")
    p.set_defaults(func=run_research)


def build_params(args, settings):
    from App_Function_Libraries.config import ENGINES
    from App_Function_Libraries.Web_Search.research_params import ResearchParams
    engines = [e.strip().lower() for e in (args.engine or "").split(",") if e.strip()] or None
    unknown = [e for e in engines or [] if e not in ENGINES]
    if unknown:
        raise ValueError(f"unknown engine {', '.join(unknown)}; engines are {', '.join(ENGINES)}")
    if args.pages is not None and args.pages < 1:
        raise ValueError("--pages must be at least 1")
    overrides = {"engines": engines, "pages_max": args.pages, "report_format": args.format}
    if args.no_llm:
        overrides["use_llm"] = False
    if args.no_subqueries:
        overrides["subqueries"] = False
    if args.no_relevance:
        overrides["relevance_check"] = False
    if args.no_cache:
        overrides["use_cache"] = False
    return ResearchParams.from_settings(settings, **overrides)


class ProgressLine:
    """One status line on stderr: rewritten in place on a terminal, a line per finished stage otherwise."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.printed: set[str] = set()

    def __call__(self, event) -> None:
        elapsed = time.monotonic() - self.started
        text = f"[{elapsed:5.1f}s] {event.stage}: {event.done}/{event.total}" + (
            f" ({event.message})" if event.message else "")
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if event.stage == "done" else ""))
            self.stream.flush()
        elif event.done == event.total and event.stage not in self.printed | {"done"}:
            self.printed.add(event.stage)
            print(text, file=self.stream, flush=True)


def format_markdown(result) -> str:
    """The report, then the numbered sources (with what went wrong with the others)."""
    lines = [f"# {result.question}", "", result.report_markdown.strip(), "", "## Sources", ""]
    for s in result.cited_sources():
        lines.append(f"[{s.n}] {s.title or s.url} - {s.final_url or s.url}")
    unused = [s for s in result.sources if s.n is None and s.selected]
    if unused:
        lines += ["", "Selected but not used:"]
        lines += [f"- {s.title or s.url} - {s.url}: {_why_unused(s)}" for s in unused]
    return "\n".join(lines)


def _why_unused(source) -> str:
    if not source.fetched or source.error.startswith("same page"):
        return source.error or "not read"
    return "nothing on the question" + (f" ({source.error})" if source.error else "")


def format_summary(result) -> str:
    t = result.timings
    usage = result.llm_usage or {}
    lines = ["", f"mode: {result.mode}; sources: {len(result.cited_sources())} cited of {len(result.sources)} "
                 f"found; citations: {len(result.citations)}; invalid removed: {result.invalid_citations_removed}",
             f"time: {t.get('total', 0):.1f}s; LLM calls: {usage.get('calls', 0)}"]
    lines += [f"note: {e}" for e in result.errors]
    return "\n".join(lines)


def run_research(args) -> int:
    from App_Function_Libraries.config import get_settings
    from App_Function_Libraries.Web_Search.pipeline import process_question
    settings = get_settings()
    try:
        params = build_params(args, settings)
    except ValueError as exc:
        print(f"research: {exc}", file=sys.stderr)
        return 2
    cancel, box = threading.Event(), {}

    def work():
        try:
            box["result"] = process_question(args.question, params, ProgressLine(), cancel)
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
        print(f"research failed: {box.get('error', 'stopped')}", file=sys.stderr)
        return 1
    result = box["result"]
    _save(result, settings, args.no_save)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_markdown(result))
        if not args.md:
            print(format_summary(result), file=sys.stderr)
    return 130 if cancel.is_set() else 0


def _save(result, settings, skip: bool) -> None:
    if skip:
        return
    try:
        from App_Function_Libraries.DB.research_store import get_research_store
        rid = get_research_store(settings).save_research(result)
        print(f"saved as {rid}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - saving is a convenience; the report is still printed
        print(f"could not save the result: {exc}", file=sys.stderr)
