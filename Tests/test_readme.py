"""The README's first steps are true: the Python it names is the one the pinned packages need, its LLM config
blocks load as they are written, and the default engine and mode it describes are the shipped ones."""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from App_Function_Libraries.config import DEFAULT_CONFIG_PATH, load_settings

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def pinned() -> list[Requirement]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.startswith(("#", "-"))]


def test_the_python_named_is_the_oldest_every_pinned_package_installs_on():
    named = re.search(r"Python (3\.\d+) or newer", README)
    assert named and "python3 -m venv" in README, "the README names no Python version or no virtual environment"
    minimum = named.group(1)
    needs = {}
    for req in pinned():
        try:
            spec = SpecifierSet(metadata.metadata(req.name).get("Requires-Python") or "")
        except metadata.PackageNotFoundError:
            continue
        needs[req.name] = spec
    assert needs["numpy"].contains(f"{minimum}.0") and not needs["numpy"].contains(
        f"3.{int(minimum.split('.')[1]) - 1}.99")  # numpy's floor is the README's
    refused = [name for name, spec in needs.items() if not spec.contains(f"{minimum}.0")]
    assert refused == [], f"pinned packages that need a newer Python than the README's {minimum}: {refused}"


def test_every_llm_block_of_the_readme_loads_and_names_an_llm(tmp_path):
    blocks = re.findall(r"```ini\n(.*?)```", README, re.S)
    assert len(blocks) >= 2, "the README shows no LLM configuration"
    for block in blocks:
        path = tmp_path / "config.txt"
        path.write_text(block, encoding="utf-8")
        settings = load_settings(path, env={})  # a wrong key or value raises ConfigError
        assert settings.llm.provider != "none" and settings.llm.base_url and settings.llm.model, block


def test_the_default_engine_and_mode_are_the_shipped_ones():
    shipped = load_settings(DEFAULT_CONFIG_PATH, env={})
    engine = re.search(r"The default engine, (\w+), needs no key but needs the internet", README)
    assert engine and engine.group(1).lower() == shipped.search.search_provider_default
    assert "Extractive by default" in README and shipped.llm.provider == "none"
