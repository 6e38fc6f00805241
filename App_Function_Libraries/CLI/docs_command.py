"""`python app.py docs …`: index local files and answer from them.

    docs add PATH…          index files and folders (.txt .md .rst .html .pdf .docx)
    docs list               indexed documents (and --skipped: files that could not be read)
    docs remove ID|PATH…    take documents out of the index
    docs search "Q"         the best chunks (BM25 + vector, rank-fused)
    docs ask "Q"            a cited answer from the best chunks
    docs reindex            embed every chunk again (after changing [embeddings] model)
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from datetime import datetime

from App_Function_Libraries.CLI.terminal import say


def register(sub) -> None:
    p = sub.add_parser("docs", help="index your own documents and answer from them")
    dsub = p.add_subparsers(dest="docs_command", metavar="ACTION", required=True)

    add = dsub.add_parser("add", help="index files and folders (changed files replaced, unchanged skipped)")
    add.add_argument("paths", nargs="+", metavar="PATH")
    add.add_argument("--annotate", dest="annotate", action="store_true", default=None,
                     help="have the LLM write a context for each chunk (default: [documents] contextual_annotation)")
    add.add_argument("--no-annotate", dest="annotate", action="store_false")
    add.add_argument("--quiet", action="store_true", help="no progress lines")
    add.add_argument("--json", action="store_true", help="print the ingest report as JSON")
    add.set_defaults(func=run_add)

    ls = dsub.add_parser("list", help="list indexed documents")
    ls.add_argument("--skipped", action="store_true", help="also list files that could not be indexed, and why")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=run_list)

    rm = dsub.add_parser("remove", help="remove documents from the index (by id or path)")
    rm.add_argument("refs", nargs="+", metavar="ID|PATH")
    rm.set_defaults(func=run_remove)

    for name, func, helptext in (("search", run_search, "show the best matching chunks"),
                                 ("ask", run_ask, "answer a question from your documents, with citations")):
        q = dsub.add_parser(name, help=helptext)
        q.add_argument("query", metavar="QUESTION")
        q.add_argument("--group", default="fine", help="node group to search (default: fine; also: coarse)")
        q.add_argument("-k", type=int, default=20, help="how many chunks (default 20)")
        q.add_argument("--name", action="append", default=[], metavar="GLOB", help="only files whose name matches")
        q.add_argument("--type", action="append", default=[], metavar="TYPE", help="only files of this type (pdf, md…)")
        q.add_argument("--after", type=_date, metavar="DATE", help="only files modified on or after (YYYY-MM-DD)")
        q.add_argument("--before", type=_date, metavar="DATE", help="only files modified on or before (YYYY-MM-DD)")
        q.add_argument("--json", action="store_true")
        q.set_defaults(func=func)
        if name == "search":
            from App_Function_Libraries.quarry.docs import METHODS
            q.add_argument("--method", choices=METHODS, default="hybrid")
        else:
            q.add_argument("--no-llm", action="store_true", help="extractive answer even when an LLM is configured")

    ri = dsub.add_parser("reindex", help="embed every chunk again with the configured embedding model")
    ri.set_defaults(func=run_reindex)


def _date(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (use YYYY-MM-DD)") from None


def _guarded(action):
    """Run an action, turning a failure of the library (documents, embedding, a damaged index file: the store
    checks it when opening, but damage deeper in the file shows only in a query) into one line and exit code 1."""
    from App_Function_Libraries.quarry import QuarryError
    try:
        return action()
    except QuarryError as exc:
        say(f"docs: {exc}", file=sys.stderr)
        return 1


def _progress(done: int, total: int, path: str) -> None:
    if path:
        say(f"[{done + 1}/{total}] {path}", file=sys.stderr, flush=True)


def run_add(args) -> int:
    def action():
        from App_Function_Libraries import quarry
        report = quarry.docs.add(args.paths, progress=None if args.quiet or args.json else _progress,
                                 annotate=args.annotate)
        if args.json:
            print(json.dumps(asdict(report), indent=2))
        else:
            _print_report(report)
        return 0 if report.indexed or report.unchanged or not report.skipped else 1
    return _guarded(action)


def _print_report(report) -> None:
    for info in report.added:
        say(f"added     #{info.id} {info.path} ({_counts(info.nodes)})")
    for info in report.replaced:
        say(f"replaced  #{info.id} {info.path} ({_counts(info.nodes)})")
    for skip in report.skipped:
        say(f"skipped   {skip.path}: {skip.reason}")
    for warning in report.warnings:
        say(f"warning   {warning}")
    if report.annotation_calls:
        say(f"contextual annotation: {report.annotation_calls} LLM call(s)")
    say(report.summary())


def _counts(nodes: dict[str, int]) -> str:
    return ", ".join(f"{n} {g}" for g, n in sorted(nodes.items())) or "no chunks"


def run_list(args) -> int:
    def action():
        from App_Function_Libraries import quarry
        docs, skipped = quarry.docs.list(), quarry.docs.skipped() if args.skipped else []
        if args.json:
            print(json.dumps({"documents": [asdict(d) for d in docs],
                              "skipped": [{"path": p, "reason": r} for p, r in skipped]}, indent=2))
            return 0
        if not docs:
            say("No documents indexed yet. Add some with: python app.py docs add PATH")
        for d in docs:
            pages = f", {d.pages} pages" if d.pages else ""
            say(f"#{d.id:<4} {d.file_type:<4} {d.words:>7} words{pages}  {d.path}  ({_counts(d.nodes)})")
        for path, reason in skipped:
            say(f"skipped  {path}: {reason}")
        return 0
    return _guarded(action)


def run_remove(args) -> int:
    def action():
        from App_Function_Libraries import quarry
        done = quarry.docs.remove(args.refs)
        for info in done.removed:
            say(f"removed #{info.id} {info.path}")
        for missing in done.missing:
            say(f"docs: {missing}", file=sys.stderr)
        return 1 if done.missing else 0
    return _guarded(action)


def _filters(args):
    from App_Function_Libraries import quarry
    before = args.before
    if before is not None and before.time() == datetime.min.time():  # a bare date: the whole day counts
        before = before.replace(hour=23, minute=59, second=59)
    return quarry.docs.filters(names=args.name, types=args.type, modified_after=args.after, modified_before=before)


def run_search(args) -> int:
    def action():
        from App_Function_Libraries import quarry
        hits = quarry.docs.search(args.query, args.k, group=args.group, filters=_filters(args), method=args.method)
        if args.json:
            print(json.dumps([asdict(h) | {"location": h.location} for h in hits], indent=2))
            return 0
        if not hits:
            say("No matching chunks.")
        for rank, h in enumerate(hits, start=1):
            ranks = f"bm25 #{h.bm25_rank or '-'}, vector #{h.vector_rank or '-'}"
            say(f"{rank:>2}. {h.citation_target}  (score {h.score:.4g}; {ranks})")
            say("    " + _preview(h.text))
        return 0
    return _guarded(action)


def _preview(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width].rsplit(" ", 1)[0] + " …"


def run_ask(args) -> int:
    def action():
        from App_Function_Libraries import quarry
        asked = quarry.docs.ask(args.query, args.k, group=args.group, filters=_filters(args), use_llm=not args.no_llm)
        answer = asked.answer
        if args.json:
            print(json.dumps({"question": asked.question, **answer.to_dict(),
                              "hits": [asdict(h) for h in asked.hits]}, indent=2, default=str))
            return 0
        say(quarry.render.markdown_text(answer.markdown))
        if answer.sources:
            say("\nSources:\n" + quarry.docs.sources_text(asked))
        for err in answer.errors:
            say(f"note: {err}", file=sys.stderr)
        if answer.invalid_citations_removed:
            say(f"note: {answer.invalid_citations_removed} citation(s) naming no source were removed",
                file=sys.stderr)
        return 0
    return _guarded(action)


def run_reindex(args) -> int:
    def action():
        from App_Function_Libraries import quarry
        count = quarry.docs.reindex()
        say(f"re-embedded {count} chunks")
        return 0
    return _guarded(action)
