"""Without a system tool or font (poppler-utils, a CJK font, Pango, openssl) the tests that need it skip on a
fresh machine, saying what to install, but fail in CI (.ci/run installs them and requires them)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from Tests.support import system_tools

ROOT = Path(__file__).resolve().parent.parent


def test_a_missing_cjk_font_skips_locally_naming_the_package(monkeypatch):
    monkeypatch.setattr(system_tools, "has_cjk_font", lambda: False)
    monkeypatch.delenv(system_tools.REQUIRE_SYSTEM_TOOLS, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"a CJK font .* is not installed .*apt-get install fonts-wqy-zenhei"):
        system_tools.require_cjk_font()


def test_a_missing_tool_fails_where_required(monkeypatch):
    monkeypatch.setenv(system_tools.REQUIRE_SYSTEM_TOOLS, "1")
    with pytest.raises(pytest.fail.Exception, match="QUARRY_REQUIRE_SYSTEM_TOOLS=1 says the tests that need it must run"):
        system_tools.require_tool("no-such-tool-quarry")
    monkeypatch.setattr(system_tools, "has_pango", lambda: False)
    with pytest.raises(pytest.fail.Exception, match=r"Pango .* apt-get install libpango-1.0-0"):
        system_tools.require_pango()


def test_present_tools_neither_skip_nor_fail(monkeypatch):
    monkeypatch.setenv(system_tools.REQUIRE_SYSTEM_TOOLS, "1")
    monkeypatch.setattr(system_tools, "has_cjk_font", lambda: True)
    monkeypatch.setattr(system_tools.shutil, "which", lambda name: f"/usr/bin/{name}")
    system_tools.require_cjk_font()
    system_tools.require_tool("pdftotext")


def test_the_cjk_font_is_found_as_fontconfig_lists_it(monkeypatch):
    """A control for the checks above: fc-list's answer decides (an empty list: no CJK font)."""
    import subprocess
    answers = {"": False, "WenQuanYi Zen Hei\n": True}
    for listed, found in answers.items():
        monkeypatch.setattr(system_tools.shutil, "which", lambda name: "/usr/bin/fc-list")
        monkeypatch.setattr(system_tools.subprocess, "run",
                            lambda *a, listed=listed, **k: subprocess.CompletedProcess(a, 0, listed, ""))
        assert system_tools.has_cjk_font() is found


def test_ci_requires_the_system_tools_before_running_the_tests():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    required = re.search(rf"^export {system_tools.REQUIRE_SYSTEM_TOOLS}=1$", script, re.M)
    tests = re.search(r"^pip install -r requirements-dev.txt && python -m pytest Tests$", script, re.M)
    assert required and tests and required.start() < tests.start()
