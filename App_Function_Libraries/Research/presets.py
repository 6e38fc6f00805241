"""Named aggregation-prompt presets: the report writer's instructions, editable by the user.

Each preset is a UTF-8 file `<config folder>/report_presets/NAME.txt` (next to config.txt, so a test or a
second config keeps its own). The default prompt lives in LLM/prompts.py (DEFAULT_AGGREGATION_PROMPT) and is
not a file: the name "default" always means it, cannot be overwritten and is what "reset" restores.

A preset must contain {sources} exactly once and {question} at least once; one that does not is refused with
a one-line message naming what is missing. Names are reduced to letters, digits, "-" and "_" (no path can be
spelled), at most 60 characters.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.errors import QuarryError

DEFAULT_NAME = "default"
FOLDER = "report_presets"
SUFFIX = ".txt"
MAX_NAME_CHARS = 60
MAX_PRESET_CHARS = 20_000


class PresetError(QuarryError, ValueError):
    """A preset that cannot be saved, loaded or used; str() is the message for the user."""


def validate_template(text: str) -> str:
    """The template, stripped, when it can be used as report instructions; else PresetError."""
    text = (text or "").strip()
    if not text:
        raise PresetError("the report prompt is empty")
    if len(text) > MAX_PRESET_CHARS:
        raise PresetError(f"the report prompt is longer than {MAX_PRESET_CHARS:,} characters")
    missing = prompts.missing_placeholders(text)
    if missing:
        names = " and ".join("{" + m + "}" for m in missing)
        raise PresetError(f"the report prompt has no {names} placeholder: the "
                          + ("sources and the question are" if len(missing) > 1 else
                             "sources are" if missing == ["sources"] else "question is")
                          + " inserted there")
    if text.count("{sources}") > 1:
        raise PresetError("the report prompt holds {sources} more than once; keep one")
    return text


def is_default(text: str) -> bool:
    """Whether `text` is the built-in prompt (whitespace at the ends ignored)."""
    return (text or "").strip() == prompts.DEFAULT_AGGREGATION_PROMPT.strip()


def sanitize_name(name: str) -> str:
    """A safe file stem for a preset name, or PresetError when nothing usable is left."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", (name or "").strip()).strip("-_")[:MAX_NAME_CHARS]
    if not cleaned:
        raise PresetError("give the preset a name (letters, digits, - and _)")
    return cleaned


def presets_dir(settings: Settings | None = None) -> Path:
    settings = settings or get_settings()
    return Path(settings.path).resolve().parent / FOLDER


def list_presets(settings: Settings | None = None) -> list[str]:
    """The saved presets' names, sorted (the built-in default is not among them)."""
    folder = presets_dir(settings)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*" + SUFFIX) if p.is_file() and p.stem != DEFAULT_NAME)


def load_preset(name: str, settings: Settings | None = None) -> str:
    """The text of preset `name` ("default": the built-in prompt). Raises PresetError."""
    stem = sanitize_name(name)
    if stem == DEFAULT_NAME:
        return prompts.DEFAULT_AGGREGATION_PROMPT
    path = presets_dir(settings) / (stem + SUFFIX)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        known = ", ".join([DEFAULT_NAME] + list_presets(settings))
        raise PresetError(f"no report preset named {stem!r}; presets: {known}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PresetError(f"cannot read report preset {stem!r}: {exc}") from None
    return validate_template(text)


def save_preset(name: str, text: str, settings: Settings | None = None) -> str:
    """Save (or replace) a preset after checking it; returns the name it was saved under."""
    stem = sanitize_name(name)
    if stem == DEFAULT_NAME:
        raise PresetError("'default' is the built-in prompt; save your version under another name")
    body = validate_template(text)
    folder = presets_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body + "\n")
        os.replace(tmp, folder / (stem + SUFFIX))  # whole or not at all
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return stem


def delete_preset(name: str, settings: Settings | None = None) -> str:
    stem = sanitize_name(name)
    if stem == DEFAULT_NAME:
        raise PresetError("the built-in default prompt cannot be deleted")
    path = presets_dir(settings) / (stem + SUFFIX)
    if not path.is_file():
        raise PresetError(f"no report preset named {stem!r}")
    path.unlink()
    return stem
