"""Local sources as engines: the search stage of a mixed research (the mini web's SearXNG, the demo Wikipedia
index and a small document library) on an earlier revision and on this tree, in one run, on the same test world,
index and library.

    python bench/local_fusion.py --before REV [--questions 12] [--repeats 3]

Each tree runs Research/pipeline.search_sources (a research's search stage: every query on every engine, fused
by rank) in a child process of its own, for the same questions (the honey-bee question the mini web answers and
the first answerable questions of the demo encyclopedia), after one untimed search that opens the index and the
library. Per question and tree it records the sources in order (URL, kind, fused score) and the stage's seconds.
The trees run in turns, --repeats times each (the machine's other load falls on both alike); a question's time is
its least over the repeats.

    same_order     questions whose sources come in the same order in both trees
    same_scores    questions whose fused scores are equal URL by URL (within 1e-9)
    dup            pages listed twice under two spellings of one address, summed over the questions
    local_top5     local sources (wikipedia, document) among the first five, summed
    seconds        median over the questions of the search stage's seconds, and after/before

Last line: local_fusion: questions=<n> same_order=<n> same_scores=<n> dup_before=<n> dup_after=<n>
local_top5_before=<n> local_top5_after=<n> seconds_before=<s> seconds_after=<s> ratio=<x> repeats_alike=<bool>
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from Tests.support.mini_web import MiniWeb, research_config  # noqa: E402
from Tests.support.testworld import TestWorld  # noqa: E402

QUESTION = "How do honey bees communicate the location of food?"
ENGINES = ["searxng", "wikipedia", "documents"]
CHILD = r"""
import dataclasses, json, sys, time
from App_Function_Libraries.config import load_settings
from App_Function_Libraries.records import ResearchResult
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import Run, Services, search_sources
settings = load_settings(sys.argv[1], env={})
questions, engines = json.loads(sys.argv[2]), json.loads(sys.argv[3])
services = Services.from_settings(settings, use_llm=False)
params = dataclasses.replace(ResearchParams.from_settings(settings), engines=engines, use_llm=False)
def stage(q):
    run = Run(ResearchResult(question=q, params=params.to_dict()), services, params, None, None)
    t0 = time.perf_counter()
    found = search_sources(run, params, [q], lambda f: f[:params.result_max])
    return time.perf_counter() - t0, found
stage(questions[0])  # opens the index and the library (a running app has): not timed
out = []
for q in questions:
    seconds, found = stage(q)
    out.append({"question": q, "seconds": seconds,
                "sources": [[s.url, s.kind, s.fused_score] for s in found]})
print(json.dumps(out))
"""


def write_config(web: MiniWeb, folder: Path) -> Path:
    values = research_config(web, embeddings=True, search={"search_cache_ttl_seconds": 0})
    values["databases"] = {"research_db": str(folder / "quarry.db"), "notes_db": str(folder / "quarry.db")}
    values["wikipedia"] = {"index_dir": str(folder / "wiki")}
    values["documents"] = {"index_dir": str(folder / "docs"), "kept_sources_dir": str(folder / "kept")}
    path = folder / "config.txt"
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) + "\n"
                            for s, kv in values.items()), encoding="utf-8")
    return path


def questions(count: int) -> list[str]:
    demo = ROOT / "App_Function_Libraries" / "Wikipedia" / "demo_corpus" / "questions.json"
    return [QUESTION] + json.loads(demo.read_text(encoding="utf-8"))["answerable"][:max(0, count - 1)]


def run_tree(tree: Path, config: Path, asked: list[str]) -> list[dict]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(config), json.dumps(asked), json.dumps(ENGINES)],
                          cwd=tree, capture_output=True, text=True, timeout=900,
                          env={"PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                               "PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def duplicates(sources: list[list]) -> int:
    from App_Function_Libraries.Search.urls import normalize_url
    keys = [normalize_url(url) for url, kind, _ in sources if url.startswith(("http://", "https://"))]
    return len(keys) - len(set(keys))


def compare(before: list[dict], after: list[dict]) -> dict:
    same_order = same_scores = 0
    for old, new in zip(before, after):
        same_order += [s[0] for s in old["sources"]] == [s[0] for s in new["sources"]]
        old_scores = {url: score for url, _, score in old["sources"]}
        same_scores += old_scores.keys() == {url for url, _, _ in new["sources"]} and all(
            abs(old_scores[url] - score) <= 1e-9 for url, _, score in new["sources"])
    top5 = {name: sum(kind in ("wikipedia", "document") for q in runs for _, kind, _ in q["sources"][:5])
            for name, runs in (("before", before), ("after", after))}
    seconds = {name: statistics.median(q["seconds"] for q in runs) for name, runs in (("before", before),
                                                                                      ("after", after))}
    # (each question's seconds: its least over the repeats, see fastest())
    return {"questions": len(after), "same_order": same_order, "same_scores": same_scores,
            "dup_before": sum(duplicates(q["sources"]) for q in before),
            "dup_after": sum(duplicates(q["sources"]) for q in after),
            "local_top5_before": top5["before"], "local_top5_after": top5["after"],
            "seconds_before": round(seconds["before"], 3), "seconds_after": round(seconds["after"], 3),
            "ratio": round(seconds["after"] / seconds["before"], 2) if seconds["before"] else None,
            "repeats_alike": all(q["stable"] for q in before + after)}


def fastest(repeats: list[list[dict]]) -> list[dict]:
    """The first repeat's rankings, each question's least seconds, and whether every repeat ranked alike."""
    first = repeats[0]
    stable = all([q["sources"] for q in other] == [q["sources"] for q in first] for other in repeats[1:])
    return [{**q, "seconds": min(r[i]["seconds"] for r in repeats), "stable": stable} for i, q in enumerate(first)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="git revision to compare with (e.g. main)")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from App_Function_Libraries import config as config_mod
    from Tests.support.all_sources import set_up_local_sources
    asked = questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="quarry-local-fusion-") as tmp, TestWorld() as world:
        work = Path(tmp)
        web = MiniWeb(world, include_faults=False).install()
        path = write_config(web, work)
        settings = config_mod.load_settings(path, env={})
        config_mod.set_settings(settings)
        set_up_local_sources(settings, work)  # the demo index and a library of hive notes, built once
        old = work / "before"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        runs: dict[str, list[list[dict]]] = {"before": [], "after": []}
        for _ in range(max(1, args.repeats)):
            runs["before"].append(run_tree(old, path, asked))
            runs["after"].append(run_tree(ROOT, path, asked))
    before, after = fastest(runs["before"]), fastest(runs["after"])
    for old_q, new_q in zip(before, after):
        print(f"{new_q['question'][:60]!r}: before {[s[1][:3] for s in old_q['sources'][:10]]} "
              f"after {[s[1][:3] for s in new_q['sources'][:10]]}")
    found = compare(before, after)
    print("local_fusion: " + " ".join(f"{k}={v}" for k, v in found.items()))


if __name__ == "__main__":
    main()
