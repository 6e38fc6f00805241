"""Helpers the response parsers share: markup-free text, ISO 8601 dates and accessors that never raise on
JSON of an unexpected shape."""
from __future__ import annotations

import email.utils
import html
import re
from datetime import date, datetime, timedelta, timezone
from html.parser import HTMLParser
from typing import Any

_ENTITY = re.compile(r"&(?:[a-zA-Z][a-zA-Z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_TAG_LIKE = re.compile(r"</?[a-zA-Z][^<>]*>|<!--.*?-->", re.S)
_SPACE = re.compile(r"\s+")
_NOT_IN_URL = re.compile(r"[\s\x00-\x1f\x7f]")


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in ("br", "p", "div", "li"):
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def strip_markup(value: Any) -> str:
    """Plain text from a title or snippet: tags removed, entities decoded (twice-escaped ones too),
    whitespace folded. Anything that is not a string gives ""."""
    if not isinstance(value, str) or not value:
        return ""
    text = value
    for _ in range(3):  # text escaped twice (&amp;#39;) decodes to markup or entities again
        if "<" in text and _TAG_LIKE.search(text):
            collector = _TextCollector()
            try:
                collector.feed(text)
                collector.close()
                text = "".join(collector.parts)
            except Exception:  # noqa: BLE001 - HTMLParser on hostile input: fall back to a regex
                text = html.unescape(_TAG_LIKE.sub(" ", text))
        elif _ENTITY.search(text):
            text = html.unescape(text)
        else:
            break
    return _SPACE.sub(" ", text.replace("\u00a0", " ").replace("\ufeff", "")).strip()


# ---------------------------------------------------------------- dates

_DATE_FORMATS = ("%b %d, %Y", "%B %d, %Y", "%d %b %Y", "%d %B %Y", "%Y/%m/%d", "%d/%m/%Y", "%b %Y",
                 "%B %Y", "%Y-%m", "%Y")
_RELATIVE = re.compile(r"^(\d+)\s+(second|minute|hour|day|week|month|year)s?\s+ago$", re.I)
_UNIT_DAYS = {"second": 0, "minute": 0, "hour": 0, "day": 1, "week": 7, "month": 30, "year": 365}
_FRACTION = re.compile(r"(\.\d{6})\d+")


def iso_date(value: Any, today: date | None = None) -> str | None:
    """A publication date as ISO 8601: 'YYYY-MM-DD' when only the day is known, else a full timestamp.
    Understands ISO forms (any fraction digits, Z), RFC 2822 dates, 'Jan 29, 2023'-style dates and
    '3 days ago' (counted back from `today`). Anything else gives None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > 80:
        return None
    return _iso_form(text) or _named_form(text) or _relative_form(text, today)


def _iso_form(text: str) -> str | None:
    candidate = _FRACTION.sub(r"\1", text.replace("Z", "+00:00").replace("z", "+00:00"))
    try:
        parsed = datetime.fromisoformat(candidate)
    except ValueError:
        return None
    if len(text) == 10 or parsed.tzinfo is None and parsed.time() == datetime.min.time():
        return parsed.date().isoformat()  # a bare midnight without a zone is a date, not a time
    return parsed.replace(microsecond=0).isoformat()


def _named_form(text: str) -> str | None:
    if "," in text and ":" in text:
        try:
            parsed = email.utils.parsedate_to_datetime(text)
            return parsed.replace(microsecond=0).isoformat()
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    cleaned = text.rstrip(".").replace("Sept ", "Sep ")
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _relative_form(text: str, today: date | None) -> str | None:
    match = _RELATIVE.match(text)
    if not match:
        return None
    amount, unit = int(match.group(1)), match.group(2).lower()
    if amount > 100_000:
        return None
    base = today or datetime.now(timezone.utc).date()
    try:
        return (base - timedelta(days=amount * _UNIT_DAYS[unit])).isoformat()
    except OverflowError:
        return None


# ---------------------------------------------------------------- safe accessors

def dig(data: Any, *keys: str | int) -> Any:
    """data[k1][k2]… or None where a step is missing or of the wrong type."""
    for key in keys:
        if isinstance(key, int) and isinstance(data, list) and -len(data) <= key < len(data):
            data = data[key]
        elif isinstance(key, str) and isinstance(data, dict):
            data = data.get(key)
        else:
            return None
    return data


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_dicts(value: Any) -> list[dict]:
    """The dict items of a list (other items skipped)."""
    return [item for item in as_list(value) if isinstance(item, dict)]


def as_text(value: Any) -> str:
    return strip_markup(value) if isinstance(value, str) else ""


def as_float(value: Any) -> float | None:
    """A finite number, or None (never raises: an integer too large for a float, such as a 400-digit JSON
    number, is None too)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def as_int(value: Any) -> int | None:
    number = as_float(value)
    if number is None or abs(number) > 1e18:
        return None
    return int(number)


def as_url(value: Any) -> str:
    """A result URL: an absolute http(s) URL without whitespace or control characters, or ""."""
    if not isinstance(value, str):
        return ""
    url = value.strip()
    return url if re.match(r"^https?://[^\s/]+", url, re.I) and not _NOT_IN_URL.search(url) else ""


SNIPPET_CHARS = 300


def snippet_of(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The start of a text as one line, cut at a word boundary to about `limit` characters (" …" when cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
