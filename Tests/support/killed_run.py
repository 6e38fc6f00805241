"""A research killed with SIGKILL while it reads pages: `python app.py research` in a child process on the mini
web, two of whose pages (HELD) never answer while it runs, killed once it has kept the pages that answer and is
waiting on the held ones; then the held pages answer again (for the resumed run and an uninterrupted one). Used by Tests/test_research_resume.py and bench/resume_overhead.py.

    run_id, kept = start_and_kill(config_path, db_path, fast_pages)   # the run's id, the URLs it had kept
"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.testworld import TestWorld

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How do honey bees communicate the location of food?"
HELD = ("/web/bees/navigation-faq", "/web/bees/history")  # hang until the run is killed
FAST_PAGES = 4  # the run reads 6 pages: 4 answer at once
ARGS = [QUESTION, "--no-llm", "--no-cache", "--json"]


def held_web(world: TestWorld) -> MiniWeb:
    """The mini web (no fault pages); start_and_kill holds its HELD pages while the run it kills runs."""
    return MiniWeb(world, include_faults=False).install()


def config_values(web: MiniWeb, db: Path) -> dict:
    values = research_config(web, fetch={"read_timeout_seconds": 10, "total_timeout_seconds": 15})
    values["databases"] = {"research_db": str(db), "notes_db": str(db)}
    return values


def kept_pages(db: Path, after: float = 0.0) -> tuple[str, list[str]]:
    """(the id of the newest run started after `after`, the URLs it has kept) as the database file holds them
    now (("", []) before it begins)."""
    if not db.exists():
        return "", []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            run = conn.execute("SELECT id FROM runs WHERE started_at > ? ORDER BY started_at DESC LIMIT 1",
                               [after]).fetchone()
            urls = [r[0] for r in conn.execute("SELECT url FROM run_pages WHERE run_id = ?", [run[0] if run else ""])]
    except sqlite3.OperationalError:  # the schema is not there yet
        return "", []
    return (run[0] if run else ""), urls


def start_and_kill(config_path: Path, db: Path, world: TestWorld, fast_pages: int, timeout: float = 60.0,
                   newest: bool = False) -> tuple[str, list[str]]:
    """Run the research in a child process; SIGKILL it once `fast_pages` pages are kept and every HELD page has
    been asked for (`newest`: since this call; the file may hold earlier runs). Returns (run id, URLs kept
    before the kill)."""
    after = time.time() if newest else 0.0
    asked = {p: len(world.requests_to(p)) for p in HELD}
    for path in HELD:
        world.fault(path, hang=True)
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "app.py", "--config", str(config_path), "research", *ARGS], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run_id, urls = kept_pages(db, after)
            if len(urls) >= fast_pages and all(len(world.requests_to(p)) > asked[p] for p in HELD):
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
                return run_id, kept_pages(db, after)[1]
            if proc.poll() is not None:
                raise RuntimeError(f"the run ended before it was killed: {proc.stderr.read()[-2000:]!r}")
            time.sleep(0.02)
        raise TimeoutError("the run kept too few pages in time")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        proc.stderr.close()
        world.clear_faults()  # the held pages answer again
