"""The notes store: markdown notes with keywords, full-text search, optimistic locking and soft delete.

Tables (schema component "notes", see MIGRATIONS):
- notes: nid (stable integer rowid for the FTS index), id (UUID), title, content (markdown), created_at,
  updated_at (epoch seconds), version (bumped by every change; an edit names the version it started from),
  deleted / deleted_at (soft delete), report_id and report (the research run the note came from, as JSON:
  question, sources, citations — so a note keeps them even where the research database is another file)
- keywords: each keyword once, compared case-insensitively (`folded` is the Unicode case-folded form)
- note_keywords: which note has which keyword
- notes_fts: an FTS5 index over title and content, external content kept in step by triggers (removals use
  FTS5's 'delete' command: a plain DELETE on an external-content index would corrupt it)
"""
from __future__ import annotations

import json
import time
import unicodedata
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from App_Function_Libraries.DB.connection import (NotFoundError, StoreError, open_store_database, shared_store,
                                                   write_transaction)
from App_Function_Libraries.DB.file_errors import report_file_errors
from App_Function_Libraries.DB.fts_query import parse_query
from App_Function_Libraries.DB.snippets import MARKS

COMPONENT = "notes"
MAX_KEYWORD_CHARS = 100

MIGRATIONS = [
    """
    CREATE TABLE notes (
        nid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
        deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
        deleted_at REAL,
        report_id TEXT,
        report TEXT
    );
    CREATE INDEX notes_live_updated ON notes(deleted, updated_at);
    CREATE INDEX notes_report ON notes(report_id);
    CREATE TABLE keywords (
        id INTEGER PRIMARY KEY,
        keyword TEXT NOT NULL,
        folded TEXT NOT NULL UNIQUE
    );
    CREATE TABLE note_keywords (
        note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
        keyword_id INTEGER NOT NULL REFERENCES keywords(id) ON DELETE CASCADE,
        PRIMARY KEY (note_id, keyword_id)
    ) WITHOUT ROWID;
    CREATE INDEX note_keywords_keyword ON note_keywords(keyword_id);
    CREATE VIRTUAL TABLE notes_fts USING fts5(
        title, content, content='notes', content_rowid='nid', tokenize='unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts(rowid, title, content) VALUES (new.nid, new.title, new.content);
    END;
    CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, title, content) VALUES ('delete', old.nid, old.title, old.content);
    END;
    CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, content ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, title, content) VALUES ('delete', old.nid, old.title, old.content);
        INSERT INTO notes_fts(rowid, title, content) VALUES (new.nid, new.title, new.content);
    END;
    """,
]


class StaleEditError(StoreError):
    """The note changed since the editor loaded it; nothing was written."""


class AlreadyInTrashError(StoreError):
    """A note that is already in the trash was deleted again (without permanent=True); nothing changed."""


class NoteInputError(StoreError, ValueError):
    """A title, content or keyword that cannot be stored (empty title, invalid text, ...)."""


@dataclass
class Note:
    id: str
    title: str
    content: str
    keywords: list[str] = field(default_factory=list)
    created_at: float = 0.0
    updated_at: float = 0.0
    version: int = 1
    deleted: bool = False
    deleted_at: float | None = None
    report_id: str | None = None
    report: dict[str, Any] | None = None  # the research run it came from: question, sources, citations, ...

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "content": self.content, "keywords": list(self.keywords),
                "created_at": self.created_at, "updated_at": self.updated_at, "version": self.version,
                "deleted": self.deleted, "deleted_at": self.deleted_at, "report_id": self.report_id,
                "report": self.report}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Note":
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class NoteHit:
    """A search result: the note (without its report snapshot) and a snippet with the matches marked."""
    note: Note
    snippet: str
    score: float


# ---------------------------------------------------------------- input checks

def _valid_text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise NoteInputError(f"the {what} must be text")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise NoteInputError(f"the {what} contains characters that are not valid text") from None
    return value


def _valid_title(title: Any) -> str:
    title = _valid_text(title, "title")
    if not title.strip():
        raise NoteInputError("a note needs a title")
    return title


def fold_keyword(keyword: str) -> str:
    """The form keywords are compared in: Unicode-normalised, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", keyword).casefold().split())


def clean_keywords(keywords: Iterable[str] | str | None) -> list[str]:
    """Keywords as given (a list or a comma-separated string), trimmed, without empties or case-duplicates."""
    if keywords is None:
        return []
    if isinstance(keywords, str):
        keywords = keywords.split(",")
    out, seen = [], set()
    for keyword in keywords:
        keyword = " ".join(_valid_text(keyword, "keyword").split())
        if not keyword:
            continue
        if len(keyword) > MAX_KEYWORD_CHARS:
            raise NoteInputError(f"keyword {keyword[:20]!r}... is longer than {MAX_KEYWORD_CHARS} characters")
        if fold_keyword(keyword) not in seen:
            seen.add(fold_keyword(keyword))
            out.append(keyword)
    return out


# ---------------------------------------------------------------- the store

@report_file_errors("[databases] notes_db")
class NotesStore:
    """Thread-safe: each thread uses its own connection to the file at `path`."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def _db(self):
        return open_store_database(self.path, COMPONENT, MIGRATIONS)

    # ------------------------------------------------------------ create, read

    def add_note(self, title: str, content: str, keywords: Iterable[str] | str | None = None, *,
                 report_id: str | None = None, report: dict[str, Any] | None = None, note_id: str | None = None,
                 created_at: float | None = None, updated_at: float | None = None, version: int = 1,
                 deleted: bool = False, deleted_at: float | None = None) -> Note:
        """Create a note (one transaction). The keyword arguments after `report` restore an exported note."""
        now = time.time()
        created = float(created_at if created_at is not None else now)
        note = Note(id=note_id or str(uuid.uuid4()), title=_valid_title(title), content=_valid_text(content, "content"),
                    keywords=clean_keywords(keywords), created_at=created,
                    updated_at=float(updated_at if updated_at is not None else created), version=max(1, int(version)),
                    deleted=bool(deleted), deleted_at=deleted_at if deleted else None, report_id=report_id,
                    report=report)
        db = self._db()
        with write_transaction(db):
            if db.conn.execute("SELECT 1 FROM notes WHERE id = ?", [note.id]).fetchone():
                raise StoreError(f"a note with id {note.id} already exists")
            db.conn.execute(
                "INSERT INTO notes (id, title, content, created_at, updated_at, version, deleted, deleted_at, "
                "report_id, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [note.id, note.title, note.content, note.created_at, note.updated_at, note.version, int(note.deleted),
                 note.deleted_at, note.report_id, None if report is None else json.dumps(report, ensure_ascii=False)])
            self._link_keywords(db, note.id, note.keywords)
        return note

    def get_note(self, note_id: str, include_deleted: bool = True) -> Note:
        """The note `note_id` (with its keywords and report snapshot). Raises NotFoundError."""
        rows = list(self._db().query("SELECT * FROM notes WHERE id = ?", [note_id]))
        if not rows or (rows[0]["deleted"] and not include_deleted):
            raise NotFoundError(f"no note with id {note_id!r}")
        return self._note_from_row(rows[0])

    def resolve_id(self, prefix: str, include_deleted: bool = True) -> str:
        """The full id of the note whose id starts with `prefix` (as printed by `notes list`)."""
        prefix = prefix.strip()
        sql = "SELECT id FROM notes WHERE substr(id, 1, ?) = ?" + ("" if include_deleted else " AND deleted = 0")
        rows = self._db().execute(sql + " LIMIT 2", [len(prefix), prefix]).fetchall() if prefix else []
        if not rows:
            raise NotFoundError(f"no note with id {prefix!r}")
        if len(rows) > 1:
            raise NotFoundError(f"id {prefix!r} matches several notes; give more characters")
        return rows[0][0]

    def list_notes(self, keyword: str | None = None, limit: int = 50, offset: int = 0,
                   deleted: bool = False, with_report: bool = False) -> list[Note]:
        """Notes newest-edited first: live ones, or the deleted ones (the trash) with deleted=True."""
        sql, args = "SELECT n.* FROM notes n", []
        if keyword is not None:
            sql += (" JOIN note_keywords nk ON nk.note_id = n.id JOIN keywords k ON k.id = nk.keyword_id"
                    " AND k.folded = ?")
            args.append(fold_keyword(keyword))
        sql += " WHERE n.deleted = ? ORDER BY n.updated_at DESC, n.nid DESC LIMIT ? OFFSET ?"
        args += [int(deleted), max(0, int(limit)), max(0, int(offset))]
        return [self._note_from_row(r, with_report) for r in self._db().query(sql, args)]

    def all_notes(self, include_deleted: bool = False) -> list[Note]:
        """Every note with everything it holds, oldest first (for export)."""
        sql = "SELECT * FROM notes" + ("" if include_deleted else " WHERE deleted = 0") + " ORDER BY nid"
        return [self._note_from_row(r) for r in self._db().query(sql)]

    def count_notes(self, deleted: bool = False) -> int:
        return self._db().execute("SELECT count(*) FROM notes WHERE deleted = ?", [int(deleted)]).fetchone()[0]

    def list_keywords(self) -> list[tuple[str, int]]:
        """Keywords in use by live notes with how many notes have each, most used first."""
        rows = self._db().execute(
            "SELECT k.keyword, count(*) AS uses FROM keywords k JOIN note_keywords nk ON nk.keyword_id = k.id "
            "JOIN notes n ON n.id = nk.note_id AND n.deleted = 0 GROUP BY k.id ORDER BY uses DESC, k.folded")
        return [(r[0], r[1]) for r in rows]

    def search_notes(self, query: str, limit: int = 20, offset: int = 0, include_deleted: bool = False,
                     mark: tuple[str, str] = MARKS) -> list[NoteHit]:
        """Full-text search over titles and contents, best match first. Any text is safe (see fts_query).

        Matches in the snippet are between `mark` (by default control characters: see snippets.py). A query
        of only left-out terms (`-honey`) lists the notes without them, newest edited first."""
        parsed = parse_query(query)
        live = "" if include_deleted else " AND n.deleted = 0"
        page = [max(0, int(limit)), max(0, int(offset))]
        if parsed.wanted is not None:
            sql = ("SELECT n.*, snippet(notes_fts, -1, ?, ?, '…', 16) AS snippet, bm25(notes_fts, 5.0, 1.0) AS score "
                   "FROM notes_fts JOIN notes n ON n.nid = notes_fts.rowid WHERE notes_fts MATCH ?" + live
                   + " ORDER BY score, n.nid LIMIT ? OFFSET ?")
            rows = self._db().query(sql, [mark[0], mark[1], parsed.expression(), *page])
        elif parsed.unwanted is not None:
            sql = ("SELECT n.*, substr(n.content, 1, 200) AS snippet, 0.0 AS score FROM notes n WHERE n.nid NOT IN "
                   "(SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)" + live
                   + " ORDER BY n.updated_at DESC, n.nid DESC LIMIT ? OFFSET ?")
            rows = self._db().query(sql, [parsed.unwanted, *page])
        else:
            return []
        return [NoteHit(note=self._note_from_row(r, with_report=False), snippet=r["snippet"], score=r["score"])
                for r in rows]

    # ------------------------------------------------------------ change

    def update_note(self, note_id: str, expected_version: int, *, title: str | None = None,
                    content: str | None = None, keywords: Iterable[str] | str | None = None) -> Note:
        """Change a live note's title, content and/or keywords, only if it is still at `expected_version`.

        Raises StaleEditError (nothing written) when someone else changed it since that version was read."""
        new_title = None if title is None else _valid_title(title)
        new_content = None if content is None else _valid_text(content, "content")
        new_keywords = None if keywords is None else clean_keywords(keywords)
        db = self._db()
        with write_transaction(db):
            current = self._locked_current(db, note_id, expected_version, "edit")
            if current["deleted"]:
                raise StoreError(f"note {note_id} is deleted; restore it before editing")
            db.conn.execute(
                "UPDATE notes SET title = ?, content = ?, updated_at = ?, version = version + 1 WHERE id = ?",
                [new_title if new_title is not None else current["title"],
                 new_content if new_content is not None else current["content"],
                 _later_than(current["updated_at"]), note_id])
            if new_keywords is not None:
                db.conn.execute("DELETE FROM note_keywords WHERE note_id = ?", [note_id])
                self._link_keywords(db, note_id, new_keywords)
                db.conn.execute("DELETE FROM keywords WHERE id NOT IN (SELECT keyword_id FROM note_keywords)")
        return self.get_note(note_id)

    def delete_note(self, note_id: str, expected_version: int | None = None, permanent: bool = False) -> None:
        """Move a note to the trash (restorable), or with permanent=True erase it for good.

        Raises AlreadyInTrashError for a note that is in the trash already (unless permanent)."""
        db = self._db()
        with write_transaction(db):
            current = self._locked_current(db, note_id, expected_version, "delete")
            if current["deleted"] and not permanent:
                raise AlreadyInTrashError(f"note {note_id[:8]} is already in the trash")
            if permanent:
                db.conn.execute("DELETE FROM notes WHERE id = ?", [note_id])
                db.conn.execute("DELETE FROM keywords WHERE id NOT IN (SELECT keyword_id FROM note_keywords)")
            else:
                db.conn.execute("UPDATE notes SET deleted = 1, deleted_at = ?, version = version + 1 WHERE id = ?",
                                [time.time(), note_id])

    def restore_note(self, note_id: str) -> Note:
        """Bring a note back from the trash."""
        db = self._db()
        with write_transaction(db):
            current = self._locked_current(db, note_id, None, "restore")
            if not current["deleted"]:
                raise StoreError(f"note {note_id} is not deleted")
            db.conn.execute("UPDATE notes SET deleted = 0, deleted_at = NULL, version = version + 1 WHERE id = ?",
                            [note_id])
        return self.get_note(note_id)

    def replace_note(self, note: Note, expected_version: int) -> Note:
        """Overwrite every field of an existing note with `note` (an import of a newer copy), version-checked."""
        db = self._db()
        with write_transaction(db):
            self._locked_current(db, note.id, expected_version, "replace")
            db.conn.execute(
                "UPDATE notes SET title = ?, content = ?, created_at = ?, updated_at = ?, version = ?, deleted = ?, "
                "deleted_at = ?, report_id = ?, report = ? WHERE id = ?",
                [_valid_title(note.title), _valid_text(note.content, "content"), note.created_at, note.updated_at,
                 max(1, int(note.version)), int(note.deleted), note.deleted_at if note.deleted else None,
                 note.report_id, None if note.report is None else json.dumps(note.report, ensure_ascii=False),
                 note.id])
            db.conn.execute("DELETE FROM note_keywords WHERE note_id = ?", [note.id])
            self._link_keywords(db, note.id, clean_keywords(note.keywords))
            db.conn.execute("DELETE FROM keywords WHERE id NOT IN (SELECT keyword_id FROM note_keywords)")
        return self.get_note(note.id)

    def find_same(self, note: Note) -> Note | None:
        """A stored note (live or in the trash) with the same title, content, timestamps and keywords."""
        wanted = sorted(map(fold_keyword, clean_keywords(note.keywords)))
        rows = self._db().query("SELECT * FROM notes WHERE title = ? AND content = ? AND created_at = ? AND "
                                "updated_at = ? ORDER BY deleted, nid", [note.title, note.content,
                                                                          note.created_at, note.updated_at])
        for row in rows:
            found = self._note_from_row(row, with_report=False)
            if sorted(map(fold_keyword, found.keywords)) == wanted:
                return found
        return None

    def check_index(self) -> None:
        """Raise sqlite3.DatabaseError if the full-text index does not match the notes (FTS5 integrity-check)."""
        self._db().execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")

    # ------------------------------------------------------------ helpers

    @staticmethod
    def _locked_current(db, note_id: str, expected_version: int | None, action: str) -> dict[str, Any]:
        """The note's row read inside the write transaction, after checking the version the caller saw."""
        rows = list(db.query("SELECT * FROM notes WHERE id = ?", [note_id]))
        if not rows:
            raise NotFoundError(f"no note with id {note_id!r}")
        row = rows[0]
        if expected_version is not None and row["version"] != int(expected_version):
            raise StaleEditError(
                f"note {note_id[:8]} was changed elsewhere since you opened it (it is now at version "
                f"{row['version']}, you started from version {expected_version}); nothing was changed by this "
                f"{action} — reload the note and apply it again")
        return row

    @staticmethod
    def _link_keywords(db, note_id: str, keywords: list[str]) -> None:
        for keyword in keywords:
            folded = fold_keyword(keyword)
            db.conn.execute("INSERT OR IGNORE INTO keywords (keyword, folded) VALUES (?, ?)", [keyword, folded])
            db.conn.execute("INSERT OR IGNORE INTO note_keywords (note_id, keyword_id) "
                            "SELECT ?, id FROM keywords WHERE folded = ?", [note_id, folded])

    def _note_from_row(self, row: dict[str, Any], with_report: bool = True) -> Note:
        keywords = [r[0] for r in self._db().execute(
            "SELECT k.keyword FROM note_keywords nk JOIN keywords k ON k.id = nk.keyword_id "
            "WHERE nk.note_id = ? ORDER BY k.folded", [row["id"]])]
        report = json.loads(row["report"]) if with_report and row["report"] else None
        return Note(id=row["id"], title=row["title"], content=row["content"], keywords=keywords,
                    created_at=row["created_at"], updated_at=row["updated_at"], version=row["version"],
                    deleted=bool(row["deleted"]), deleted_at=row["deleted_at"], report_id=row["report_id"],
                    report=report)


def _later_than(previous: float) -> float:
    """Now, but never earlier than the previous timestamp (clocks can step back)."""
    now = time.time()
    return now if now > previous else previous + 1e-6


def get_notes_store(settings=None) -> NotesStore:
    """The store at `settings.databases.notes_db` (default Databases/quarry.db), shared by the whole process."""
    return shared_store(NotesStore, "notes_db", settings)
