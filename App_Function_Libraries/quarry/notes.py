"""Your notes: search, read, add (text, or a saved research report as a note)."""
from __future__ import annotations

import sqlite3

from App_Function_Libraries.quarry._common import count_argument, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument, QuarryError, database_message, one_line


def stored(work):
    """Run work(); storage failures (a missing id, a damaged or foreign database file) become QuarryError."""
    from App_Function_Libraries.DB.connection import StoreError
    try:
        return work()
    except (StoreError, OSError, UnicodeDecodeError) as exc:
        raise QuarryError(one_line(exc)) from exc
    except sqlite3.DatabaseError as exc:
        raise QuarryError(database_message(exc)) from exc


def _store(settings=None):
    from App_Function_Libraries.DB.notes_store import get_notes_store
    return get_notes_store(settings_or_current(settings))


def search(query: str, limit: int = 20, offset: int = 0, *, include_deleted: bool = False, settings=None):
    """NoteHits (note, snippet with the matches marked, score), best first. Any text is a safe query.
    include_deleted: the notes in the trash are searched too."""
    query = text_argument("query", query)
    limit = count_argument("limit", limit, 1, 1000) or 20
    offset = count_argument("offset", offset, 0) or 0
    return stored(lambda: _store(settings).search_notes(query, limit=limit, offset=offset,
                                                        include_deleted=bool(include_deleted)))


def get(note_id: str, settings=None):
    """The note whose id is or starts with `note_id`."""
    note_id = text_argument("id", note_id)

    def work():
        store = _store(settings)
        return store.get_note(store.resolve_id(note_id))
    return stored(work)


def add(title: str | None = None, content: str | None = None, keywords=None, *, from_report: str | None = None,
        settings=None):
    """A new note from `title` and `content`, or (with `from_report`, a saved report's id or its start) the
    report with its numbered sources; `keywords` a list or comma-separated text. Returns the Note."""
    if from_report:
        if content:
            raise BadArgument(None, "give content or from_report, not both")
        return stored(lambda: note_from_report(from_report, title, keywords, settings))
    if content is None or not isinstance(content, str):
        raise BadArgument(None, "a note needs a title and content (or from_report, a saved report's id)")
    title = text_argument("title", title)
    return stored(lambda: _store(settings).add_note(title, content, keywords))


def note_from_report(report_id: str, title: str | None, keywords, settings=None):
    """Save the past report `report_id` (or the start of its id) as a note; returns the note."""
    from App_Function_Libraries.DB.notes_io import save_report_as_note
    from App_Function_Libraries.DB.research_store import get_research_store
    research = get_research_store(settings_or_current(settings))
    report = research.load_report(research.resolve_id(report_id))
    return save_report_as_note(_store(settings), report, title=title, keywords=keywords)
