"""The documents index: one SQLite file (documents, nodes with their parent links and vectors, an FTS5
table for BM25, skipped files, the annotation cache) and a faiss file per node group beside it.

Every write of a document and its nodes is one transaction; the faiss indexes follow in memory and are
saved by `flush()`. Thread-safe: one connection guarded by a lock (the UI calls from worker threads).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from App_Function_Libraries.Documents.doc_types import DocumentInfo, DocumentNotFound, DocumentsError
from App_Function_Libraries.Documents.node_groups import NodeDraft
from App_Function_Libraries.Documents.vector_index import VectorIndex

DB_NAME = "documents.sqlite3"
SCHEMA_VERSION = "1"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, name TEXT NOT NULL, file_type TEXT NOT NULL,
    size INTEGER NOT NULL, content_hash TEXT NOT NULL, recipe TEXT NOT NULL, title TEXT NOT NULL,
    modified TEXT NOT NULL, added_at TEXT NOT NULL, pages INTEGER NOT NULL, words INTEGER NOT NULL,
    warnings TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS nodes (
    id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    grp TEXT NOT NULL, idx INTEGER NOT NULL, parent_id INTEGER, text TEXT NOT NULL, context TEXT NOT NULL,
    page INTEGER, word_start INTEGER NOT NULL, vec BLOB);
CREATE INDEX IF NOT EXISTS nodes_by_doc ON nodes(doc_id, grp, idx);
CREATE INDEX IF NOT EXISTS nodes_by_parent ON nodes(parent_id);
CREATE INDEX IF NOT EXISTS nodes_by_group ON nodes(grp);
CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5(
    body, grp, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL, content_hash TEXT NOT NULL,
    at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS annotation_cache (key TEXT PRIMARY KEY, context TEXT NOT NULL, at TEXT NOT NULL);
"""
DOCUMENT_COLUMNS = ("id", "path", "name", "file_type", "size", "content_hash", "recipe", "title", "modified",
                    "added_at", "pages", "words", "warnings")
NODE_COLUMNS = "n.id, n.doc_id, n.grp, n.idx, n.parent_id, n.text, n.context, n.page, n.word_start"


@dataclass
class NodeRow:
    id: int
    doc_id: int
    group: str
    index: int
    parent_id: int | None
    text: str
    context: str
    page: int | None
    word_start: int


@dataclass
class NewDocument:
    path: str
    name: str
    file_type: str
    size: int
    content_hash: str
    recipe: str
    title: str
    modified: str
    pages: int
    words: int
    warnings: list[str]


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


class DocumentStore:
    def __init__(self, index_dir: Path):
        self.dir = Path(index_dir)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.dir / DB_NAME, timeout=30, check_same_thread=False,
                                        isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise DocumentsError(f"cannot open the documents index in {self.dir}: {exc}") from None
        self.lock = threading.RLock()
        self._vectors: dict[str, VectorIndex] = {}
        if self.meta("schema") is None:
            self.set_meta("schema", SCHEMA_VERSION)

    def close(self) -> None:
        with self.lock:
            self.flush()
            self.conn.close()

    # ------------------------------------------------------------ reads (one connection: serialized)
    def _all(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        with self.lock:
            return self.conn.execute(sql, args).fetchall()

    def _one(self, sql: str, args: tuple | list = ()) -> tuple | None:
        with self.lock:
            return self.conn.execute(sql, args).fetchone()

    # ------------------------------------------------------------ meta and small tables
    def meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.lock:
            self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                              "value = excluded.value", (key, value))

    def record_skip(self, path: str, reason: str, content_hash: str) -> None:
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO skipped(path, reason, content_hash, at) VALUES (?, ?, ?, ?)",
                              (path, reason, content_hash, now_iso()))

    def clear_skip(self, path: str) -> None:
        with self.lock:
            self.conn.execute("DELETE FROM skipped WHERE path = ?", (path,))

    def skipped_files(self) -> list[tuple[str, str]]:
        return [tuple(r) for r in self._all("SELECT path, reason FROM skipped ORDER BY path")]

    def cached_context(self, key: str) -> str | None:
        row = self._one("SELECT context FROM annotation_cache WHERE key = ?", (key,))
        return row[0] if row else None

    def cache_context(self, key: str, context: str) -> None:
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO annotation_cache(key, context, at) VALUES (?, ?, ?)",
                              (key, context, now_iso()))

    # ------------------------------------------------------------ documents
    def document(self, ref: int | str) -> DocumentInfo:
        """A document by id or by path (as stored: absolute)."""
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            row = self._one("SELECT * FROM documents WHERE id = ?", (int(ref),))
        else:
            row = self._one("SELECT * FROM documents WHERE path = ?", (str(ref),))
        if row is None:
            raise DocumentNotFound(f"no document {ref!r} in the library (see: python app.py docs list)")
        return self._info(row)

    def find_by_path(self, path: str) -> DocumentInfo | None:
        try:
            return self.document(path)
        except DocumentNotFound:
            return None

    def documents(self, with_counts: bool = True) -> list[DocumentInfo]:
        """Every document, by path; `with_counts` adds the number of nodes per group."""
        return [self._info(r, with_counts) for r in self._all("SELECT * FROM documents ORDER BY path")]

    def _info(self, row: tuple, with_counts: bool = True) -> DocumentInfo:
        d = dict(zip(DOCUMENT_COLUMNS, row))
        counts = dict(self._all("SELECT grp, COUNT(*) FROM nodes WHERE doc_id = ? GROUP BY grp",
                                (d["id"],))) if with_counts else {}
        return DocumentInfo(id=d["id"], path=d["path"], name=d["name"], file_type=d["file_type"], size=d["size"],
                            content_hash=d["content_hash"], title=d["title"], modified=d["modified"],
                            added_at=d["added_at"], pages=d["pages"], words=d["words"], nodes=counts,
                            warnings=json.loads(d["warnings"] or "[]"))

    def recipe_of(self, doc_id: int) -> str:
        row = self._one("SELECT recipe FROM documents WHERE id = ?", (doc_id,))
        return row[0] if row else ""

    def write_document(self, doc: NewDocument, drafts: list[NodeDraft], contexts: list[str],
                       vectors: np.ndarray | None, replace_id: int | None = None) -> DocumentInfo:
        """Insert a document and its nodes (replacing an older version) in one transaction."""
        with self.lock:
            old_ids = self._node_ids_by_group(replace_id) if replace_id is not None else {}
            groups = {d.group for d in drafts} | set(old_ids)
            new_ids: list[int] = []
            with self._transaction():
                if replace_id is not None:
                    self._delete_rows(replace_id)
                cur = self.conn.execute(
                    "INSERT INTO documents(path, name, file_type, size, content_hash, recipe, title, modified, "
                    "added_at, pages, words, warnings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc.path, doc.name, doc.file_type, doc.size, doc.content_hash, doc.recipe, doc.title,
                     doc.modified, now_iso(), doc.pages, doc.words, json.dumps(doc.warnings)))
                doc_id = cur.lastrowid
                for i, draft in enumerate(drafts):
                    parent = new_ids[draft.parent] if draft.parent is not None else None
                    vec = vectors[i].astype(np.float32).tobytes() if vectors is not None else None
                    cur = self.conn.execute(
                        "INSERT INTO nodes(doc_id, grp, idx, parent_id, text, context, page, word_start, vec) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (doc_id, draft.group, draft.index, parent, draft.text, contexts[i], draft.page,
                         draft.word_start, vec))
                    new_ids.append(cur.lastrowid)
                    self.conn.execute("INSERT INTO nodes_fts(rowid, body, grp) VALUES (?, ?, ?)",
                                      (new_ids[-1], searched_text(doc.title, contexts[i], draft.text), draft.group))
                versions = self._bump_versions(groups)
            self._follow_vectors(old_ids, drafts, new_ids, vectors, versions)
            return self.document(doc_id)

    def delete_document(self, doc_id: int) -> None:
        with self.lock:
            old_ids = self._node_ids_by_group(doc_id)
            with self._transaction():
                self._delete_rows(doc_id)
                versions = self._bump_versions(set(old_ids))
            self._follow_vectors(old_ids, [], [], None, versions)

    def _delete_rows(self, doc_id: int) -> None:
        self.conn.execute("DELETE FROM nodes_fts WHERE rowid IN (SELECT id FROM nodes WHERE doc_id = ?)", (doc_id,))
        self.conn.execute("DELETE FROM nodes WHERE doc_id = ?", (doc_id,))
        self.conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

    def _node_ids_by_group(self, doc_id: int) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for node_id, grp in self.conn.execute("SELECT id, grp FROM nodes WHERE doc_id = ?", (doc_id,)):
            out.setdefault(grp, []).append(node_id)
        return out

    def _bump_versions(self, groups: set[str]) -> dict[str, tuple[str, str]]:
        """A new version for each group's vectors: {group: (old, new)}."""
        versions = {g: (self._version(g), uuid.uuid4().hex) for g in groups}
        for g, (_, new) in versions.items():
            self.set_meta(f"vectors_version:{g}", new)
        return versions

    def _version(self, group: str) -> str:
        return self.meta(f"vectors_version:{group}") or "empty"

    def _transaction(self):
        return _Transaction(self.conn)

    # ------------------------------------------------------------ nodes
    def nodes(self, ids: list[int]) -> dict[int, NodeRow]:
        if not ids:
            return {}
        rows = self._all(f"SELECT {NODE_COLUMNS} FROM nodes n WHERE n.id IN (SELECT value FROM json_each(?))",
                         (json.dumps(list(ids)),))
        return {r[0]: NodeRow(*r) for r in rows}

    def children(self, node_id: int) -> list[NodeRow]:
        rows = self._all(f"SELECT {NODE_COLUMNS} FROM nodes n WHERE n.parent_id = ? ORDER BY n.idx", (node_id,))
        return [NodeRow(*r) for r in rows]

    def group_nodes(self, doc_id: int, group: str) -> list[NodeRow]:
        rows = self._all(f"SELECT {NODE_COLUMNS} FROM nodes n WHERE n.doc_id = ? AND n.grp = ? ORDER BY n.idx",
                         (doc_id, group))
        return [NodeRow(*r) for r in rows]

    def groups(self) -> list[str]:
        return [r[0] for r in self._all("SELECT DISTINCT grp FROM nodes ORDER BY grp")]

    def node_ids_for_docs(self, group: str, doc_ids: list[int]) -> list[int]:
        return [r[0] for r in self._all(
            "SELECT id FROM nodes WHERE grp = ? AND doc_id IN (SELECT value FROM json_each(?))",
            (group, json.dumps(doc_ids)))]

    # ------------------------------------------------------------ BM25 (FTS5)
    def bm25(self, fts_query: str, group: str, k: int, doc_ids: list[int] | None = None) -> list[tuple[int, float]]:
        """(node id, score) of the k best BM25 matches in a group, best first (score: higher is better)."""
        if not fts_query:
            return []
        match = f'grp : "{group}" AND body : ({fts_query})'
        sql = ("SELECT nodes_fts.rowid, bm25(nodes_fts, 1.0, 0.0) AS s FROM nodes_fts "
               "WHERE nodes_fts MATCH ?")
        args: list = [match]
        if doc_ids is not None:
            sql += " AND nodes_fts.rowid IN (SELECT id FROM nodes WHERE doc_id IN (SELECT value FROM json_each(?)))"
            args.append(json.dumps(doc_ids))
        sql += " ORDER BY s LIMIT ?"
        args.append(k)
        try:
            rows = self._all(sql, args)
        except sqlite3.OperationalError as exc:
            raise DocumentsError(f"full-text search failed: {exc}") from None
        return [(int(r[0]), -float(r[1])) for r in rows]

    # ------------------------------------------------------------ vectors
    def vector_index(self, group: str, dim: int) -> VectorIndex:
        with self.lock:
            vi = self._vectors.get(group)
            version = self._version(group)
            if vi is None or vi.dim != dim or vi.version != version:  # another process may have written
                vi = VectorIndex.open(self.dir / f"vectors-{group}.faiss", dim, version,
                                      lambda: self._stored_vectors(group, dim))
                self._vectors[group] = vi
            return vi

    def _stored_vectors(self, group: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self._all("SELECT id, vec FROM nodes WHERE grp = ? AND vec IS NOT NULL ORDER BY id", (group,))
        rows = [(i, v) for i, v in rows if len(v) == dim * 4]
        ids = np.array([i for i, _ in rows], dtype=np.int64)
        vecs = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float32).reshape(len(rows), dim)
        return ids, vecs

    def _follow_vectors(self, old_ids: dict[str, list[int]], drafts: list[NodeDraft], new_ids: list[int],
                        vectors: np.ndarray | None, versions: dict[str, tuple[str, str]]) -> None:
        """Apply a committed change to the faiss indexes already loaded; one that was not current before the
        change is dropped (it is rebuilt from the stored vectors when next used)."""
        for group, (old, new) in versions.items():
            vi = self._vectors.get(group)
            if vi is None:
                continue
            if vi.version != old:
                del self._vectors[group]
                continue
            vi.remove(old_ids.get(group, []))
            rows = [i for i, d in enumerate(drafts) if d.group == group]
            if vectors is not None and rows:
                vi.add(np.array([new_ids[i] for i in rows], dtype=np.int64), vectors[rows])
            vi.version = new

    def replace_vectors(self, ids: list[int], vectors: np.ndarray) -> None:
        """Store new vectors for existing nodes (re-embedding with another model); faiss files are rebuilt."""
        with self.lock:
            with self._transaction():
                self.conn.executemany("UPDATE nodes SET vec = ? WHERE id = ?",
                                      [(v.astype(np.float32).tobytes(), i) for i, v in zip(ids, vectors)])
                self._bump_versions(set(self.groups()))
            for vi in self._vectors.values():
                vi.delete_files()
            self._vectors.clear()

    def index_texts(self) -> list[tuple[int, str]]:
        return [(i, index_text(c, t)) for i, c, t in self._all("SELECT id, context, text FROM nodes ORDER BY id")]

    def flush(self) -> None:
        """Save every faiss index changed since it was loaded."""
        with self.lock:
            for vi in self._vectors.values():
                if vi.dirty:
                    vi.save()


def index_text(context: str, text: str) -> str:
    """What the embedder (and a re-ranker) sees: the chunk with its context in front."""
    return f"{context}\n\n{text}" if context else text


#: what BM25 searches besides the chunk and its context (a recipe part: a library indexed before it changed is
#: indexed again on the next add)
SEARCHED = "document title"


def searched_text(title: str, context: str, text: str) -> str:
    """What BM25 searches: the chunk's embedded text with its document's title in front, so a chunk that never
    names its subject is found by the title ("What is the Bountiful Update?" finds the "+ Added …" lines of the
    page titled "Minecraft 1.8 - The Bountiful Update"). Not embedded: on 3,000 SQuAD questions
    (bench/docs_retrieval.py) the title in the embedded text lowered vector recall@1 from 0.626 to 0.607, as
    every chunk of a document moved towards its title, while in BM25 it raised recall@1 from 0.799 to 0.804."""
    return f"{title}\n\n{index_text(context, text)}" if title else index_text(context, text)


class _Transaction:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
        return False
