"""Durable runs and watchlists, measured on the test world (extractive, caches off, every page answering
--delay seconds late, as a slow web would), all in one run:

  full          an uninterrupted research (durable: each stage committed, each page kept as read)
  plain         the same research not durable (nothing committed until the end): what checkpointing costs
  resume        a research of the same question killed with SIGKILL (in a child process) once it has read 4
                of its 6 pages, then resumed: the resume's own wall time (the 2 unread pages, the report)
  nothing_new   a watch run of the finished research on the unchanged world: what a "nothing new" costs

Each timed --repeats times in turns; medians compared. Times are in-process (no interpreter start-up), after
one untimed warm-up run.

    python bench/durable_runs.py [--delay 0.5] [--repeats 3]

Last lines:
    durable: full=<s> plain=<s> checkpoint_overhead=<x>
    resume: full=<s> resume_after_kill=<s> resume_ratio=<x> pages_fetched_again=<n>
    watch: full=<s> nothing_new=<s> ratio=<x>
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

from App_Function_Libraries import config as config_mod  # noqa: E402
from App_Function_Libraries import quarry  # noqa: E402
from Tests.support.killed_run import FAST_PAGES, QUESTION, config_values, held_web, start_and_kill  # noqa: E402
from Tests.support.testworld import TestWorld  # noqa: E402


def write_config(folder: Path, values: dict) -> Path:
    text = "".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in values.items())
    path = folder / "config.txt"
    path.write_text(text, encoding="utf-8")
    return path


def delay_pages(world: TestWorld, web, delay: float) -> None:
    for page in web.pages:
        world.fault("/web/" + page.path, delay=delay)


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--delay", type=float, default=0.5, help="seconds each page answers late")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    world = TestWorld().start()
    folder = Path(tempfile.mkdtemp(prefix="quarry-durable-bench-"))
    try:
        web = held_web(world)
        delay_pages(world, web, args.delay)
        values = config_values(web, folder / "quarry.db")
        values.setdefault("research", {}).update({"use_embeddings": "false"})
        path = write_config(folder, values)
        settings = config_mod.load_settings(path, env={})
        config_mod.set_settings(settings)

        def research(durable: bool):
            return quarry.research(QUESTION, no_llm=True, use_cache=False, durable=durable, settings=settings)

        research(True)  # warm-up, untimed
        full, plain, resumed, nothing, refetched = [], [], [], [], []
        for _ in range(args.repeats):
            seconds, result = timed(lambda: research(True))
            full.append(seconds)
            plain.append(timed(lambda: research(False))[0])
            run_id, kept = start_and_kill(path, folder / "quarry.db", world, FAST_PAGES, newest=True)
            delay_pages(world, web, args.delay)  # start_and_kill cleared its faults
            before = {url: len(world.requests_to(url.split(str(world.port), 1)[1])) for url in kept}
            resumed.append(timed(lambda: quarry.runs.resume(run_id, settings=settings))[0])
            refetched.append(sum(len(world.requests_to(url.split(str(world.port), 1)[1])) - n
                                 for url, n in before.items()))
            watch = quarry.watch.add(result.id, "1d", settings=settings)
            seconds, outcome = timed(lambda: quarry.watch.run(watch.id, settings))
            assert outcome.nothing_new, outcome.summary()
            nothing.append(seconds)
            quarry.watch.remove(watch.id, settings=settings)
        f, p, r, n = (statistics.median(x) for x in (full, plain, resumed, nothing))
        print(f"durable: full={f:.2f} plain={p:.2f} checkpoint_overhead={f / p:.2f}x")
        print(f"resume: full={f:.2f} resume_after_kill={r:.2f} resume_ratio={r / f:.2f}x "
              f"pages_fetched_again={sum(refetched)}")
        print(f"watch: full={f:.2f} nothing_new={n:.2f} ratio={n / f:.2f}x")
    finally:
        world.stop()
        config_mod.set_settings(None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
