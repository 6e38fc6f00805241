"""Without Chromium the browser tests skip on a developer's machine but fail in CI (.ci/run requires them)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from Tests.support import browser

ROOT = Path(__file__).resolve().parent.parent


def test_missing_chromium_skips_locally(monkeypatch, tmp_path):
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.delenv(browser.REQUIRE_BROWSER, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium at"):
        browser.require_chromium()


def test_missing_chromium_fails_where_required(monkeypatch, tmp_path):
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.setenv(browser.REQUIRE_BROWSER, "1")
    with pytest.raises(pytest.fail.Exception, match="QUARRY_REQUIRE_BROWSER=1 says the browser tests must run"):
        browser.require_chromium()


def test_present_chromium_neither_skips_nor_fails(monkeypatch, tmp_path):
    (tmp_path / "chromium").write_text("")
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "chromium"))
    monkeypatch.setenv(browser.REQUIRE_BROWSER, "1")
    browser.require_chromium()


def test_ci_requires_the_browser_before_running_the_tests():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    required = re.search(r"^export QUARRY_REQUIRE_BROWSER=1$", script, re.M)
    tests = re.search(r"^pip install -r requirements-dev.txt && python -m pytest Tests$", script, re.M)
    assert required and tests and required.start() < tests.start()


def test_ci_requires_the_real_searxng_before_running_the_tests():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    required = re.search(r"^export QUARRY_REQUIRE_SEARXNG=1$", script, re.M)
    tests = re.search(r"^pip install -r requirements-dev.txt && python -m pytest Tests$", script, re.M)
    assert required and tests and required.start() < tests.start()
