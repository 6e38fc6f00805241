"""A database file Quarry cannot use (not SQLite, damaged, unreadable, read-only, on a full disk) reported as one
line naming the file and the setting that points at it, instead of sqlite3's bare "file is not a database".

    @report_file_errors("[databases] notes_db")
    class NotesStore: ...   # every public method: such sqlite3 errors become UnusableDatabaseError

Nothing is written to such a file: it stays as it is, for the user to move aside, recover or replace.
"""
from __future__ import annotations

import functools
import inspect
import sqlite3

from App_Function_Libraries.DB.connection import StoreError

# SQLite primary result codes that are about the file rather than the statement
SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 8, 10, 11, 13, 14, 26
FILE_CODES = {SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB}
_MESSAGES = {"file is not a database": SQLITE_NOTADB, "database disk image is malformed": SQLITE_CORRUPT}


class UnusableDatabaseError(StoreError, sqlite3.DatabaseError):
    """The database file cannot be used as it is; nothing was written to it. str() names the file and the fix."""


def file_error_code(exc: BaseException) -> int | None:
    """The SQLite result code of `exc` when it says the file itself is unusable, else None."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        code = _MESSAGES.get(str(exc).strip().lower())
    code = None if code is None else code & 0xFF
    return code if code in FILE_CODES else None


def unusable_message(path, setting: str, exc: BaseException) -> str:
    """One line: what is wrong with the file at `path` and what to do (`setting`, e.g. "[databases] notes_db",
    points at it)."""
    reason = " ".join(str(exc).split())
    fix = f"move it aside or point {setting} elsewhere"
    code = file_error_code(exc)
    if code == SQLITE_NOTADB:
        return f"{path} is not a Quarry database ({reason}): {fix}"
    if code == SQLITE_CORRUPT:
        return f"{path} is damaged ({reason}): {fix} (sqlite3's .recover command may rescue its contents)"
    return f"cannot use the database {path} ({reason}): check the file, its folder and free disk space, or {fix}"


def report_file_errors(setting: str):
    """Class decorator: the class's public methods raise UnusableDatabaseError (a StoreError and still a
    sqlite3.DatabaseError) for a file-level SQLite failure on `self.path`; other errors pass unchanged."""
    def decorate(cls: type) -> type:
        for name, member in list(vars(cls).items()):
            if not name.startswith("_") and inspect.isfunction(member):
                setattr(cls, name, _reporting(member, setting))
        return cls
    return decorate


def _reporting(method, setting: str):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except UnusableDatabaseError:
            raise
        except sqlite3.DatabaseError as exc:
            if file_error_code(exc) is None:
                raise
            raise UnusableDatabaseError(unusable_message(self.path, setting, exc)) from exc
    return wrapper
