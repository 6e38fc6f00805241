"""First research after the UI starts: how long the first question asked in a freshly started UI takes,
on the test world (the mini web's SearXNG and pages, no LLM: relevance, ranking and the brief use the real
embedding model, which is what the first run used to wait for).

Each run starts `python app.py` on a new config, waits for its first HTTP 200 plus --delay seconds (a person
reading the page and typing), then asks the UI server's /research endpoint (the same pipeline the Web Search
tab runs) and times the answer. `--app-root DIR` runs another checkout's app.py (e.g. a worktree of an
earlier commit) on the same test world, for a before/after comparison in one run.

    python bench/first_research.py [--runs 3] [--delay 0 5] [--app-root DIR ...]
Last lines: first_research: root=<dir> delay=<s> research=<median s> start_to_report=<median s>
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from Tests.support.app_process import start_app, stop_app  # noqa: E402
from Tests.support.mini_web import MiniWeb, research_config  # noqa: E402
from Tests.support.testworld import TestWorld  # noqa: E402

QUESTION = "How do honey bees communicate the location of food?"


def write_config(web: MiniWeb, folder: Path) -> Path:
    values = research_config(web, embeddings=True, search={"search_cache_ttl_seconds": 0},
                             fetch={"cache_ttl_seconds": 0})
    values["databases"] = {"research_db": str(folder / "quarry.db"), "notes_db": str(folder / "quarry.db")}
    path = folder / "config.txt"
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) + "\n"
                            for s, kv in values.items()), encoding="utf-8")
    return path


def one_run(root: Path, web: MiniWeb, delay: float) -> tuple[float, float]:
    """(seconds the first research took, seconds from starting the app to its report)."""
    from gradio_client import Client
    folder = Path(tempfile.mkdtemp(prefix="quarry-first-research-"))
    config = write_config(web, folder)
    t0 = time.perf_counter()
    proc, url, _ = start_app(["--config", str(config)], env={"QUARRY_CONFIG": "", "HF_HUB_OFFLINE": "1",
                                                             "TRANSFORMERS_OFFLINE": "1"}, root=root)
    try:
        time.sleep(delay)
        client = Client(url, verbose=False)
        t1 = time.perf_counter()
        report = client.predict(question=QUESTION, engines="searxng", no_llm=True, api_name="/research")
        t2 = time.perf_counter()
    finally:
        stop_app(proc)
    if not report.get("citations"):
        raise RuntimeError(f"the research wrote no cited report: {report.get('errors')}")
    return t2 - t1, t2 - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--delay", type=float, nargs="+", default=[0.0, 5.0],
                    help="seconds between the first HTTP 200 and the question (default: 0 and 5)")
    ap.add_argument("--app-root", nargs="+", default=[str(ROOT)], help="checkouts whose app.py to time")
    args = ap.parse_args()
    world = TestWorld().start()
    try:
        web = MiniWeb(world, include_faults=False).install()
        lines = []
        for root in args.app_root:
            for delay in args.delay:
                times = []
                for i in range(args.runs):
                    times.append(one_run(Path(root), web, delay))
                    print(f"{root} delay={delay:g}s run {i + 1}: research={times[-1][0]:.2f}s "
                          f"start_to_report={times[-1][1]:.2f}s", flush=True)
                lines.append(f"first_research: root={root} delay={delay:g} "
                             f"research={statistics.median(t for t, _ in times):.2f} "
                             f"start_to_report={statistics.median(s for _, s in times):.2f}")
        print("\n".join(lines))
    finally:
        world.stop()


if __name__ == "__main__":
    main()
