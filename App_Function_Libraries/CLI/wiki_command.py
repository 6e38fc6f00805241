"""`python app.py wiki build|search|ask|status`: the local Wikipedia index from the command line."""
from __future__ import annotations

import sys
from pathlib import Path

from App_Function_Libraries.CLI.terminal import json_text, say


def register(sub) -> None:
    p = sub.add_parser("wiki", help="local Wikipedia: build an index, search it, ask it")
    wsub = p.add_subparsers(dest="wiki_command", metavar="ACTION", required=True)

    b = wsub.add_parser("build", help="build an index from passages (JSONL, Parquet, a datasets folder, SQuAD JSON)")
    src = b.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", help="passages: a .jsonl/.parquet/SQuAD .json file or a folder")
    src.add_argument("--demo", action="store_true", help="build the small demo encyclopedia shipped with Quarry")
    b.add_argument("--out", help="index folder, relative to the current directory (default: [wikipedia] index_dir)")
    b.add_argument("--model", help="embedding model name or path (default: [embeddings] model)")
    b.add_argument("--query-prompt", help="prefix the model expects on queries (default: [embeddings] query_prompt)")
    b.add_argument("--format", default="auto", choices=("auto", "jsonl", "parquet", "datasets", "squad"))
    b.add_argument("--batch-size", type=int, help="passages per embedding batch (default: [embeddings] batch_size)")
    bf = b.add_mutually_exclusive_group()
    bf.add_argument("--bf16", dest="bf16", action="store_true", default=None, help="bf16 autocast (about 2x faster on a CPU with native bf16, slower without)")
    bf.add_argument("--fp32", dest="bf16", action="store_false", help="embed in full float32")
    b.add_argument("--no-fts", action="store_true", help="skip the full-text (BM25) table")
    b.add_argument("--force", action="store_true", help="replace an existing index in --out (--demo replaces an "
                                                        "earlier demo index without it)")
    b.set_defaults(func=run_build)

    s = wsub.add_parser("search", help="passages nearest to a question, with scores, titles and URLs")
    s.add_argument("question")
    s.add_argument("-k", "--top-k", type=int, default=10, help="passages to show (default 10)")
    s.add_argument("--no-hybrid", action="store_true", help="vector search only (no BM25 fusion)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run_search)

    a = wsub.add_parser("ask", help="answer a question from the index, citing articles as [n]")
    a.add_argument("question")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=run_ask)

    st = wsub.add_parser("status", help="whether an index exists, and what it holds")
    st.set_defaults(func=run_status)


def _fail(exc: Exception) -> int:
    """One line on stderr and exit code 1 (a damaged index names its folder and how to rebuild it)."""
    say(f"wiki: {exc}", file=sys.stderr)
    return 1


def _cli_path(value: str) -> Path:
    """A path typed on the command line: relative to the current directory, like any other command's."""
    return Path(value).expanduser().resolve()


def run_build(args) -> int:
    from tqdm import tqdm

    from App_Function_Libraries import quarry
    bars = []

    def progress(done: int, total: int | None) -> None:
        if not bars:  # the bar starts with the embedding, not before a refusal to replace an index
            bars.append(tqdm(unit="passage", desc="embedding", dynamic_ncols=True))
        bars[0].total = total
        bars[0].update(done - bars[0].n)

    try:
        report = quarry.wiki.build(None if args.demo else _cli_path(args.input),
                                   _cli_path(args.out) if args.out else None, demo=args.demo, model=args.model,
                                   bf16=args.bf16, batch_size=args.batch_size, query_prompt=args.query_prompt,
                                   fmt=args.format, force=args.force, progress=progress, fts=not args.no_fts)
    except quarry.QuarryError as exc:
        for bar in bars:
            bar.close()
        return _fail(exc)
    for bar in bars:
        bar.close()
    resumed = f" (resumed at row {report.resumed_from:,})" if report.resumed_from else ""
    say(f"built {report.out_dir}: {report.count:,} passages from {report.documents:,} articles, "
        f"{report.dimension}-d, in {report.seconds:.1f} s{resumed}")
    return 0


def run_search(args) -> int:
    from App_Function_Libraries import quarry
    try:
        hits = quarry.wiki.search(args.question, top_k=max(1, args.top_k), hybrid=not args.no_hybrid)
        index = quarry.wiki.open_index()
    except quarry.QuarryError as exc:
        return _fail(exc)
    if args.json:
        print(json_text([h.__dict__ for h in hits], indent=1))
        return 0
    for i, h in enumerate(hits, start=1):
        bm25 = f" bm25={h.bm25:.2f}" if h.bm25 is not None else ""
        say(f"{i:>2}. [{h.score:.4f} cos~{h.vector_score:.3f}{bm25}] {h.title} <{h.url}>")
        say(f"    {h.text[:300]}{'…' if len(h.text) > 300 else ''}")
    if not hits:
        say("no passages found")
    say(f"index opened in {index.open_seconds:.2f} s, embedding model loaded in {index.model_seconds:.2f} s",
        file=sys.stderr)
    return 0


def run_ask(args) -> int:
    from App_Function_Libraries import quarry
    try:
        asked = quarry.wiki.ask(args.question)
    except quarry.QuarryError as exc:
        return _fail(exc)
    answer = asked.answer
    if args.json:
        print(json_text({"question": asked.question, **answer.to_dict(), "timings": asked.timings}, indent=1))
        return 0
    say(quarry.render.markdown_text(answer.markdown))
    if answer.sources:
        say("\nSources:\n" + quarry.wiki.sources_text(answer))
    for e in answer.errors:
        say(f"note: {e}", file=sys.stderr)
    return 0


def run_status(args) -> int:
    from App_Function_Libraries import quarry
    index = quarry.wiki.status()
    say(index.message)
    return 0 if index.exists else 1
