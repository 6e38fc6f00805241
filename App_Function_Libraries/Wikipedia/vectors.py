"""The vector part of the index: sign bits in RAM, int8 vectors memory-mapped, and the staged search.

Search for one float query (unit length):
  1. Sign scan (signscan.py): the float query against the sign bits of every passage (each bit read as
     + or - its dimension's typical size), with faiss's fast-scan kernels, in parallel row shards; keeps
     the best `int8_candidates` rows. It reads the same packed bits a Hamming scan would, and orders
     passages far better than Hamming distance because the query keeps its values.
  2. int8 rescoring: the float query against the int8 vectors of those rows, read from the memory-mapped
     usearch file, keeps the best `top_k`.
"""
from __future__ import annotations

import mmap
import os
from pathlib import Path

import numpy as np

from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.layout import IndexCorrupt
from App_Function_Libraries.Wikipedia.signscan import SignScan
from App_Function_Libraries.Wikipedia.vector_files import USEARCH_MAGIC

# int8 vectors up to this size (a million 384-d rows take 366 MiB) are memory-mapped and read through the
# map: fastest once its pages are mapped. More are read row by row with pread: Linux maps up to 64
# KiB of cached pages around each page a read of a map faults in, so random reads would leave most of a
# cached 17 GB file resident in the process, and each fault costs more than a read (41M rows, 2,733 cached
# rows read again: 19 ms of CPU through the map, 11 ms with pread).
INT8_MAP_MAX = 384 * 1024 * 1024
# int8 vectors this big (10 million 384-d rows) are unlikely to stay in the page cache: each read first asks
# the kernel for all its rows (posix_fadvise WILLNEED), so that the disk reads them at once rather than one
# after another (1,000 uncached rows of the 41M-row file on this machine: 95 -> 31 ms). It costs about
# 1.5 ms per 1,000 rows when they are cached.
INT8_PREFETCH_MIN = 4 * 1024 ** 3
# The sign scan passes at least one row in this many to int8 rescoring: a big index needs more candidates
# for the same recall (41M Gaussian rows, neighbour recall@10 against exact int8 search with 1,000
# candidates: 0.862, 2,000: 0.917, 3,000: 0.945; 1M rows with 1,000: 0.946). No change up to 15M rows.
ROWS_PER_INT8_CANDIDATE = 15_000


class PositionalInt8Store:
    """int8 vectors read by row position straight from a usearch file whose slots are in key order (as
    Quarry's builder writes it): the vector matrix at the start of the file is memory-mapped (a big file is
    read row by row instead, see INT8_MAP_MAX), nothing is loaded."""

    def __init__(self, path: Path, count: int, dimension: int):
        try:
            header = np.fromfile(str(path), dtype=np.uint32, count=2)
            size = path.stat().st_size
        except OSError as exc:
            raise IndexCorrupt(f"{path} is missing or unreadable ({exc})") from exc
        end = 8 + count * dimension
        if header.shape != (2,) or int(header[0]) != count or int(header[1]) != dimension or size < end + 7:
            raise IndexCorrupt(f"{path}: expected {count} int8 vectors of {dimension} dimensions")
        with path.open("rb") as fh:
            fh.seek(end)
            if fh.read(len(USEARCH_MAGIC)) != USEARCH_MAGIC:
                raise IndexCorrupt(f"{path}: not a usearch index file")
        self.path, self.count, self.dimension = path, count, dimension
        vectors = count * dimension  # bytes of int8 vectors (the file also holds usearch's graph)
        self.file = path.open("rb", buffering=0) if vectors > INT8_MAP_MAX and hasattr(os, "pread") else None
        self.matrix = None if self.file is not None else _map_rows(path, count, dimension)
        self.prefetch = self.file is not None and vectors >= INT8_PREFETCH_MIN and hasattr(os, "posix_fadvise")
        if self.file is not None and hasattr(os, "posix_fadvise"):  # random rows: no reading ahead
            os.posix_fadvise(self.file.fileno(), 0, 0, os.POSIX_FADV_RANDOM)

    def get(self, rows: np.ndarray) -> np.ndarray:
        if self.file is None:  # mapped: one gather (sorting first costs more than it saves in memory)
            return np.take(self.matrix, rows, axis=0)
        order = np.argsort(rows)  # sorted reads walk the file forward
        out = np.empty((len(rows), self.dimension), dtype=np.int8)
        out[order] = self._read(rows[order])
        return out

    def _read(self, rows: np.ndarray) -> np.ndarray:
        fd, width = self.file.fileno(), self.dimension
        offsets = (8 + rows.astype(np.int64) * width).tolist()
        if self.prefetch:
            for offset in offsets:
                os.posix_fadvise(fd, offset, width, os.POSIX_FADV_WILLNEED)
        data = b"".join([os.pread(fd, width, offset) for offset in offsets])
        if len(data) != len(offsets) * width:
            raise IndexCorrupt(f"{self.path} is shorter than its {self.count} int8 vectors; rebuild the index")
        return np.frombuffer(data, np.int8).reshape(len(offsets), width)


def _map_rows(path: Path, count: int, dimension: int) -> np.ndarray:
    """The (count, dimension) int8 matrix after the 8-byte header, memory-mapped read-only. Reads are random
    (a few hundred rows per query), so the kernel is told not to read ahead around each one."""
    if count == 0:
        return np.zeros((0, dimension), dtype=np.int8)
    with path.open("rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    if hasattr(mapped, "madvise") and hasattr(mmap, "MADV_RANDOM"):
        mapped.madvise(mmap.MADV_RANDOM)
    return np.frombuffer(mapped, dtype=np.int8, count=count * dimension, offset=8).reshape(count, dimension)


class KeyedInt8Store:
    """int8 vectors fetched by key from a usearch index viewed (memory-mapped) with usearch itself; for
    files whose slots are not in key order (the public index)."""

    def __init__(self, path: Path, dimension: int):
        from usearch.index import Index
        try:
            meta = Index.metadata(str(path))
        except Exception as exc:  # usearch raises plain RuntimeError/ValueError on bad files
            raise IndexCorrupt(f"{path}: not a usearch index file ({exc})") from exc
        if not meta:
            raise IndexCorrupt(f"{path} is missing")
        if int(meta["dimensions"]) != dimension:
            raise IndexCorrupt(f"{path}: int8 vectors have {meta['dimensions']} dimensions, "
                               f"the binary index {dimension}")
        self.index = Index.restore(str(path), view=True)

    def get(self, rows: np.ndarray) -> np.ndarray:
        found = self.index.get(rows.astype(np.uint64), dtype="i8")
        if any(v is None for v in found):
            raise IndexCorrupt("the int8 index lacks vectors for some rows of the binary index")
        return np.vstack(found).astype(np.int8, copy=False)


class VectorIndex:
    def __init__(self, codes: np.ndarray, int8_store, calib: quantize.Calibration, threads: int = 1,
                 source: Path | None = None):
        """codes: (rows, dim/8) packed sign bits (a memory map is fine: they are read once, when their
        fast-scan packing is made); source: the faiss file they come from, next to which that packing is
        cached (None: packed in memory)."""
        self.scan = SignScan(codes, calib.binary_scale, threads, source)
        self.int8 = int8_store
        self.calib = calib
        self.dimension = int(codes.shape[1]) * 8
        self.count = int(codes.shape[0])

    @property
    def threads(self) -> int:
        return self.scan.workers.threads

    def search(self, query: np.ndarray, top_k: int, int8_candidates: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the top_k nearest passages, best first; scores estimate the float dot product.
        The sign scan keeps max(int8_candidates, top_k, rows / ROWS_PER_INT8_CANDIDATE) rows for int8
        rescoring."""
        if self.count == 0 or top_k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        weights = quantize.int8_weights(query, self.calib)
        rows, scores = self.scan.search(query, self.int8_rows(top_k, int8_candidates),
                                        rescore=lambda some: quantize.int8_scores(weights, self.int8.get(some)))
        keep = _best(scores, top_k)
        return rows[keep].astype(np.int64), scores[keep].astype(np.float32)

    def int8_rows(self, top_k: int, int8_candidates: int) -> int:
        """Rows the sign scan passes to int8 rescoring."""
        return max(int8_candidates, top_k, self.count // ROWS_PER_INT8_CANDIDATE)

    def int8_scores(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The float query against the int8 vectors of any rows (estimated cosine similarity)."""
        if len(rows) == 0:
            return np.zeros(0, np.float32)
        return quantize.int8_scores(quantize.int8_weights(query, self.calib), self.int8.get(rows))

    def close(self) -> None:
        self.scan.close()


def _best(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k highest scores, highest first (ties in position order)."""
    if len(scores) > k:
        top = np.argpartition(-scores, k - 1)[:k]
        return top[np.lexsort((top, -scores[top]))]
    return np.argsort(-scores, kind="stable")
