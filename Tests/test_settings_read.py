"""Every setting config.py validates is read somewhere outside config.py: a key that changes nothing does not
stay validated and documented."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from App_Function_Libraries.config import ENGINES, SECTION_TYPES

ROOT = Path(__file__).resolve().parent.parent
ENGINE_KEY = re.compile(rf"({'|'.join(ENGINES)})_api_(url|key)")  # read as settings.engines.url(e) / .key(e)


def project_code(root: Path = ROOT) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (root / "App_Function_Libraries").rglob("*.py")
                     if p.name != "config.py")


def unread_settings(code: str, sections: dict[str, type] = SECTION_TYPES) -> list[str]:
    """'[section] key' for every setting neither read as an attribute (.key) nor named as a string ('key')."""
    unread = []
    for section, cls in sections.items():
        for f in dataclasses.fields(cls):
            if section == "engines" and ENGINE_KEY.fullmatch(f.name):
                continue
            if not re.search(rf"\.{f.name}\b|[\"']{f.name}[\"']", code):
                unread.append(f"[{section}] {f.name}")
    return unread


def test_every_setting_is_read_somewhere():
    assert unread_settings(project_code()) == []


def test_a_setting_nothing_reads_is_found():
    """Control: the check is not vacuous."""
    @dataclasses.dataclass
    class Demo:
        used_knob: int = 1
        forgotten_knob: int = 2
    assert unread_settings("x = settings.demo.used_knob\n", {"demo": Demo}) == ["[demo] forgotten_knob"]
