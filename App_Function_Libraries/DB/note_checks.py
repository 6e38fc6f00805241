"""Checks on a note coming from a file (notes_io.py's import): every value must be one the store can keep and
every display can show, or the note is refused with a one-line reason (and the import goes on without it).

- times (created_at, updated_at, deleted_at): a number or an ISO date for a time in 1970..9999 (UTC);
  NaN, infinities, 1e300 or a negative number are refused, not replaced;
- version: a whole number from 1 to 2^53;
- title and content: text; keywords: a list of words (or one comma-separated string); report_id: text;
- id: printable text (no control or format characters) of at most MAX_ID_CHARS characters;
- JSON (a .json file, a report file, a front matter value): nested at most MAX_JSON_DEPTH levels, so nothing
  that is stored can make reading it, or showing it, run out of stack.
"""
from __future__ import annotations

import calendar
import reprlib
import time
import unicodedata
from typing import Any

from App_Function_Libraries.DB.connection import StoreError
from App_Function_Libraries.DB.notes_store import Note, _valid_text, _valid_title
from App_Function_Libraries.DB.timestamps import valid_epoch
from App_Function_Libraries.valid_unicode import loads_json

MAX_JSON_DEPTH = 64
MAX_VERSION = 2 ** 53
MAX_ID_CHARS = 200
_SHOW = reprlib.Repr()
_SHOW.maxstring = _SHOW.maxother = 40


class NoteFileError(StoreError):
    """A file, or a note in it, that cannot be imported; str() says why in one line."""


class NestedTooDeepError(NoteFileError):
    """JSON nested deeper than MAX_JSON_DEPTH (or too deep for the parser)."""


def load_json(text: str, what: str, max_depth: int | None = MAX_JSON_DEPTH) -> Any:
    """JSON text parsed, or NoteFileError naming `what` (invalid, too deep for the parser, or nested deeper
    than `max_depth`; None leaves that check to the caller, as for a list of notes checked one by one)."""
    try:
        data = loads_json(text)
    except RecursionError:
        raise NestedTooDeepError(f"{what} is JSON nested too deeply to read") from None
    except ValueError as exc:
        raise NoteFileError(f"{what} is not valid JSON ({exc})") from None
    if max_depth is not None:
        check_depth(data, what, max_depth)
    return data


def check_depth(data: Any, what: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """NestedTooDeepError naming `what` when `data` nests lists and objects more than `max_depth` levels."""
    if nested_deeper_than(data, max_depth):
        raise NestedTooDeepError(f"{what} is JSON nested more than {max_depth} levels deep")


def nested_deeper_than(data: Any, limit: int) -> bool:
    """Whether lists and objects in `data` nest more than `limit` levels (checked without recursion)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def from_iso(value: Any) -> float | None:
    """Epoch seconds of an ISO date-time 'YYYY-MM-DDTHH:MM:SS' (UTC), or None."""
    try:
        return float(calendar.timegm(time.strptime(str(value)[:19], "%Y-%m-%dT%H:%M:%S")))
    except (TypeError, ValueError, OverflowError):
        return None


def incoming_note(fields: dict[str, Any]) -> Note:
    """The note described by `fields` (from a note file or a JSON export), checked. Raises NoteFileError."""
    created = _time(fields, "created_at")
    created = time.time() if created is None else created
    updated = _time(fields, "updated_at")
    deleted = bool(fields.get("deleted"))
    keywords = fields.get("keywords")
    if keywords is not None and not isinstance(keywords, (list, str)):
        raise NoteFileError(f"keywords {_SHOW.repr(keywords)} are not a list of words")
    report = fields.get("report")
    if report is not None and not isinstance(report, dict):
        raise NoteFileError("its report is not a JSON object")
    return Note(id=_note_id(fields.get("id")), title=_valid_title(fields.get("title")),
                content=_valid_text(fields.get("content"), "content"), keywords=keywords or [],
                created_at=created, updated_at=created if updated is None else updated,
                version=_version(fields.get("version")), deleted=deleted,
                deleted_at=_time(fields, "deleted_at") if deleted else None,
                report_id=_text_or_none(fields.get("report_id"), "report_id"), report=report)


def _time(fields: dict[str, Any], key: str) -> float | None:
    """A time field: None when absent or empty, else epoch seconds in 1970..9999 (NoteFileError if not)."""
    value = fields.get(key)
    if value is None or value == "":
        return None
    seconds = valid_epoch(value)
    if seconds is None and isinstance(value, str):
        try:
            seconds = valid_epoch(float(value))
        except ValueError:
            seconds = valid_epoch(from_iso(value))
    if seconds is None:
        raise NoteFileError(f"{key} {_SHOW.repr(value)} is not a time between the years 1970 and 9999")
    return seconds


def _version(value: Any) -> int:
    if value is None or value == "":
        return 1
    number: Any = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_VERSION:
        raise NoteFileError(f"version {_SHOW.repr(value)} is not a whole number from 1 to 2^53")
    return number


def _note_id(value: Any) -> str:
    """"" (a new id is made) when there is none; else printable text of at most MAX_ID_CHARS characters."""
    note_id = _text_or_none(value, "id") or ""
    if len(note_id) > MAX_ID_CHARS or any(unicodedata.category(ch) in ("Cc", "Cf") for ch in note_id):
        raise NoteFileError(f"id {_SHOW.repr(note_id)} is not an id (printable text of at most {MAX_ID_CHARS} "
                            f"characters)")
    return note_id


def _text_or_none(value: Any, what: str) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise NoteFileError(f"{what} {_SHOW.repr(value)} is not text")
    return _valid_text(str(value), what)
