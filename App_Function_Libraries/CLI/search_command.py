"""`python app.py search "QUERY" --engines E[,E…]`: search one or more engines and print the results
(or, with --json, the web_search_results_dict of one engine / the merged answer of several). The flags are
the search options of App_Function_Libraries/options.py (--search-lang, --date-range, --site-blacklist, ...)."""
from __future__ import annotations

import sys
import textwrap

from App_Function_Libraries import options
from App_Function_Libraries.CLI.terminal import json_text, one_line, say


#: what `search` takes: engines, the search options and the cache switch (options.py)
OPTIONS = options.SEARCH_COMMAND + ("use_cache",)


def register(sub) -> None:
    p = sub.add_parser("search", help="search the web with one or more engines and print the results")
    p.add_argument("query", help="what to search for")
    options.add_arguments(p, OPTIONS)
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=run_search)


def run_search(args) -> int:
    from App_Function_Libraries import quarry
    from App_Function_Libraries.config import get_settings
    settings = get_settings()
    values = options.from_arguments(args, options.SEARCH)
    use_cache, engines = getattr(args, "use_cache", None) is not False, getattr(args, "engines", None)
    try:
        if engines and len(engines) == 1 and "," not in engines[0]:
            return _one_engine(engines[0], args, quarry.web.search_engine(
                engines[0], args.query, use_cache=use_cache, settings=settings, **values))
        merged = quarry.search(args.query, engines, use_cache=use_cache, settings=settings, **values)
    except quarry.BadArgument as exc:
        if exc.argument != "options":
            say(f"error: {exc}", file=sys.stderr)
            return 2
        merged = quarry.web.refused(engines or [], args.query, exc.reason)  # every engine refuses it alike
    return _many_engines(merged, args)


def _one_engine(engine: str, args, answer) -> int:
    if args.json:
        print(json_text(answer.to_dict(), indent=2, default=str))
        return 1 if answer.error else 0
    if answer.error:
        say(f"error: {answer.error}", file=sys.stderr)
        return 1
    cached = " (from the cache)" if answer.cached else ""
    print(f"{len(answer.hits)} result(s) from {engine} in {answer.seconds:.2f} s{cached}\n")
    for n, hit in enumerate(answer.hits, start=1):
        _print_result(n, hit, [])
    if answer.notes:
        say(f"note: {answer.notes}", file=sys.stderr)
    return 0


def _many_engines(merged, args) -> int:
    if args.json:
        print(json_text(merged.to_dict(), indent=2, default=str))
        return 1 if len(merged.errors) == len(merged.runs) else 0
    ok = [run.engine for run in merged.runs if not run.error]
    print(f"{len(merged.results)} result(s) from {', '.join(ok) or 'no engine'} in {merged.search_time:.2f} s\n")
    for result in merged.results:
        _print_result(result.rank, result.hit, result.engines)
    for label, message in merged.errors.items():
        say(f"error: {label.split('|')[0]}: {message}", file=sys.stderr)
    for label, message in merged.processing_errors.items():
        say(f"note: {message}", file=sys.stderr)
    return 1 if len(merged.errors) == len(merged.runs) else 0


def _print_result(n: int, hit, engines: list[str]) -> None:
    """One result (a Hit); its title, URL, date and text come from strangers: printed without control
    characters."""
    extra = [one_line(hit.date_published or ""), ", ".join(engines)]
    tail = "  [" + " | ".join(x for x in extra if x) + "]" if any(extra) else ""
    print(f"{n:>3}. {one_line(hit.title)}{tail}\n     {one_line(hit.url)}")
    if hit.paper:
        print(f"     {one_line(_paper_facts(hit.paper))}")
    if hit.snippet:
        print(textwrap.fill(one_line(hit.snippet), width=100, initial_indent="     ",
                            subsequent_indent="     ", max_lines=3, placeholder=" …"))
    print()


def _paper_facts(paper) -> str:
    """A paper's facts on one line: authors, year, venue, DOI, and whether an open-access PDF exists."""
    return " · ".join(paper.facts() + ["open-access PDF" if paper.pdf_url else "abstract only"])
