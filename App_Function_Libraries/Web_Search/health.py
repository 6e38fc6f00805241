"""Per-engine health for this process: consecutive failures, the last error, and suspension.

After `search_suspend_after_failures` failures in a row an engine is suspended: searches to it fail at once
with a message saying until when, instead of waiting on a service that is down or refusing us. A suspension
lasts SHORT_SUSPENSION seconds (LONG_SUSPENSION after rate limiting, a refusal, a bad key or a used-up
quota, or the server's Retry-After if longer) and doubles each time it is renewed, up to MAX_SUSPENSION.
After it, one search is let through: success clears the record, failure suspends again.

    HEALTH.suspension_message(engine)  -> str|None
    HEALTH.record_success(engine) / HEALTH.record_failure(engine, error, threshold)
    HEALTH.snapshot() -> {engine: EngineHealth}      (for the UI and `python app.py check`)
"""
from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries.Web_Search.engines.errors import InvalidOption, NotConfigured, SearchError

SHORT_SUSPENSION = 60.0
LONG_SUSPENSION = 600.0
MAX_SUSPENSION = 6 * 3600.0
NOT_COUNTED = (NotConfigured, InvalidOption)  # the caller's problem, not the engine's


@dataclass
class EngineHealth:
    engine: str
    consecutive_failures: int = 0
    failures: int = 0
    successes: int = 0
    last_error: str = ""
    last_error_kind: str = ""
    last_success_at: float | None = None
    last_failure_at: float | None = None
    suspended_until: float = 0.0
    suspensions_in_a_row: int = 0

    def seconds_suspended(self, now: float) -> float:
        return max(0.0, self.suspended_until - now)

    def describe(self, now: float) -> str:
        left = self.seconds_suspended(now)
        if left:
            return (f"suspended for {_duration(left)} more after {self.consecutive_failures} failures in a row "
                    f"(last: {self.last_error})")
        if self.consecutive_failures:
            return f"{self.consecutive_failures} failure(s) in a row (last: {self.last_error})"
        if self.successes:
            return "healthy"
        return "not used yet"


class HealthBoard:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._states: dict[str, EngineHealth] = {}

    def _state(self, engine: str) -> EngineHealth:
        if engine not in self._states:
            self._states[engine] = EngineHealth(engine)
        return self._states[engine]

    def suspension_message(self, engine: str) -> str | None:
        """Why the engine may not be searched now, or None when it may."""
        with self._lock:
            state = self._states.get(engine)
            now = self._clock()
            if state is None or not state.seconds_suspended(now):
                return None
            return f"{engine} is {state.describe(now)}; other engines still work"

    def record_success(self, engine: str) -> None:
        with self._lock:
            state = self._state(engine)
            state.successes += 1
            state.consecutive_failures = 0
            state.suspensions_in_a_row = 0
            state.suspended_until = 0.0
            state.last_success_at = self._clock()

    def record_failure(self, engine: str, error: SearchError, threshold: int) -> None:
        if isinstance(error, NOT_COUNTED):
            return
        with self._lock:
            state = self._state(engine)
            now = self._clock()
            state.failures += 1
            state.consecutive_failures += 1
            state.last_error, state.last_error_kind = str(error), error.kind
            state.last_failure_at = now
            if state.consecutive_failures >= max(1, threshold):
                base = LONG_SUSPENSION if error.long_suspension else SHORT_SUSPENSION
                length = min(MAX_SUSPENSION, base * 2 ** state.suspensions_in_a_row)
                length = max(length, min(MAX_SUSPENSION, error.retry_after or 0.0))
                state.suspended_until = now + length
                state.suspensions_in_a_row += 1

    def snapshot(self) -> dict[str, EngineHealth]:
        with self._lock:
            return {name: dataclasses.replace(state) for name, state in self._states.items()}

    def describe(self, engine: str) -> str:
        with self._lock:
            state = self._states.get(engine)
            return state.describe(self._clock()) if state else "not used yet"

    def reset(self, engine: str | None = None) -> None:
        with self._lock:
            if engine is None:
                self._states.clear()
            else:
                self._states.pop(engine, None)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


HEALTH = HealthBoard()
