"""Country, language and site codes as a person types them -> the form the search engines take.

Used by the search options (Search/options.py) and by config.py, which checks the [search] defaults with the
same rules so a bad default stops start-up instead of failing every search. Bottom layer: a bad value raises
CodeError (a QuarryError, and a ValueError as before) with a one-line message naming it."""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from App_Function_Libraries.errors import QuarryError


class CodeError(QuarryError, ValueError):
    """A country, language or site code a person gave that is not one; str() names it and what is expected."""


NO_COUNTRY = ("all", "any", "wt", "xa")
NO_LANGUAGE = ("all", "any")


def country_code(value: Any, name: str) -> str | None:
    """A two-letter country code (ISO 3166), upper case; None for no country ('all', 'any', empty)."""
    text = _given(value, NO_COUNTRY)
    if text is not None and not re.fullmatch(r"[A-Za-z]{2}", text):
        raise CodeError(f"{name} {text!r} is not a two-letter country code (e.g. US, GB, DE)")
    return text.upper() if text else None


def language_code(value: Any, name: str) -> str | None:
    """An ISO 639-1 code; 'en-US'/'en_GB' keep their language part. 'all'/'any' mean no preference."""
    text = _given(value, NO_LANGUAGE)
    if text is None:
        return None
    match = re.fullmatch(r"([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{2,8})?", text)
    if not match:
        raise CodeError(f"{name} {text!r} is not a language code (e.g. en, de, fr)")
    return match.group(1).lower()


def _given(value: Any, none_words: tuple[str, ...]) -> str | None:
    """The value as stripped text; None when it is empty or a word meaning 'none'."""
    text = "" if value is None else str(value).strip()
    return None if not text or text.lower() in none_words else text


def site_domains(value: Any, name: str = "site_blacklist") -> tuple[str, ...]:
    """Domains (from a list or a comma/space-separated string; 'https://www.x.org/a' -> 'x.org'), no repeats."""
    sites = []
    for item in split_values(value, r"[,\s]+"):
        host = urlsplit(item if "//" in item else "//" + item).hostname or ""
        host = host.lower().removeprefix("www.")
        if not re.fullmatch(r"[a-z0-9.-]+\.[a-z0-9-]+", host):
            raise CodeError(f"{name} entry {item!r} is not a domain (e.g. pinterest.com)")
        if host not in sites:
            sites.append(host)
    return tuple(sites)


def split_values(value: Any, pattern: str) -> list[str]:
    """A list, or a string split on `pattern`, as non-empty stripped strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in re.split(pattern, value.strip()) if part]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [str(item).strip() for item in value if str(item).strip()]
    raise CodeError(f"expected a list or a comma-separated string, got {type(value).__name__}")
