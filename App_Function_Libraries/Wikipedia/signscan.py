"""Stage 1 of the vector search: the float query scored against the sign bits of every passage.

Each passage's packed sign bits (the codes of `faiss-ubinary.index`) are read as a product quantizer with
4 dimensions per sub-quantizer: the 4 bits of a nibble pick one of 16 "centroids", the sign patterns
scaled by each dimension's calibration size (`Calibration.binary_scale`). faiss's fast-scan kernels then
score the float query against every passage through 16-entry lookup tables held in SIMD registers (the
tables are rounded to 8 bits, sums kept in 16 bits), reading each code once: the same 48 bytes per
passage as a Hamming scan, and far better ordered than Hamming distance, since the query keeps its values.

The rows are cut into shards searched in parallel threads (faiss releases the GIL); each shard keeps its
best k, and the union's best k is exactly the unsharded search's best k (the lookup tables, and so the
scores, depend only on the query). No shard is larger than MAX_SHARD_ROWS, so a big index has more shards
than threads, taken in turn by the threads.

The codes are packed into faiss's fast-scan layout once and kept next to the index (packed.py); each
shard's faiss index reads its rows' packed bytes where they lie (the memory-mapped cache file, or memory
when no cache can be written): its code table is pointed at them rather than filled with a copy (see
`_BorrowedCodes`), so opening copies nothing and the codes take no anonymous memory.
"""
from __future__ import annotations

import ctypes
import functools
import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from App_Function_Libraries.Wikipedia.packed import BLOCK_ROWS, PackedCodes, blocks, load_packed

MIN_SHARD_ROWS = 65_536  # smaller shards cost more in thread hand-offs than they save
# An index bigger than threads x this gets more shards than threads, taken in turn. Each shard costs CPU of
# its own per query (its top k, merged): 41M rows on 2 threads in 40 shards of 2^20 rows took 112 ms of CPU
# per query against 98 ms in 2 shards, with no better wall time, so shards are this big.
MAX_SHARD_ROWS = 1 << 26
MAX_AUTO_THREADS = 8
# With a rescoring step, each shard rescores its best k / shards x this many rows itself (the merge keeps
# about k / shards of each shard's rows; the few more it keeps from one are rescored after the merge)
RESCORE_AHEAD = 1.1
Rescore = Callable[[np.ndarray], np.ndarray]  # rows -> their scores by a finer measure


def auto_threads() -> int:
    """The CPUs this process may run on, at most MAX_AUTO_THREADS."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_AUTO_THREADS))


def sign_centroids(binary_scale: np.ndarray) -> np.ndarray:
    """(dim/4, 16, 4) float32: for each 4-dimension group, the 16 sign patterns (the nibble's bit 3 is the
    group's first dimension) times the dimensions' scales."""
    scale = np.asarray(binary_scale, dtype=np.float32).reshape(-1, 4)
    values = np.arange(16)[:, None]
    signs = ((values >> np.arange(3, -1, -1)) & 1) * 2.0 - 1.0  # (16, 4)
    return (signs[None, :, :] * scale[:, None, :]).astype(np.float32)


class Shard:
    """One shard's faiss IndexPQFastScan over rows [start, end) of the packed codes, which it reads in place
    when faiss's code table could be pointed at them (else it holds a copy)."""

    def __init__(self, packed: PackedCodes, start: int, end: int, centroids: np.ndarray):
        import faiss
        self.start, self.end = start, end
        width = packed.width
        flat = faiss.IndexPQ(width * 8, width * 2, 4, faiss.METRIC_INNER_PRODUCT)
        faiss.copy_array_to_vector(centroids.ravel(), flat.pq.centroids)
        flat.is_trained = True
        self.index = faiss.IndexPQFastScan(flat, BLOCK_ROWS)  # no rows: an empty code table
        data = packed.rows_slice(start, end)
        self.borrowed = _BorrowedCodes.point(self.index, data)
        if self.borrowed is None:
            self.index.codes.resize(len(data))
            faiss.rev_swig_ptr(self.index.codes.get(), len(data))[:] = data
        self.index.ntotal = end - start
        self.index.ntotal2 = blocks(end - start) * BLOCK_ROWS

    def __del__(self):
        if getattr(self, "borrowed", None) is not None:
            self.borrowed.release()  # first: nothing but writes to the table, so it runs even at interpreter exit
            self.index.ntotal = self.index.ntotal2 = 0  # an index kept by someone else then holds no rows


class _BorrowedCodes:
    """faiss keeps a fast-scan index's codes in an AlignedTable<uint8_t>: {{T* ptr; size_t capacity}; size_t
    size}, which faiss's Python API can only fill with a copy. Here the three words are set to point at bytes
    the index does not own (the memory-mapped cache), and cleared before faiss would free them. The layout is
    checked first on a table faiss itself filled (and the result after each pointing); where it differs, the
    caller copies instead."""

    def __init__(self, words, data: np.ndarray):
        self.words, self.data = words, data  # data: keeps the mapped bytes alive while faiss reads them

    @classmethod
    def point(cls, index, data: np.ndarray) -> "_BorrowedCodes | None":
        import faiss
        if not data.size or not _table_layout_is_known():
            return None
        words = (ctypes.c_size_t * 3).from_address(int(index.codes.this))
        if tuple(words) != (0, 0, 0):
            return None
        words[0], words[1], words[2] = data.ctypes.data, data.size, data.size
        borrowed = cls(words, data)
        if index.codes.size() != data.size or \
                faiss.rev_swig_ptr(index.codes.get(), data.size).ctypes.data != data.ctypes.data:
            borrowed.release()
            return None
        return borrowed

    def release(self) -> None:
        """Clear the table: faiss then frees nothing (the index's destructor frees a null pointer)."""
        self.words[0] = self.words[1] = self.words[2] = 0


@functools.cache
def _table_layout_is_known() -> bool:
    import faiss
    probe = faiss.AlignedTableUint8()
    probe.resize(100)
    words = (ctypes.c_size_t * 3).from_address(int(probe.this))
    address = faiss.rev_swig_ptr(probe.get(), 100).ctypes.data
    return words[0] == address and words[1] >= 100 and words[2] == 100


def shard_bounds(rows: int, threads: int) -> list[tuple[int, int]]:
    """[start, end) row ranges: one per thread, none under MIN_SHARD_ROWS (one shard for a small index) and
    none over MAX_SHARD_ROWS (then a multiple of the threads)."""
    if rows == 0:
        return [(0, 0)]
    shards = max(1, min(threads, rows // MIN_SHARD_ROWS))
    shards *= -(-rows // (shards * MAX_SHARD_ROWS))  # rounds of `threads` shards until none is too large
    step = -(-rows // shards)
    step = -(-step // BLOCK_ROWS) * BLOCK_ROWS
    return [(start, min(start + step, rows)) for start in range(0, rows, step)]


class Workers:
    """Runs one call per item on `threads` threads, the calling thread among them; each thread takes the next
    item until none is left (a big index has more shards than threads)."""

    def __init__(self, threads: int):
        self.threads = threads
        self.pool = ThreadPoolExecutor(threads - 1, "wiki-search") if threads > 1 else None

    def map(self, fn, items: list) -> list:
        if self.pool is None or len(items) < 2:
            return [fn(item) for item in items]
        results: list = [None] * len(items)
        taken = itertools.count()  # next() on it is atomic: each item goes to exactly one thread

        def drain() -> None:
            while (i := next(taken)) < len(items):
                results[i] = fn(items[i])
        helpers = [self.pool.submit(drain) for _ in range(min(self.threads, len(items)) - 1)]
        drain()
        for helper in helpers:
            helper.result()
        return results

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False)


class SignScan:
    """The float query against every row's sign bits; `search` gives the best k rows."""

    def __init__(self, codes: np.ndarray, binary_scale: np.ndarray, threads: int = 1, source: Path | None = None):
        """codes: (rows, dim/8) packed sign bits; source: the faiss file they are read from, next to which
        their fast-scan packing is cached (None: packed in memory)."""
        centroids = sign_centroids(binary_scale)
        self.count = len(codes)
        self.packed = load_packed(codes, source)
        self.shards = [Shard(self.packed, start, end, centroids) for start, end in shard_bounds(self.count, threads)]
        self.workers = Workers(min(max(1, threads), len(self.shards)))

    def search(self, query: np.ndarray, k: int, rescore: Rescore | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the k rows whose sign scores are highest, unordered. The scores are the sign-scan
        estimates, or with `rescore` (rows -> better scores), the rescored scores of those same rows: each
        shard rescores its own best rows as soon as its scan ends, while the others may still be scanning,
        and the rows the merge keeps that no shard rescored are rescored after it."""
        k = min(k, self.count)
        if k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        ahead = 0 if rescore is None else -(-int(k * RESCORE_AHEAD) // len(self.shards))
        parts = self.workers.map(lambda shard: _search_shard(shard, q, k, rescore, ahead), self.shards)
        rows, scores, rescored = (np.concatenate([p[i] for p in parts]) for i in range(3))
        if len(rows) > k:
            best = np.argpartition(-scores, k - 1)[:k]
            rows, scores, rescored = rows[best], scores[best], rescored[best]
        if rescore is None:
            return rows, scores
        missing = np.isnan(rescored)
        if missing.any():
            rescored[missing] = rescore(rows[missing])
        return rows, rescored

    def close(self) -> None:
        self.workers.close()


def _search_shard(shard: Shard, q: np.ndarray, k: int, rescore: Rescore | None,
                  ahead: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, sign scores, rescored scores or NaN) of one shard's best k rows; the first `ahead` of them
    (faiss returns them best first) are rescored."""
    scores, rows = shard.index.search(q, min(k, shard.end - shard.start))
    found = rows[0] >= 0
    rows, scores = rows[0][found] + shard.start, scores[0][found]
    rescored = np.full(len(rows), np.nan, dtype=np.float32)
    if ahead:
        rescored[:ahead] = rescore(rows[:ahead])
    return rows, scores, rescored
