"""Back-off policy shared by the network clients that retry (the search runner, the LLM providers); the page
fetcher does not retry."""
from __future__ import annotations

import email.utils
import random
import time

BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 30.0


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date. None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(attempt: int, retry_after: float | None = None) -> float:
    """Seconds before retry number attempt+1: the server's Retry-After when given (capped), otherwise
    exponential back-off with jitter."""
    if retry_after is not None:
        return min(retry_after, BACKOFF_MAX_SECONDS)
    delay = BACKOFF_BASE_SECONDS * (2 ** attempt)
    return min(delay, BACKOFF_MAX_SECONDS) * (0.75 + random.random() * 0.5)
