"""The CLI's progress on stderr is our own lines only: loading the embedding model prints no library progress
bar ("Loading weights: 100%|…", whose carriage returns also showed as a blank line before `embedding_model`)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How do honey bees communicate the location of food?"
OUR_LINE = re.compile(r"^\[ *\d+\.\ds\] [a-z_]+: ")


@pytest.mark.slow
def test_research_progress_has_no_library_bar_and_no_blank_line(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=True, research={"pages_max": 3}))
    # a fresh process, so the model really loads here; text=True reads a bar's \r as a line break, as a terminal
    # log would show it
    run = subprocess.run([sys.executable, str(ROOT / "app.py"), "--config", str(settings.path), "research",
                          QUESTION, "--no-llm", "--md", "--no-save"], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stderr.splitlines()
    assert any(line.startswith("[") and "embedding_model: loaded in " in line for line in lines)  # the model loaded
    assert "Loading weights" not in run.stderr and "it/s" not in run.stderr
    assert [line for line in lines if not OUR_LINE.match(line)] == []  # no blank line, nothing but ours
    assert run.stdout.startswith(f"# {QUESTION}")


@pytest.mark.parametrize("bars_on", [True, False])
def test_quiet_model_load_silences_transformers_bars_and_restores_them(bars_on):
    from transformers.utils import logging as hf_logging

    from App_Function_Libraries.Retrieval.embeddings import quiet_model_load
    before = hf_logging.is_progress_bar_enabled()
    (hf_logging.enable_progress_bar if bars_on else hf_logging.disable_progress_bar)()
    try:
        with quiet_model_load():
            assert not hf_logging.is_progress_bar_enabled()
        assert hf_logging.is_progress_bar_enabled() == bars_on  # other bars are left as they were
    finally:
        (hf_logging.enable_progress_bar if before else hf_logging.disable_progress_bar)()
