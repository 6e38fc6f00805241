"""Shared fixtures: the offline test world and settings pointed at it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from App_Function_Libraries import config as config_mod  # noqa: E402
from Tests.support.testworld import TestWorld  # noqa: E402

SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def world():
    w = TestWorld().start()
    yield w
    w.stop()


@pytest.fixture
def make_settings(tmp_path):
    """make_settings({"section": {"key": "value"}}) -> Settings from a fresh config file in tmp_path.

    Databases and indexes go to tmp_path; private addresses are allowed (the test world is loopback)."""
    def factory(values: dict | None = None, env: dict | None = None):
        base = {"databases": {"research_db": str(tmp_path / "quarry.db"), "notes_db": str(tmp_path / "quarry.db")},
                "fetch": {"allow_private_addresses": "true"},
                "wikipedia": {"index_dir": str(tmp_path / "wiki")},
                "documents": {"index_dir": str(tmp_path / "docs"), "kept_sources_dir": str(tmp_path / "kept")}}
        for section, kv in (values or {}).items():
            base.setdefault(section, {}).update({k: str(v) for k, v in kv.items()})
        text = "".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in base.items())
        path = tmp_path / "config.txt"
        path.write_text(text, encoding="utf-8")
        settings = config_mod.load_settings(path, env=env or {})
        config_mod.set_settings(settings)
        return settings
    yield factory
    config_mod.set_settings(None)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: uses a real model (runs in CI, can be skipped with -m 'not slow')")
    config.addinivalue_line("markers", "browser: drives Chromium through Playwright")
