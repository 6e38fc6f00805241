"""What the embedding model's load costs a CLI research: `python app.py research` wall time, each run a fresh
process as a user starts it, on the test world's small web (SearXNG-format search, 8 articles, no LLM,
embeddings on), for

  found    a question the search finds pages for (the model ranks them: the run must load it)
  nothing  a question the search finds nothing for (nothing to rank: the run need not load it)

Also the seconds the run waited for the model (its `embedding_model` timing, where the pipeline records one)
and whether the process loaded it at all (sentence_transformers imported). Median of --runs runs each.
--baseline DIR runs the same cases, taking turns, with another copy of Quarry (e.g. main's: `git archive main |
tar -x -C DIR`), so both versions are measured under the same load.

    python bench/embedding_load.py [--runs 2] [--baseline DIR]

Last line (with --baseline, a line for each, "baseline" first, then the ratios this/baseline):
    embedding_load: found wall=<s> model_wait=<s> loaded=<yes|no> | nothing wall=<s> model_wait=<s> loaded=<yes|no>
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = {"found": "How do honey bees communicate the location of food?",
             "nothing": "Qwxz vrpl jmkt zzyq?"}
# Run inside the CLI's process: the research command, then whether the embedding model's library was loaded
CHILD = ("import sys; from App_Function_Libraries.CLI.main import main; code = main(sys.argv[1:]); "
         "print('LOADED=' + str('sentence_transformers' in sys.modules), file=sys.stderr); sys.exit(code)")


def write_config(workdir: Path) -> Path:
    from Tests.support.mini_web import MiniWeb, research_config
    from Tests.support.testworld import TestWorld
    world = TestWorld().start()
    web = MiniWeb(world, include_faults=False, slow_chunk_delay=0.0).install()
    values = research_config(web, None, embeddings=True, research={"pages_max": 8}, search={"search_result_max": 8})
    values["databases"] = {"research_db": str(workdir / "q.db"), "notes_db": str(workdir / "q.db")}
    values["documents"] = {"index_dir": str(workdir / "docs")}
    values["wikipedia"] = {"index_dir": str(workdir / "wiki")}
    path = workdir / "config.txt"
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in values.items()),
                    encoding="utf-8")
    write_config.world = world  # kept running for the runs
    return path


def run_once(config: Path, question: str, tree: Path = ROOT) -> dict:
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, "--config", str(config), "research", question, "--no-llm",
                           "--no-save", "--json"], cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - started
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"research failed ({done.returncode}): {done.stderr[-2000:]}") from None
    return {"wall": wall, "wait": result.get("timings", {}).get("embedding_model", 0.0),
            "loaded": "LOADED=True" in done.stderr, "sources": len(result.get("sources", []))}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--baseline", type=Path, help="another copy of Quarry to measure in turns with this one")
    args = parser.parse_args(argv)
    trees = {"baseline": args.baseline.resolve()} if args.baseline else {}
    trees["this"] = ROOT
    runs: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="quarry-embedding-load-") as tmp:
        config = write_config(Path(tmp))
        try:
            for _ in range(args.runs):
                for case, question in QUESTIONS.items():
                    for name, tree in trees.items():
                        r = run_once(config, question, tree)
                        runs.setdefault((name, case), []).append(r)
                        print(f"{name} {case}: wall {r['wall']:.1f} s, waited {r['wait']:.1f} s for the model, "
                              f"{r['sources']} sources, model loaded: {r['loaded']}", flush=True)
        finally:
            write_config.world.stop()
    wall = {key: statistics.median(r["wall"] for r in rs) for key, rs in runs.items()}
    for name in trees:
        print("embedding_load: " + (f"{name} " if args.baseline else "") + " | ".join(
            f"{case} wall={wall[name, case]:.1f} model_wait={statistics.median(r['wait'] for r in runs[name, case]):.1f} "
            f"loaded={'yes' if any(r['loaded'] for r in runs[name, case]) else 'no'}" for case in QUESTIONS))
    if args.baseline:
        print("embedding_load: ratio this/baseline " + " ".join(
            f"{case}={wall['this', case] / wall['baseline', case]:.2f}" for case in QUESTIONS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
