"""Report presets: named report prompts (the report writer's instructions) saved next to config.txt, and the
built-in one. A preset that cannot be used, saved or found is a QuarryError (Research/presets.PresetError)
whose line says why.

    quarry.presets.names()                 # ["default", "terse", ...]
    quarry.presets.load("terse")           # its text ("default": the built-in prompt)
    quarry.presets.save("terse", text)     # its file name; refused when {question} or {sources} is missing
"""
from __future__ import annotations

DEFAULT_NAME = "default"


def names(settings=None) -> list[str]:
    """The built-in default first, then the saved presets' names, sorted."""
    from App_Function_Libraries.Research.presets import list_presets
    return [DEFAULT_NAME] + list_presets(settings)


def load(name: str, settings=None) -> str:
    from App_Function_Libraries.Research.presets import load_preset
    return load_preset(name or DEFAULT_NAME, settings)


def save(name: str, text: str, settings=None) -> str:
    """Save `text` as preset `name`; the name it is saved under (letters, digits, - and _)."""
    from App_Function_Libraries.Research.presets import save_preset
    return save_preset(name, text, settings)


def delete(name: str, settings=None) -> str:
    from App_Function_Libraries.Research.presets import delete_preset
    return delete_preset(name or "", settings)


def default_prompt() -> str:
    """The built-in report prompt."""
    from App_Function_Libraries.LLM.prompts import DEFAULT_AGGREGATION_PROMPT
    return DEFAULT_AGGREGATION_PROMPT


def is_default(text: str) -> bool:
    from App_Function_Libraries.Research.presets import is_default as same
    return same(text)
