"""Issue 15's done-when check, exactly: every captured scholarly answer (../shared/data/search_api, read in place)
goes through `python app.py search "q" --engine <name> --json`, with QUARRY_<ENGINE>_API_URL pointed at a
loopback server replaying it. A paper answer prints its papers (exit 0); an error answer prints one error line in
the JSON (exit 1), never a traceback. Skipped when the folder is absent."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from Tests.conftest import ROOT, SHARED_DATA
from Tests.support.scholarly_replay import engine_url, expected_count, replay, scholarly_samples

SAMPLES = scholarly_samples(SHARED_DATA / "search_api")


@pytest.mark.skipif(not SAMPLES, reason=f"no captured scholarly answers at {SHARED_DATA / 'search_api'}")
@pytest.mark.parametrize("sample", SAMPLES, ids=[s.path.name for s in SAMPLES])
def test_cli_search_parses_the_captured_answer(sample, world, tmp_path):
    replay(world, sample)
    config = tmp_path / "config.txt"
    config.write_text(f"[databases]\nresearch_db = {tmp_path / 'q.db'}\nnotes_db = {tmp_path / 'q.db'}\n"
                      "[search]\nsearch_max_retries = 0\n", encoding="utf-8")
    env = {**os.environ, "QUARRY_CONFIG": str(config), "GRADIO_ANALYTICS_ENABLED": "False",
           f"QUARRY_{sample.engine.upper()}_API_URL": engine_url(world, sample.engine)}
    done = subprocess.run([sys.executable, "app.py", "search", "q", "--engine", sample.engine, "--json",
                           "--count", "100"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert world.requests, "the CLI did not reach the replaying server"
    if sample.is_error:
        assert done.returncode == 1 and answer["error"] and "\n" not in answer["error"]
        assert answer["results"] == []
    else:
        assert done.returncode == 0 and answer["error"] is None, answer["error"]
        assert len(answer["results"]) == expected_count(sample)
        assert all(r["metadata"]["paper"] for r in answer["results"])
