"""What the Settings tab edits, and saving it: field specs, current values, an all-or-nothing save.

Key fields are never filled in: the form shows "(set)"/"(not set)" as a placeholder, an empty key field
means "keep the saved key", and a key is removed only by naming it in `clear_keys`. Role sections
([llm_subquery], …) show what the file says, so an empty value visibly means "inherit from [llm]".
"""
from __future__ import annotations

import configparser
import dataclasses
import os
import shutil
import typing
from dataclasses import dataclass
from pathlib import Path

from App_Function_Libraries import options
from App_Function_Libraries.config import (ENGINES, LOCAL_SOURCES, LLM_PROVIDERS, LLM_ROLES, ROLE_SECTION_PREFIX, ConfigError,
                                           EngineSettings, Settings, is_secret, load_settings, mask,
                                           set_settings, update_config_file)

LLM_SCOPES = ("llm",) + tuple(ROLE_SECTION_PREFIX + r for r in LLM_ROLES)
LLM_KEYS = ("provider", "base_url", "model", "api_key")
INHERIT = "inherit"


@dataclass(frozen=True)
class FieldSpec:
    """One field; choices: the values, or (label, value) pairs; kind "bool": a checkbox."""
    section: str
    key: str
    label: str
    choices: tuple = ()
    kind: str = "text"

    @property
    def secret(self) -> bool:
        return is_secret(self.section, self.key)

    @property
    def name(self) -> str:
        return f"[{self.section}] {self.key}"


def scope_title(section: str) -> str:
    if section == "llm":
        return "Default LLM (every role)"
    return f"Role: {section[len(ROLE_SECTION_PREFIX):].replace('_', ' ')}"


def llm_fields(section: str) -> list[FieldSpec]:
    providers = LLM_PROVIDERS if section == "llm" else (INHERIT,) + LLM_PROVIDERS
    labels = {"provider": "provider", "base_url": "API URL", "model": "model", "api_key": "API key"}
    return [FieldSpec(section, k, labels[k], providers if k == "provider" else ()) for k in LLM_KEYS]


ENGINE_LABELS = {"api_url": "API URL", "api_key": "API key", "search_engine_id": "search engine ID (cx)",
                 "backend": "ddgs backend"}


def engine_fields(engine: str) -> list[FieldSpec]:
    """The engine's settings that it uses: DuckDuckGo (through ddgs) has no URL or key to show."""
    from App_Function_Libraries import quarry
    unused = set() if quarry.web.engine_uses_address(engine) else {f"{engine}_api_url", f"{engine}_api_key"}
    names = [f.name for f in dataclasses.fields(EngineSettings)
             if f.name.startswith(engine + "_") and f.name not in unused]
    return [FieldSpec("engines", n, ENGINE_LABELS.get(n[len(engine) + 1:], n[len(engine) + 1:].replace("_", " ")))
            for n in names]


# what an offline or local user needs beside engines and LLMs: (section, key, label) for the settings that are no
# option; an option's setting is named by its option and shows the option table's label and choice labels
GENERAL = [("fetch", "allow_private_addresses", "Allow private addresses (a local SearXNG, intranet pages)"),
           "pages_max", "follow_up_count", "report_format", "length_words", "report_language", "tone",
           "citation_style",
           ("engines", "contact_email", "Contact e-mail (sent to Crossref, OpenAlex, PubMed)"),
           ("embeddings", "model", "Embedding model (empty: the bundled all-MiniLM-L6-v2)")]


def option_field(name: str) -> FieldSpec:
    """The field of the setting that gives option `name` its default, labelled as the option table says."""
    option = options.OPTIONS[name]
    section, key = option.setting_key()
    return FieldSpec(section, key, options.label(name), tuple(options.labelled(name)) if option.choices else (),
                     "bool" if option.kind == "bool" else "text")


def general_fields() -> list[FieldSpec]:
    return [option_field(entry) if isinstance(entry, str) else
            FieldSpec(*entry, kind=setting_kind(entry[0], entry[1])) for entry in GENERAL]


def setting_kind(section: str, key: str) -> str:
    """"bool" for a true/false setting (shown as a checkbox), else "text"."""
    section_type = typing.get_type_hints(Settings).get(section)
    hints = typing.get_type_hints(section_type) if dataclasses.is_dataclass(section_type) else {}
    return "bool" if hints.get(key) is bool else "text"


def default_engine_field() -> FieldSpec:
    return FieldSpec("search", "search_provider_default",
                     f"default engines, comma-separated ({', '.join(ENGINES + LOCAL_SOURCES)})")


def all_fields() -> list[FieldSpec]:
    """Every editable field, in the order the tab builds its components."""
    fields = [f for s in LLM_SCOPES for f in llm_fields(s)]
    fields.append(default_engine_field())
    return fields + [f for e in ENGINES for f in engine_fields(e)] + general_fields()


# ---------------------------------------------------------------- current values

def file_values(path: Path) -> dict[str, dict[str, str]]:
    """The raw values written in the config file (empty when it does not exist)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    if path.exists():
        parser.read(path, encoding="utf-8-sig")
    return {s: {k: v.strip().strip("\"'") for k, v in parser[s].items()} for s in parser.sections()}


def shown_value(spec: FieldSpec, settings: Settings, raw: dict[str, dict[str, str]]) -> str:
    """What the form shows for a non-secret field: the file's value for role overrides (empty = inherit),
    the effective value elsewhere."""
    if spec.section.startswith(ROLE_SECTION_PREFIX):
        value = raw.get(spec.section, {}).get(spec.key, "")
        return value or (INHERIT if spec.key == "provider" else "")
    value = getattr(getattr(settings, spec.section), spec.key)
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def field_value(spec: FieldSpec, settings: Settings, raw: dict[str, dict[str, str]]) -> str | bool:
    """The component's value: a checkbox's True/False, else shown_value."""
    value = shown_value(spec, settings, raw)
    return value == "true" if spec.kind == "bool" else value


def key_placeholder(spec: FieldSpec, settings: Settings, raw: dict[str, dict[str, str]]) -> str:
    """'(set)' / '(not set)', saying where a key comes from when it is not this file."""
    if spec.section.startswith(ROLE_SECTION_PREFIX):
        own = raw.get(spec.section, {}).get(spec.key, "")
        effective = settings.roles[spec.section[len(ROLE_SECTION_PREFIX):]].api_key
        if not own and effective:
            return "(set, inherited or from the environment)"
        return mask(own)
    effective = getattr(getattr(settings, spec.section), spec.key)
    in_file = raw.get(spec.section, {}).get(spec.key, "")
    if effective and not in_file:
        return "(set in the environment)"
    return mask(effective)


# ---------------------------------------------------------------- saving

@dataclass
class SaveOutcome:
    changed: list[str]  # field names, never values
    settings: Settings


def changes(fields: list[FieldSpec], values: list, settings: Settings, raw: dict[str, dict[str, str]],
            clear_keys: list[str] | None = None) -> list[tuple[FieldSpec, str]]:
    """(field, new value) for each field whose form value differs from what is saved."""
    out = []
    for spec, value in zip(fields, values):
        value = "" if value is None else str(value).strip()
        if spec.kind == "bool":  # a checkbox's True/False (or the words for them) as the file writes it
            value = {True: "true", False: "false"}.get(options.truth(value), value)
        if spec.secret:
            if value:
                out.append((spec, value))
            continue
        if spec.key == "provider" and value == INHERIT:
            value = ""
        current = shown_value(spec, settings, raw)
        if value != (current if current != INHERIT else ""):
            out.append((spec, value))
    for name in clear_keys or []:
        spec = next((f for f in fields if f.name == name and f.secret), None)
        if spec is not None and all(s.name != name for s, _ in out):
            out.append((spec, ""))
    return out


def save_changes(settings: Settings, updates: list[tuple[FieldSpec, str]]) -> SaveOutcome:
    """Write every change to the config file at once, or none of them.

    The changes go to a copy first; the copy must load as valid settings before it replaces the file."""
    path = Path(settings.path)
    if not updates:
        return SaveOutcome([], settings)
    draft = path.with_name(path.name + ".draft")
    try:
        if path.exists():
            shutil.copyfile(path, draft)
        for spec, value in updates:
            update_config_file(draft, spec.section, spec.key, value)
        load_settings(draft)
        os.replace(draft, path)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace(str(draft), str(path))) from None
    finally:
        if draft.exists():
            draft.unlink()
    reloaded = reload_settings(path)
    return SaveOutcome([spec.name for spec, _ in updates], reloaded)


def reload_settings(path: Path) -> Settings:
    """Re-read the config file in use (the one given with --config too) and install it for the process."""
    settings = load_settings(path)
    set_settings(settings)
    return settings
