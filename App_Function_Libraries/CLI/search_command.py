"""`python app.py search "QUERY" --engine E[,E…]`: search one or more engines and print the results
(or, with --json, the web_search_results_dict of one engine / the merged answer of several)."""
from __future__ import annotations

import sys
import textwrap

from App_Function_Libraries.CLI.terminal import json_text, one_line, say


def register(sub) -> None:
    p = sub.add_parser("search", help="search the web with one or more engines and print the results")
    p.add_argument("query", help="what to search for")
    p.add_argument("--engine", "-e", default=None,
                   help="engine or comma-separated engines: bing, brave, duckduckgo, google, searxng, kagi, "
                        "tavily, serper, arxiv, pubmed, semanticscholar, openalex, crossref (default: "
                        "search_provider_default)")
    p.add_argument("--count", "-n", type=int, default=None, help="results per engine (default: "
                   "search_result_max_per_query)")
    p.add_argument("--country", default=None, help="two-letter country code, e.g. US, DE")
    p.add_argument("--lang", default=None, help="language of the query (ISO 639-1, e.g. en)")
    p.add_argument("--result-lang", default=None, help="language the results should be in")
    p.add_argument("--date-range", default=None, help="day, week, month, year or YYYY-MM-DD..YYYY-MM-DD")
    p.add_argument("--safesearch", default=None, choices=("off", "moderate", "strict"))
    p.add_argument("--exclude-site", action="append", default=None, metavar="DOMAIN",
                   help="leave out a site (repeatable)")
    p.add_argument("--site", action="append", default=None, metavar="DOMAIN",
                   help="keep results to this site (repeatable; default: [search] search_include_sites)")
    p.add_argument("--exact", action="append", default=None, metavar="PHRASE", help="phrase that must appear")
    p.add_argument("--exclude", action="append", default=None, metavar="WORD", help="word that must not appear")
    p.add_argument("--sort", default=None, choices=("relevance", "date"))
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the search cache")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=run_search)


def run_search(args) -> int:
    from App_Function_Libraries.config import get_settings
    settings = get_settings()
    from App_Function_Libraries.config import ENGINES
    default = [e.strip() for e in settings.search.search_provider_default.split(",") if e.strip() in ENGINES]
    engines = [e.strip() for e in args.engine.split(",") if e.strip()] if args.engine else default
    values = dict(count=args.count, country=args.country, search_lang=args.lang, result_lang=args.result_lang,
                  date_range=args.date_range, safesearch=args.safesearch, site_blacklist=args.exclude_site,
                  include_sites=args.site, exact_terms=args.exact, exclude_terms=args.exclude, sort=args.sort)
    if len(engines) == 1:
        return _one_engine(engines[0], args, settings, values)
    return _many_engines(engines, args, settings, values)


def _one_engine(engine: str, args, settings, values: dict) -> int:
    from App_Function_Libraries.Search.engine import search_with
    answer = search_with(engine, args.query, settings, use_cache=not args.no_cache, **values)
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


def _many_engines(engines: list[str], args, settings, values: dict) -> int:
    from App_Function_Libraries import quarry
    from App_Function_Libraries.Search.many import MultiSearch
    try:
        merged = quarry.search(args.query, engines, use_cache=not args.no_cache, settings=settings, **values)
    except quarry.BadArgument as exc:
        if exc.argument != "options":
            say(f"error: {exc}", file=sys.stderr)
            return 2
        merged = MultiSearch.refused(engines, [args.query], exc.reason)  # every engine refuses it alike
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
