"""Search engine modules, one per service (see base.py for the shape each follows).

    ENGINE_MODULES                     the web and scholarly engines' names, in the order the UI lists them
    LOCAL_ENGINES                      the local engines (wikipedia, documents: transport "local")
    load_engine(name)                  the engine's module, web or local (imported on first use)
    is_configured(name, settings)      its key/URL present as it needs
    connection_for(name, settings)     its Connection (endpoint, key, extras)
    missing_setting_message(name, settings)   what to set, or "" when configured
"""
from __future__ import annotations

import importlib
from types import ModuleType

from App_Function_Libraries.config import ENGINES, LOCAL_SOURCES, SCHOLARLY_ENGINES
from App_Function_Libraries.Search.engines.base import Connection

ENGINE_MODULES: tuple[str, ...] = ENGINES
LOCAL_ENGINES: tuple[str, ...] = LOCAL_SOURCES
ALL_ENGINES: tuple[str, ...] = ENGINE_MODULES + LOCAL_ENGINES


def load_engine(name: str) -> ModuleType:
    if name not in ALL_ENGINES:
        raise KeyError(f"unknown search engine {name!r}; engines are {', '.join(ALL_ENGINES)}")
    return importlib.import_module(f"{__name__}.{name}")


def connection_for(name: str, settings) -> Connection:
    if name in LOCAL_ENGINES:
        return Connection(url="")
    engines = settings.engines
    extras: dict[str, str] = {}
    if name == "google":
        extras["cx"] = engines.google_search_engine_id
    if name == "duckduckgo":
        extras["backend"] = engines.duckduckgo_backend
    if name in SCHOLARLY_ENGINES:
        extras["contact_email"] = engines.contact_email
    return Connection(url=engines.url(name).strip(), key=engines.key(name).strip(), extras=extras)


def missing_setting_message(name: str, settings) -> str:
    """'' when the engine has what it needs, else what to set (never a value)."""
    spec = load_engine(name).SPEC
    conn = connection_for(name, settings)
    missing = []
    if spec.needs_url and not conn.url:
        missing.append(f"{name}_api_url (or QUARRY_{name.upper()}_API_URL)")
    if spec.needs_key and not conn.key:
        missing.append(f"{name}_api_key (or QUARRY_{name.upper()}_API_KEY)")
    if name == "google" and not conn.extras.get("cx"):
        missing.append("google_search_engine_id")
    if not missing:
        return ""
    return f"{spec.label} is not configured: set {' and '.join(missing)} in [engines] of {settings.path}"


def is_configured(name: str, settings) -> bool:
    try:
        return not missing_setting_message(name, settings)
    except KeyError:
        return False
