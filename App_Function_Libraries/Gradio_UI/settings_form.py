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
    section: str
    key: str
    label: str
    choices: tuple[str, ...] = ()

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


# what an offline or local user needs beside engines and LLMs: (section, key, label, choices)
GENERAL = [("fetch", "allow_private_addresses", "Allow private addresses (a local SearXNG, intranet pages)",
            ("true", "false")),
           ("research", "pages_max", "Most pages read per run", ()),
           ("research", "follow_up_count", "Follow-up questions suggested (0-5)", ()),
           ("research", "report_format", "Report format", options.REPORT_FORMATS),
           ("research", "length_words", "Report length (words)", ()),
           ("research", "report_language", "Report language (ISO code; empty: the question's)", ()),
           ("search", "search_result_analysis_tone", "Report tone", ()),
           ("research", "citation_style", "Citation style", options.CITATION_STYLES),
           ("engines", "contact_email", "Contact e-mail (sent to Crossref, OpenAlex, PubMed)", ()),
           ("embeddings", "model", "Embedding model (empty: the bundled all-MiniLM-L6-v2)", ())]


def general_fields() -> list[FieldSpec]:
    return [FieldSpec(section, key, label, choices) for section, key, label, choices in GENERAL]


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
