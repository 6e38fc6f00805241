"""The search engines' standing, for the first screen and Settings: what an engine still needs to be set up, and
what the last searches to each met (its health record: failing, suspended), read without searching."""
from __future__ import annotations

from App_Function_Libraries.quarry._common import settings_or_current


def health(settings=None) -> dict:
    """engine -> its EngineHealth (failures, suspension, successes) as every Quarry process using this research
    database sees it; engines never searched are absent."""
    from App_Function_Libraries.Search.engine import engine_health_snapshot
    return engine_health_snapshot(settings_or_current(settings))


def resume_all(settings=None) -> None:
    """Lift every suspension now: the next search to each engine is tried again."""
    from App_Function_Libraries.Search.engine import lift_engine_suspensions
    lift_engine_suspensions(settings)


def missing_setting(engine: str, settings=None) -> str:
    """'' when the engine has what it needs, else what to set (never a value)."""
    from App_Function_Libraries.Search.engines import missing_setting_message
    return missing_setting_message(engine, settings_or_current(settings))


def needs(engine: str, settings=None) -> list[str] | None:
    """None when the engine is set up; else the parts it lacks, in words (API URL, API key, search engine ID)."""
    from App_Function_Libraries.Search.engines import connection_for, is_configured, load_engine
    settings = settings_or_current(settings)
    if is_configured(engine, settings):
        return None
    spec, conn = load_engine(engine).SPEC, connection_for(engine, settings)
    return [name for name, missing in (("API URL", spec.needs_url and not conn.url),
                                       ("API key", spec.needs_key and not conn.key),
                                       ("search engine ID", engine == "google" and not conn.extras.get("cx")))
            if missing]
