"""Engine health for the Settings tab: configured or not, and failures/suspension (quarry.engines)."""
from __future__ import annotations

from App_Function_Libraries.config import ENGINES, Settings


def health_rows(settings: Settings) -> list[list[str]]:
    """[engine, configured, state, details] for every engine, in the order the UI lists them."""
    import time

    from App_Function_Libraries import quarry
    states = quarry.engines.health(settings)
    now = time.time()
    rows = []
    for engine in ENGINES:
        missing = quarry.engines.missing_setting(engine, settings)
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
    from App_Function_Libraries import quarry
    quarry.engines.resume_all()
