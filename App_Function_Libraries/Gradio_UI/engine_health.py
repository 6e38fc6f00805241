"""Engine health for the Settings tab: configured or not, and failures/suspension from Search/health.py."""
from __future__ import annotations

from App_Function_Libraries.config import Settings


def health_rows(settings: Settings) -> list[list[str]]:
    """[engine, configured, state, details] for every engine, in the order the UI lists them."""
    import time

    from App_Function_Libraries.Search.engines import ENGINE_MODULES, missing_setting_message
    from App_Function_Libraries.Search.engine import engine_health_snapshot
    states = engine_health_snapshot(settings)
    now = time.time()
    rows = []
    for engine in ENGINE_MODULES:
        missing = missing_setting_message(engine, settings)
        state = states.get(engine)
        if state is None:
            verdict, details = "not used yet", ""
        elif state.seconds_suspended(now):
            verdict, details = "suspended", state.describe(now)
        elif state.consecutive_failures:
            verdict, details = "failing", state.describe(now)
        else:
            verdict, details = "healthy", f"{state.successes} search(es) answered"
        rows.append([engine, "no" if missing else "yes", verdict, missing or details])
    return rows


def resume_all_engines() -> None:
    """Lift every suspension now (the next search to each engine is tried again)."""
    from App_Function_Libraries.Search.engine import lift_engine_suspensions
    lift_engine_suspensions()
