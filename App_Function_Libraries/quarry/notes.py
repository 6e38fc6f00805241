"""Your notes: list, search, read, add (text, a research report), edit, delete and restore (the trash), keywords,
export and import. Every storage failure leaves as QuarryError (AlreadyInTrash for a note deleted twice)."""
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


class AlreadyInTrash(QuarryError):
    """delete() of a note that is in the trash already (restore brings it back; permanent erases it)."""

    def __init__(self, message: str, note_id: str) -> None:
        super().__init__(message)
        self.note_id = note_id


def _store(settings=None):
    from App_Function_Libraries.DB.notes_store import get_notes_store
    return get_notes_store(settings_or_current(settings))


def search(query: str, limit: int = 20, offset: int = 0, *, include_deleted: bool = False, keyword: str | None = None,
           settings=None):
    """NoteHits (note, snippet with the matches marked, score), best first. Any text is a safe query.
    include_deleted: the notes in the trash are searched too; keyword: only notes that have it (any case)."""
    query = text_argument("query", query)
    limit = count_argument("limit", limit, 1, 1000) or 20
    offset = count_argument("offset", offset, 0) or 0
    hits = stored(lambda: _store(settings).search_notes(query, limit=limit, offset=offset,
                                                        include_deleted=bool(include_deleted)))
    if keyword:
        from App_Function_Libraries.DB.notes_store import fold_keyword
        hits = [h for h in hits if fold_keyword(keyword) in {fold_keyword(k) for k in h.note.keywords}]
    return hits


def list(keyword: str | None = None, limit: int = 50, offset: int = 0, *, deleted: bool = False,  # noqa: A001
         settings=None):
    """Notes, most recently edited first; `keyword`: only those that have it (any case); `deleted`: the trash."""
    return stored(lambda: _store(settings).list_notes(keyword=keyword, limit=limit, offset=offset,
                                                      deleted=bool(deleted)))


def keywords(settings=None) -> list[tuple[str, int]]:
    """(keyword, how many notes have it) for every keyword in use."""
    return stored(lambda: _store(settings).list_keywords())


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
    if content is None:
        raise BadArgument(None, "a note needs a title and content (or from_report, a saved report's id)")
    return stored(lambda: _store(settings).add_note(title, content, keywords))  # the store checks them


def edit(note_id: str, expected_version: int | None = None, *, title: str | None = None, content: str | None = None,
         keywords=None, settings=None):
    """Change a note's title, content and/or keywords (None: unchanged), only while it is still at
    `expected_version` (None: the version it has now); the changed Note."""
    def work():
        store = _store(settings)
        found = store.get_note(store.resolve_id(note_id))
        version = found.version if expected_version is None else expected_version
        return store.update_note(found.id, version, title=title, content=content, keywords=keywords)
    return stored(work)


def delete(note_id: str, expected_version: int | None = None, *, permanent: bool = False, settings=None) -> str:
    """Move a note to the trash, or (permanent) erase it; its full id. AlreadyInTrash when it is there already."""
    from App_Function_Libraries.DB.notes_store import AlreadyInTrashError

    def work():
        store = _store(settings)
        full_id = store.resolve_id(note_id)
        try:
            store.delete_note(full_id, expected_version=expected_version, permanent=permanent)
        except AlreadyInTrashError as exc:
            raise AlreadyInTrash(one_line(exc), full_id) from exc
        return full_id
    return stored(work)


def restore(note_id: str, settings=None):
    """Bring a note back from the trash; the Note."""
    def work():
        store = _store(settings)
        return store.restore_note(store.resolve_id(note_id))
    return stored(work)


def export(note, fmt: str = "md", settings=None) -> str | bytes:
    """A Note (or its id, or the start of it) in format `fmt` (md, json, html, pdf, docx, bib, ris, csl, txt)."""
    from App_Function_Libraries.DB.export import export_note
    if isinstance(note, str):
        note = get(note, settings)
    return stored(lambda: export_note(note, fmt))


def export_all(destination, include_deleted: bool = False, settings=None) -> int:
    """Every note into the folder `destination`, or a zip when it ends in .zip; how many."""
    from App_Function_Libraries.DB.notes_io import export_notes
    return stored(lambda: export_notes(_store(settings), destination, include_deleted=include_deleted))


def import_file(path, settings=None):
    """Notes from a folder, .zip, .md or .json file; the ImportSummary (line(), errors: what was skipped)."""
    from App_Function_Libraries.DB.notes_io import import_notes
    return stored(lambda: import_notes(_store(settings), path))


def add_result(result, title: str | None = None, keywords=None, settings=None):
    """A research result in hand (saved or not) as a new note: the report with its numbered sources."""
    from App_Function_Libraries.DB.notes_io import save_report_as_note
    return stored(lambda: save_report_as_note(_store(settings), result, title, keywords))


def note_from_report(report_id: str, title: str | None, keywords, settings=None):
    """Save the past report `report_id` (or the start of its id) as a note; returns the note."""
    from App_Function_Libraries.DB.notes_io import save_report_as_note
    from App_Function_Libraries.DB.research_store import get_research_store
    research = get_research_store(settings_or_current(settings))
    report = research.load_report(research.resolve_id(report_id))
    return save_report_as_note(_store(settings), report, title=title, keywords=keywords)
