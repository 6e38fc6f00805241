"""A faiss inner-product index per node group, persisted beside the SQLite file.

The SQLite store keeps every vector as a blob and a version number per group that changes with every
write; the faiss file records the version it was saved at. A missing, unreadable or stale file is rebuilt
from the blobs, so the faiss file is only ever a cache.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import numpy as np


class VectorIndex:
    def __init__(self, path: Path, dim: int):
        import faiss
        self.path = path
        self.dim = dim
        self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self.dirty = False
        self.version = ""  # the store's version of this group that the index reflects

    @property
    def version_path(self) -> Path:
        return self.path.with_name(self.path.name + ".version")

    @classmethod
    def open(cls, path: Path, dim: int, version: str,
             load_all: Callable[[], tuple[np.ndarray, np.ndarray]]) -> "VectorIndex":
        """The saved index when it is current and sound, else one rebuilt from `load_all()` -> (ids, vectors)."""
        vi = cls(path, dim)
        vi.version = version
        if vi._load_saved(version):
            return vi
        ids, vecs = load_all()
        if len(ids):
            vi.add(ids, vecs)
        vi.save(version)
        return vi

    def _load_saved(self, version: str) -> bool:
        import faiss
        try:
            if self.version_path.read_text(encoding="utf-8").strip() != version:
                return False
            index = faiss.read_index(str(self.path))
        except (OSError, RuntimeError, UnicodeDecodeError):
            return False
        if index.d != self.dim:
            return False
        self.index = index
        return True

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids):
            self.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32),
                                    np.asarray(ids, dtype=np.int64))
            self.dirty = True

    def remove(self, ids: list[int]) -> None:
        if ids:
            import faiss
            self.index.remove_ids(faiss.IDSelectorBatch(np.asarray(ids, dtype=np.int64)))
            self.dirty = True

    def search(self, query: np.ndarray, k: int, allowed: list[int] | None = None) -> list[tuple[int, float]]:
        """(id, inner product) of the k nearest, best first; `allowed` limits the search to those ids."""
        if self.size == 0 or k <= 0 or (allowed is not None and not allowed):
            return []
        import faiss
        params = None
        if allowed is not None:
            params = faiss.SearchParameters(sel=faiss.IDSelectorBatch(np.asarray(allowed, dtype=np.int64)))
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        scores, ids = self.index.search(q, min(k, self.size), params=params)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]

    def save(self, version: str | None = None) -> None:
        """Write the index, then its version (a crash between the two leaves a stale version: rebuilt)."""
        version = version or self.version
        import faiss
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        faiss.write_index(self.index, str(tmp))
        os.replace(tmp, self.path)
        self.version_path.write_text(version, encoding="utf-8")
        self.dirty = False

    def delete_files(self) -> None:
        for p in (self.path, self.version_path):
            p.unlink(missing_ok=True)
