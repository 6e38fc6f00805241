"""Timestamps (epoch seconds, UTC): checked where they come in, shown without ever failing.

A time is valid when it is a finite number from 1970-01-01 to 9999-12-31 (UTC). Imports refuse anything else
(notes_io.py), and every display goes through `format_epoch`, which shows a stand-in for a value that is not a
valid time (one written by an older Quarry, say) instead of raising OverflowError / OSError / ValueError from
time.localtime.
"""
from __future__ import annotations

import math
import time
from typing import Any

MIN_EPOCH = 0.0  # 1970-01-01T00:00:00Z
MAX_EPOCH = 253402300799.0  # 9999-12-31T23:59:59Z


def valid_epoch(value: Any) -> float | None:
    """`value` as epoch seconds when it is a number (not a bool) for a time in 1970..9999, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return seconds if math.isfinite(seconds) and MIN_EPOCH <= seconds <= MAX_EPOCH else None


def format_epoch(value: Any, fmt: str = "%Y-%m-%d %H:%M", utc: bool = False, invalid: str = "-") -> str:
    """`value` formatted with `fmt` (local time, or UTC), or `invalid` when it is not a valid time."""
    seconds = valid_epoch(value)
    if seconds is None:
        return invalid
    try:
        return time.strftime(fmt, time.gmtime(seconds) if utc else time.localtime(seconds))
    except (OverflowError, OSError, ValueError):  # e.g. Windows' localtime() stops before year 3001
        return invalid
