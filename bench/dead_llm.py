"""What a dead LLM server costs one research run: requests it receives and wall seconds.

The test world's small web (8 articles and one mirror of each, no fault pages) behind its SearXNG-format
search API; 8 results kept, 8 pages read; embeddings off. The LLM is an OpenAI-compatible address that is
down, one of three ways (each on a server of its own, so every request counted is one Quarry sent it):

  503      answers every request "503 Service Unavailable" (a proxy in front of a stopped server)
  hang     accepts the connection, reads the request and never answers
  refused  nothing listens on the port (requests cannot be counted: shown as -)

The LLM settings are those of the issue: timeout_seconds = 5, max_retries = 3.

    python bench/dead_llm.py [--modes 503,hang] [--timeout 5] [--retries 3]

Last line:
    dead_llm: 503 requests=<n> wall=<s> mode=<report mode> notes=<n> | hang requests=<n> wall=<s> ...
Goal: requests <= max_retries + 1 per run, wall about one timeout-with-retries.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTION = "How do honey bees communicate the location of food?"


def run_once(mode: str, timeout: float, retries: int, workdir: Path) -> dict:
    from App_Function_Libraries import config
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.pipeline import Services, process_question
    from Tests.support.mini_web import MiniWeb, research_config
    from Tests.support.openai_server import DeadLLM
    from Tests.support.testworld import TestWorld
    world = TestWorld().start()
    dead = DeadLLM(mode).start()
    try:
        web = MiniWeb(world, include_faults=False, mirrors=1, slow_chunk_delay=0.0).install()
        values = research_config(web, dead.base_url,
                                 research={"pages_max": 8}, search={"search_result_max": 8},
                                 llm={"timeout_seconds": timeout, "max_retries": retries})
        db = workdir / f"{mode}.db"
        values["databases"] = {"research_db": str(db), "notes_db": str(db)}
        path = workdir / f"{mode}.txt"
        path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items())
                                for s, kv in values.items()), encoding="utf-8")
        settings = config.load_settings(path, env={})
        config.set_settings(settings)
        services = Services.from_settings(settings)
        services.fetcher = PageFetcher(settings.fetch)
        started = time.perf_counter()
        result = process_question(QUESTION, services=services)
        wall = time.perf_counter() - started
        llm_notes = [e for e in result.errors if "LLM" in e or "llm" in e]
        return {"mode": mode, "requests": dead.requests(), "wall": wall, "report": result.mode,
                "notes": len(llm_notes), "errors": result.errors,
                "pages": sum(1 for s in result.sources if s.fetched)}
    finally:
        dead.stop()
        world.stop()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="503,hang", help="comma-separated: 503, hang, refused")
    parser.add_argument("--timeout", type=float, default=5.0, help="[llm] timeout_seconds")
    parser.add_argument("--retries", type=int, default=3, help="[llm] max_retries")
    parser.add_argument("--verbose", action="store_true", help="print each run's errors")
    args = parser.parse_args(argv)
    parts = []
    with tempfile.TemporaryDirectory(prefix="quarry-dead-llm-") as tmp:
        for mode in args.modes.split(","):
            out = run_once(mode.strip(), args.timeout, args.retries, Path(tmp))
            if args.verbose:
                print(f"{mode}: {out['pages']} pages read; errors:", *out["errors"], sep="\n  ", flush=True)
            requests = "-" if out["requests"] is None else out["requests"]
            parts.append(f"{out['mode']} requests={requests} wall={out['wall']:.1f}s mode={out['report']} "
                         f"llm_notes={out['notes']}")
    print("dead_llm: " + " | ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
