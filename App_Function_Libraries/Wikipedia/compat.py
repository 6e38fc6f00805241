"""Reading a folder laid out like the public wikipedia-2023-11-en-index.

That layout has `faiss-ubinary.index` (packed sign bits), `usearch-int8.index` (int8 vectors, key = row),
`document-url-mappings.sqlite` (a SqliteDict table: key = article URL, value = a pickled list of rows) and
the passage text as a `datasets` folder saved to disk (columns _id, title, url, text) in a subfolder.

Those pickles come from a download, and unpickling runs code, so `load_row_list` refuses anything but a
plain list of ints: the pickle's opcodes are checked against a short allow-list before it is read, and
the unpickler resolves no class or function at all.
"""
from __future__ import annotations

import io
import pickle
import pickletools
import sqlite3
from pathlib import Path

from App_Function_Libraries.Wikipedia.layout import COMPAT_MAPPING_FILE, COMPAT_TEXT_DIRS, IndexCorrupt
from App_Function_Libraries.Wikipedia.store import PassageRow

MAX_PICKLE_BYTES = 16 * 1024 * 1024
# Everything a pickle of a list of ints needs, for every protocol; no opcode that imports, calls or builds.
SAFE_OPCODES = frozenset({
    "PROTO", "FRAME", "STOP", "MARK", "EMPTY_LIST", "LIST", "APPEND", "APPENDS",
    "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4",
    "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE", "GET", "BINGET", "LONG_BINGET",
})


class UnsafePickle(IndexCorrupt):
    """A pickle that is not a plain list of ints (possibly an attempt to run code): refused unread."""


class _NoGlobalsUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise UnsafePickle(f"refused a pickle that asks for {module}.{name}")

    def persistent_load(self, pid):
        raise UnsafePickle("refused a pickle with persistent references")


def load_row_list(blob: bytes) -> list[int]:
    """The list of ints in a pickle, or UnsafePickle for anything else."""
    if not isinstance(blob, (bytes, bytearray, memoryview)) or len(blob) > MAX_PICKLE_BYTES:
        raise UnsafePickle("refused a row-list value that is not a small pickle")
    blob = bytes(blob)
    try:
        for op, _arg, _pos in pickletools.genops(blob):
            if op.name not in SAFE_OPCODES:
                raise UnsafePickle(f"refused a pickle using opcode {op.name} (only lists of ints are accepted)")
        value = _NoGlobalsUnpickler(io.BytesIO(blob)).load()
    except UnsafePickle:
        raise
    except Exception as exc:  # malformed pickles raise many types
        raise UnsafePickle(f"refused an unreadable pickle ({type(exc).__name__})") from None
    if not isinstance(value, list) or not all(type(v) is int and v >= 0 for v in value):
        raise UnsafePickle("refused a pickle that is not a list of row numbers")
    return value


def _mapping_table(db: sqlite3.Connection, path: Path) -> str:
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for name in ["unnamed"] + tables:
        if name in tables:
            cols = {r[1] for r in db.execute(f'PRAGMA table_info("{name}")')}
            if {"key", "value"} <= cols:
                return name
    raise IndexCorrupt(f"{path}: no (key, value) table of document URLs")


def find_text_dir(folder: Path) -> Path:
    for name in COMPAT_TEXT_DIRS:
        if (folder / name).is_dir():
            return folder / name
    raise IndexCorrupt(f"{folder}: the passage text is missing; put the text dataset (saved with "
                       f"`save_to_disk`) in {folder / COMPAT_TEXT_DIRS[0]} (see Docs/wikipedia.md)")


class CompatStore:
    """The passage store interface (see store.PassageStore) over the public layout."""
    has_fts = False

    def __init__(self, folder: Path):
        from App_Function_Libraries.Wikipedia.readers import arrow_files, open_arrow_table
        import pyarrow as pa
        path = folder / COMPAT_MAPPING_FILE
        try:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            self.table_name = _mapping_table(self.db, path)
        except sqlite3.DatabaseError as exc:
            raise IndexCorrupt(f"{path}: not a readable SQLite file ({exc})") from exc
        text_dir = find_text_dir(folder)
        files = arrow_files(text_dir)
        if not files:
            raise IndexCorrupt(f"{text_dir}: no .arrow files")
        self.table = pa.concat_tables([open_arrow_table(f) for f in files])
        missing = {"title", "url", "text"} - set(self.table.schema.names)
        if missing:
            raise IndexCorrupt(f"{text_dir}: the text dataset lacks columns {', '.join(sorted(missing))}")
        self.id_column = "_id" if "_id" in self.table.schema.names else None

    def count(self) -> int:
        return self.table.num_rows

    def passages(self, rows: list[int]) -> list[PassageRow]:
        rows = [int(r) for r in rows if 0 <= int(r) < self.table.num_rows]
        if not rows:
            return []
        cols = ["title", "url", "text"] + ([self.id_column] if self.id_column else [])
        picked = self.table.select(cols).take(rows).to_pydict()
        ids = picked.get(self.id_column) if self.id_column else [str(r) for r in rows]
        return [PassageRow(r, str(ids[i]), picked["title"][i], picked["url"][i], picked["text"][i])
                for i, r in enumerate(rows)]

    def document_rows(self, url: str) -> list[int]:
        row = self.db.execute(f'SELECT value FROM "{self.table_name}" WHERE key = ?', (url,)).fetchone()
        return sorted(load_row_list(row[0])) if row else []

    def full_text_search(self, query: str, limit: int) -> list[tuple[int, float]]:
        return []

    def close(self) -> None:
        self.db.close()
