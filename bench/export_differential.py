"""Exports of the same run dicts by two trees, compared output by output: this tree and an earlier git revision.

    python bench/export_differential.py --before main [--runs 400] [--seed 7]

The runs are the old saved runs of Tests/data/old_saved_runs.json plus `--runs` random dicts of the shapes an
imported run may hold (sources and citations with missing, wrong-typed or out-of-range values, papers, params,
usage, times). Each is exported by `export_report` in md, html, bib, ris, csl, txt and json in every citation
style, and as the report of a note (bib, md, html); an export that raises counts as its exception's name. The
earlier revision is taken with `git archive` into a temporary folder and run in its own process. Prints how many
outputs differ, and the first few differences.
"""
from __future__ import annotations

import argparse
import difflib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALARS = [None, True, False, 0, 1, 2, 3.0, 2.5, -1, 10**7, "", "x", "http://[", "https://ok.example/a", "irrelevant",
           "paper", "wikipedia", "document", "2024-03-05", "2021", {}, [], {"x": 1}, ["a", "b"]]


def random_runs(count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)

    def value(depth: int = 0):
        if depth < 2 and rng.random() < 0.2:
            if rng.random() < 0.5:
                return [value(depth + 1) for _ in range(rng.randint(0, 2))]
            return {rng.choice(["n", "title", "url", "quote", "verdict", "x"]): value(depth + 1)
                    for _ in range(rng.randint(0, 3))}
        return rng.choice(SCALARS)

    def source() -> dict:
        keys = ["n", "title", "url", "verdict", "user_override", "date_published", "kind", "paper", "final_url"]
        data = {k: value() for k in rng.sample(keys, rng.randint(0, len(keys)))}
        if rng.random() < 0.3:
            data["paper"] = {k: value() for k in rng.sample(["authors", "year", "venue", "doi", "zz"], rng.randint(0, 5))}
            if rng.random() < 0.5:
                data["paper"]["authors"] = ["Ada Lovelace", "x", ""]
            if rng.random() < 0.5:
                data["paper"]["year"] = rng.choice([2021, 0, 99999, "2020"])
        if rng.random() < 0.5:
            data["n"] = rng.choice([1, 2, 3, 2.0, True, None, "1", 0])
        return data

    def citation() -> dict:
        keys = ["n", "sentence", "url", "quote", "verdict", "passage"]
        return {k: value() for k in rng.sample(keys, rng.randint(0, len(keys)))}

    runs = []
    for _ in range(count):
        data = {"question": rng.choice(["Q?", None, 5, "", ["a"]]),
                "report_markdown": rng.choice(["Body [1] and [2].", None, 3, ""])}
        makers = {"sources": lambda: [source() for _ in range(rng.randint(0, 4))],
                  "citations": lambda: [citation() for _ in range(rng.randint(0, 3))],
                  "params": lambda: rng.choice([{}, {"citation_style": "apa"}, {"citation_style": 5}, None, [],
                                                {"report_format": "x", "engines": ["a"], "length_words": 3}]),
                  "llm_usage": lambda: rng.choice([{}, {"models": ["m"]}, {"models": {"a": "b"}}, None, 3]),
                  "created_at": lambda: rng.choice([0, 1700000000, None, "x", 1e300]),
                  "mode": lambda: rng.choice(["llm", None, 3, ""])}
        for key, make in makers.items():
            if rng.random() < 0.8:
                data[key] = make()
        if rng.random() < 0.15:
            data["sources"] = value()
        if rng.random() < 0.1:
            data["citations"] = value()
        runs.append(data)
    return runs


def export_all(runs_file: str) -> None:
    """In the tree this process runs from: every export of every run, as JSON on stdout."""
    from App_Function_Libraries.DB.export import export_note, export_report
    out = []
    for data in json.loads(Path(runs_file).read_text(encoding="utf-8")):
        row = {}
        for fmt in ("md", "html", "bib", "ris", "csl", "txt", "json"):
            for style in (None, "apa", "chicago"):
                row[f"{fmt}-{style}"] = _outcome(lambda: export_report(data, fmt, secrets=(), citation_style=style))
        note = {"title": "T", "content": "c", "report": data, "created_at": 0, "updated_at": 0}
        for fmt in ("bib", "md", "html"):
            row[f"note-{fmt}"] = _outcome(lambda: export_note(note, fmt, secrets=()))
        out.append(row)
    print(json.dumps(out))


def _outcome(fn) -> str:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - an export that fails is compared by its exception's name
        return f"!{type(exc).__name__}"


def run_tree(tree: Path, runs_file: Path) -> list[dict]:
    code = (f"import sys; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(ROOT)!r}); "
            f"from bench.export_differential import export_all; export_all({str(runs_file)!r})")
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the git revision to compare this tree with")
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    old = json.loads((ROOT / "Tests" / "data" / "old_saved_runs.json").read_text(encoding="utf-8"))
    runs = list(old.values()) + random_runs(args.runs, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
        runs_file = Path(tmp) / "runs.json"
        runs_file.write_text(json.dumps(runs), encoding="utf-8")
        was, now = run_tree(before, runs_file), run_tree(ROOT, runs_file)
    differ = [(i, key) for i, (a, b) in enumerate(zip(was, now)) for key in a if a[key] != b[key]]
    failed = sum(v.startswith("!") for row in was for v in row.values())
    print(f"{len(runs)} runs ({len(old)} old saved), {sum(len(r) for r in was)} exports each tree; "
          f"{len(differ)} differ; {failed} raised on {args.before} (compared by exception name)")
    for i, key in differ[:5]:
        print(f"run {i} {key}:")
        print("\n".join(difflib.unified_diff(was[i][key].splitlines(), now[i][key].splitlines(), args.before,
                                             "this tree", lineterm="", n=0)))


if __name__ == "__main__":
    main()
