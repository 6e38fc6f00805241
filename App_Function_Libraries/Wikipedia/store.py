"""The passage store of a Quarry index: passage text, documents (title, url) and an FTS5 table, in SQLite.

Rows are numbered from 0 in input order and are the same numbers as the faiss row ids and usearch keys.
"""
from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from App_Function_Libraries.Retrieval.bm25 import tokenize
from App_Function_Libraries.Wikipedia.layout import IndexCorrupt

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (doc INTEGER PRIMARY KEY, title TEXT NOT NULL, url TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS passages (row INTEGER PRIMARY KEY, pid TEXT NOT NULL, doc INTEGER NOT NULL,
                                     text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS passages_doc ON passages(doc);
"""
FTS_SCHEMA = "CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(title, text, content='', " \
             "tokenize='porter unicode61')"
MAX_FTS_TERMS = 32


@dataclass
class PassageRow:
    row: int
    pid: str
    title: str
    url: str
    text: str


@dataclass
class NewPassage:
    pid: str
    title: str
    url: str
    text: str


def fts_match_expression(query: str) -> str:
    """The query's words as an FTS5 expression that any of them matches (quoted: no FTS syntax gets through)."""
    terms = list(dict.fromkeys(tokenize(query)))[:MAX_FTS_TERMS]
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class PassageStoreWriter:
    """Appends passages during a build; `truncate(n)` drops rows >= n (resuming after an interruption)."""

    def __init__(self, path: Path):
        self.path = path
        self.db = sqlite3.connect(str(path))
        self.db.executescript(SCHEMA)
        self._docs: dict[str, int] = dict(self.db.execute("SELECT url, doc FROM documents"))

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]

    def truncate(self, rows: int) -> None:
        self.db.execute("DELETE FROM passages WHERE row >= ?", (rows,))
        self.db.execute("DELETE FROM documents WHERE doc NOT IN (SELECT DISTINCT doc FROM passages)")
        self.db.commit()
        self._docs = dict(self.db.execute("SELECT url, doc FROM documents"))

    def add(self, first_row: int, passages: list[NewPassage]) -> None:
        rows = []
        for i, p in enumerate(passages):
            doc = self._docs.get(p.url)
            if doc is None:
                doc = len(self._docs)
                self.db.execute("INSERT INTO documents (doc, title, url) VALUES (?, ?, ?)", (doc, p.title, p.url))
                self._docs[p.url] = doc
            rows.append((first_row + i, p.pid, doc, p.text))
        self.db.executemany("INSERT INTO passages (row, pid, doc, text) VALUES (?, ?, ?, ?)", rows)

    def commit(self) -> None:
        self.db.commit()

    def finish(self, fts: bool = True) -> int:
        """Build the full-text table (once, at the end) and return the number of documents."""
        if fts:
            self.db.execute("DROP TABLE IF EXISTS passages_fts")
            self.db.execute(FTS_SCHEMA)
            self.db.execute("INSERT INTO passages_fts (rowid, title, text) SELECT p.row, d.title, p.text "
                            "FROM passages p JOIN documents d ON d.doc = p.doc")
        self.db.commit()
        self.db.execute("VACUUM")
        docs = len(self._docs)
        self.db.close()
        return docs


class PassageStore:
    """Read-only access for searching; one connection shared by the UI's threads, its reads serialised."""

    def __init__(self, path: Path):
        self.lock = threading.Lock()
        if not path.is_file():
            raise IndexCorrupt(f"{path} is missing; rebuild with: python app.py wiki build")
        try:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            self.db.execute("SELECT row, pid, doc, text FROM passages LIMIT 1").fetchall()
            self.db.execute("SELECT doc, title, url FROM documents LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            raise IndexCorrupt(f"{path} is not a readable passage store ({exc})") from exc
        self.has_fts = bool(self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'passages_fts'").fetchone())

    def _query(self, sql: str, args=()) -> list[tuple]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def count(self) -> int:
        return self._query("SELECT COUNT(*) FROM passages")[0][0]

    def passages(self, rows: list[int]) -> list[PassageRow]:
        """The passages with these rows, in the same order (rows that do not exist are left out)."""
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        found = {r[0]: PassageRow(*r) for r in self._query(
            f"SELECT p.row, p.pid, d.title, d.url, p.text FROM passages p JOIN documents d ON d.doc = p.doc "
            f"WHERE p.row IN ({marks})", [int(r) for r in rows])}
        return [found[r] for r in rows if r in found]

    def document_rows(self, url: str) -> list[int]:
        return [r[0] for r in self._query(
            "SELECT p.row FROM passages p JOIN documents d ON d.doc = p.doc WHERE d.url = ? ORDER BY p.row", (url,))]

    def full_text_search(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(row, BM25 score: higher is better) for passages sharing words with the query."""
        expr = fts_match_expression(query)
        if not self.has_fts or not expr:
            return []
        return [(r, -s) for r, s in self._query(
            "SELECT rowid, bm25(passages_fts) AS s FROM passages_fts WHERE passages_fts MATCH ? "
            "ORDER BY s LIMIT ?", (expr, limit))]

    def close(self) -> None:
        self.db.close()
