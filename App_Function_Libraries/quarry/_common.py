"""Small helpers shared by the facade modules."""
from __future__ import annotations

from App_Function_Libraries.quarry.errors import BadArgument


def settings_or_current(settings=None):
    if settings is not None:
        return settings
    from App_Function_Libraries.config import get_settings
    return get_settings()


def text_argument(name: str, value) -> str:
    """A required piece of text, stripped; BadArgument naming `name` when it is missing or empty."""
    if not isinstance(value, str) or not value.strip():
        raise BadArgument(name, "is empty" if isinstance(value, str) or value is None else "must be text")
    return value.strip()


def count_argument(name: str, value, low: int, high: int | None = None) -> int | None:
    """An optional whole number in [low, high]; BadArgument naming `name` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadArgument(name, "must be a whole number")
    if value < low or (high is not None and value > high):
        raise BadArgument(name, f"must be at least {low}" if high is None else f"must be {low} to {high}")
    return value
