"""The note file format: a note as a Markdown file with JSON-valued front matter, and back.

Used by notes export/import (notes_io.py) and by the single-note export (export.py); it imports neither, so
the two no longer import each other.
"""
from __future__ import annotations

import json
import re
import time
from typing import Any

from App_Function_Libraries.DB.note_checks import NestedTooDeepError, NoteFileError, from_iso, load_json
from App_Function_Libraries.DB.timestamps import format_epoch, valid_epoch

FRONT_MATTER_KEYS = ("id", "title", "keywords", "created_at", "updated_at", "created", "updated", "version",
                     "deleted", "deleted_at", "report_id", "report_file")


def note_to_markdown(note: Any, report_file: str | None = None) -> str:
    """A note (Note or dict) as a Markdown file with JSON-valued front matter."""
    data = note.to_dict() if hasattr(note, "to_dict") else dict(note)
    meta = {"id": data.get("id"), "title": data.get("title", ""), "keywords": list(data.get("keywords") or []),
            "created_at": valid_epoch(data.get("created_at")), "updated_at": valid_epoch(data.get("updated_at")),
            "created": _iso(data.get("created_at")), "updated": _iso(data.get("updated_at")),
            "version": data.get("version", 1)}
    if data.get("deleted"):
        meta.update(deleted=True, deleted_at=valid_epoch(data.get("deleted_at")))
    if data.get("report_id"):
        meta["report_id"] = data["report_id"]
    if report_file:
        meta["report_file"] = report_file
    lines = ["---"] + [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items()] + ["---"]
    return "\n".join(lines) + "\n" + str(data.get("content") or "")


def markdown_to_note(text: str, fallback_title: str = "", mtime: float | None = None) -> tuple[dict[str, Any], str]:
    """(note fields, report_file or "") from a note file; a file without front matter becomes a note titled
    by its first heading (or `fallback_title`), dated by `mtime`. The values are not checked here (see
    note_checks.incoming_note); a front matter value of JSON nested too deeply raises NoteFileError."""
    text = text[1:] if text.startswith("\ufeff") else text
    meta, content = _split_front_matter(text)
    mtime = valid_epoch(mtime)
    if meta is None:
        heading = first_heading(text)
        when = mtime if mtime is not None else time.time()
        return ({"title": heading or fallback_title or "Imported note", "content": text,
                 "created_at": when, "updated_at": when}, "")
    fields: dict[str, Any] = {"content": content}
    for key, value in meta.items():
        if key == "tags" and "keywords" not in meta:
            key = "keywords"
        if key in ("created", "updated"):
            continue
        if key in FRONT_MATTER_KEYS:
            fields[key] = value
    if isinstance(fields.get("keywords"), str):
        fields["keywords"] = [k.strip(" '\"") for k in fields["keywords"].strip("[]").split(",")]
    for key in ("created_at", "updated_at"):
        if fields.get(key) is None:
            fields[key] = valid_epoch(from_iso(meta.get(key[:-3]))) or mtime or time.time()
    fields.setdefault("title", fallback_title or "Imported note")
    return fields, str(fields.pop("report_file", "") or "")


def first_heading(text: str) -> str:
    """The text of the first level-1 ATX heading ('# Title', closing '#'s and spaces dropped), or "".
    String methods, not a regular expression: `^#\\s+(.+?)\\s*#*\\s*$` took minutes on one long line of
    spaces (nested quantifiers backtrack), and a note file is untrusted input."""
    for line in text.split("\n"):
        if len(line) < 2 or line[0] != "#" or not line[1].isspace():
            continue
        title = line[1:].strip()
        if title:
            return title.rstrip("#").rstrip() or title[:1]
    return ""


def _split_front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    match = re.match(r"---\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", text, re.DOTALL | re.MULTILINE)
    if not match:
        return None, text
    meta: dict[str, Any] = {}
    for line in re.split(r"\r?\n", match.group(1)):  # not splitlines(): \x85, \u2028 are text here
        key, sep, raw = line.partition(":")
        if not sep or not key.strip() or key.startswith((" ", "\t", "#")):
            continue
        raw = raw.strip()
        try:
            meta[key.strip()] = load_json(raw, f"the front matter value of {key.strip()[:40]!r}") if raw else None
        except NestedTooDeepError:
            raise
        except NoteFileError:
            meta[key.strip()] = raw.strip("'\"")
    if not set(meta) & (set(FRONT_MATTER_KEYS) | {"tags"}):  # a horizontal rule, not front matter
        return None, text
    return meta, text[match.end():]


def _iso(epoch: Any) -> str | None:
    """The time as an ISO date-time (UTC), or None when it is not a valid time."""
    return format_epoch(epoch, "%Y-%m-%dT%H:%M:%SZ", utc=True, invalid="") or None
