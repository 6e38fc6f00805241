"""perform_websearch's arguments turned into validated SearchOptions (InvalidOption on a bad value).

Accepted forms:
  date_range       day|week|month|year (also d/w/m/y, past_day, last_week, …) or explicit
                   'YYYY-MM-DD..YYYY-MM-DD' (either side may be empty), a (start, end) pair or
                   {"start": …, "end": …}
  safesearch       off|moderate|strict (also on/active → strict, medium → moderate, 0/1/2, true/false)
  site_blacklist   a list or a comma/space separated string of domains (scheme and path are dropped)
  include_sites    the same: the sites results are kept to
  exactTerms       a phrase or a list of phrases;  excludeTerms: a list or a space/comma separated string
  filter           Google's duplicate-content filter: 0/1, true/false
  sort_results_by  relevance|date
"""
from __future__ import annotations

import re
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from App_Function_Libraries.Search.engines.base import (DATE_PRESETS, SAFESEARCH_LEVELS, SORT_ORDERS,
                                                            DateRange, SearchOptions)
from App_Function_Libraries.Search.errors import InvalidOption

MAX_RESULT_COUNT = 100
MAX_QUERY_CHARS = 2000
_PRESET_ALIASES = {"d": "day", "w": "week", "m": "month", "y": "year", "24h": "day", "today": "day",
                   "past_day": "day", "past_week": "week", "past_month": "month", "past_year": "year",
                   "last_day": "day", "last_week": "week", "last_month": "month", "last_year": "year",
                   "pd": "day", "pw": "week", "pm": "month", "py": "year"}
_SAFE_ALIASES = {"on": "strict", "active": "strict", "high": "strict", "2": "strict", "true": "strict",
                 "medium": "moderate", "1": "moderate", "0": "off", "false": "off", "none": "off"}


def build_options(query: Any, *, count: Any, country: Any, search_lang: Any, result_lang: Any = None,
                  date_range: Any = None, safesearch: Any = None, site_blacklist: Any = None,
                  exact_terms: Any = None, exclude_terms: Any = None, dedupe_filter: Any = None,
                  geolocation: Any = None, sort: Any = None, today: date | None = None,
                  defaulted: frozenset[str] = frozenset(), include_sites: Any = None) -> SearchOptions:
    return SearchOptions(
        query=parse_query(query), count=parse_count(count), country=parse_country(country, "content_country"),
        search_lang=parse_language(search_lang, "search_lang"),
        result_lang=parse_language(result_lang, "search_result_language"),
        date_range=parse_date_range(date_range), safesearch=parse_safesearch(safesearch),
        site_blacklist=parse_sites(site_blacklist), include_sites=parse_sites(include_sites, "include_sites"),
        exact_terms=parse_terms(exact_terms, phrases=True),
        exclude_terms=parse_terms(exclude_terms, phrases=False), dedupe_filter=parse_flag(dedupe_filter),
        geolocation=parse_country(geolocation, "geolocation"), sort=parse_sort(sort),
        today=today or date.today(), defaulted=frozenset(defaulted))


def parse_query(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidOption("the search query is empty")
    query = " ".join(value.split())
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidOption(f"the search query is {len(query)} characters long; the most is {MAX_QUERY_CHARS}")
    return query


def parse_count(value: Any) -> int:
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise InvalidOption(f"result_count {value!r} is not a whole number") from None
    if not 1 <= count <= MAX_RESULT_COUNT:
        raise InvalidOption(f"result_count must be between 1 and {MAX_RESULT_COUNT} (got {count})")
    return count


def parse_country(value: Any, name: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip()
    if text.lower() in ("all", "any", "wt", "xa"):
        return None
    if not re.fullmatch(r"[A-Za-z]{2}", text):
        raise InvalidOption(f"{name} {text!r} is not a two-letter country code (e.g. US, GB, DE)")
    return text.upper()


def parse_language(value: Any, name: str) -> str | None:
    """An ISO 639-1 code; 'en-US'/'en_GB' keep their language part. 'all'/'any' mean no preference."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip()
    if text.lower() in ("all", "any"):
        return None
    match = re.fullmatch(r"([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{2,8})?", text)
    if not match:
        raise InvalidOption(f"{name} {text!r} is not a language code (e.g. en, de, fr)")
    return match.group(1).lower()


def parse_date_range(value: Any) -> DateRange | None:
    if value is None or value == "" or (isinstance(value, str) and value.strip().lower() in ("any", "all")):
        return None
    if isinstance(value, dict):
        return _explicit(value.get("start"), value.get("end"), value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return _explicit(value[0], value[1], value)
    if isinstance(value, str):
        text = value.strip().lower()
        preset = text if text in DATE_PRESETS else _PRESET_ALIASES.get(text)
        if preset:
            return DateRange(preset=preset)
        for sep in ("..", "/", " to "):
            if sep in text:
                start, end = text.split(sep, 1)
                return _explicit(start, end, value)
    raise InvalidOption(f"date_range {value!r} is not understood: use day, week, month, year or "
                        "YYYY-MM-DD..YYYY-MM-DD")


def _explicit(start: Any, end: Any, original: Any) -> DateRange:
    first, last = _day(start, original), _day(end, original)
    if first is None and last is None:
        raise InvalidOption(f"date_range {original!r} has neither a start nor an end date")
    if first and last and first > last:
        raise InvalidOption(f"date_range {original!r} ends before it starts")
    return DateRange(start=first, end=last)


def _day(value: Any, original: Any) -> date | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidOption(f"date_range {original!r}: {value!r} is not a date (YYYY-MM-DD)") from None


def parse_safesearch(value: Any) -> str | None:
    if value is None or value == "":
        return None
    text = str(value).strip().lower()
    level = text if text in SAFESEARCH_LEVELS else _SAFE_ALIASES.get(text)
    if level is None:
        raise InvalidOption(f"safesearch {value!r} is not one of off, moderate, strict")
    return level


def parse_sites(value: Any, name: str = "site_blacklist") -> tuple[str, ...]:
    items = _split(value, r"[,\s]+")
    sites = []
    for item in items:
        host = urlsplit(item if "//" in item else "//" + item).hostname or ""
        host = host.lower().removeprefix("www.")
        if not re.fullmatch(r"[a-z0-9.-]+\.[a-z0-9-]+", host):
            raise InvalidOption(f"{name} entry {item!r} is not a domain (e.g. pinterest.com)")
        if host not in sites:
            sites.append(host)
    return tuple(sites)


def parse_terms(value: Any, *, phrases: bool) -> tuple[str, ...]:
    """exactTerms: each string is one phrase; excludeTerms: words split on spaces/commas."""
    if isinstance(value, str) and phrases:
        items = [value]
    else:
        items = _split(value, r"[,\s]+" if not phrases else r",")
    cleaned = [" ".join(item.replace('"', " ").split()) for item in items]
    return tuple(dict.fromkeys(term for term in cleaned if term))


def parse_flag(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "on", "yes"):
        return True
    if text in ("0", "false", "off", "no"):
        return False
    raise InvalidOption(f"filter {value!r} must be 0 or 1 (Google's duplicate-content filter)")


def parse_sort(value: Any) -> str | None:
    if value is None or value == "":
        return None
    text = str(value).strip().lower()
    if text not in SORT_ORDERS:
        raise InvalidOption(f"sort_results_by {value!r} is not one of {', '.join(SORT_ORDERS)}")
    return text


def _split(value: Any, pattern: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in re.split(pattern, value.strip()) if part]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [str(item).strip() for item in value if str(item).strip()]
    raise InvalidOption(f"expected a list or a comma-separated string, got {type(value).__name__}")
