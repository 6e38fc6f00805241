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

The codes are read from the faiss file through a memory map and packed one shard at a time: packing passes
through a plain copy of that shard's codes, so opening holds at most one shard's codes twice (48 MiB for a
million 384-bit rows), never the whole index's.
"""
from __future__ import annotations

import itertools
import os
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from App_Function_Libraries.Wikipedia.layout import IndexCorrupt

FLAT_BINARY_FOURCC = b"IBxF"
# fourcc, d, code_size, ntotal, is_trained, metric_type, then the code vector's byte count
FLAT_BINARY_HEADER = struct.Struct("<4siiqbiQ")
BLOCK_ROWS = 32  # faiss fast-scan packs codes in blocks of 32 rows
MIN_SHARD_ROWS = 65_536  # smaller shards cost more in thread hand-offs than they save
MAX_SHARD_ROWS = 1 << 20  # bounds the memory packing a shard needs on top of the index (see above)
PACK_ROWS = 65_536
MAX_AUTO_THREADS = 8
# With a rescoring step, each shard rescores its best k / shards x this many rows itself (the merge keeps
# about k / shards of each shard's rows; the few more it keeps from one are rescored after the merge)
RESCORE_AHEAD = 1.1
Rescore = Callable[[np.ndarray], np.ndarray]  # rows -> their scores by a finer measure
# byte -> the same byte with its nibbles swapped: faiss reads a code byte's low nibble first, packbits
# puts the first of 8 dimensions in the high bits
_NIBBLE_SWAP = ((np.arange(256) & 0x0F) << 4 | (np.arange(256) >> 4)).astype(np.uint8)


def auto_threads() -> int:
    """The CPUs this process may run on, at most MAX_AUTO_THREADS."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_AUTO_THREADS))


def map_binary_codes(path: Path) -> np.ndarray:
    """The (rows, bytes) packed sign bits of a faiss IndexBinaryFlat file, memory-mapped read-only."""
    try:
        with path.open("rb") as fh:
            head = fh.read(FLAT_BINARY_HEADER.size)
        size = path.stat().st_size
    except FileNotFoundError:
        raise IndexCorrupt(f"{path} is missing") from None
    except OSError as exc:
        raise IndexCorrupt(f"{path} is unreadable ({exc})") from exc
    if len(head) < FLAT_BINARY_HEADER.size or not head.startswith(FLAT_BINARY_FOURCC):
        raise IndexCorrupt(f"{path} is not a readable faiss binary index (expected a flat binary index, "
                           f"IndexBinaryFlat)")
    _, dim, width, count, _, _, nbytes = FLAT_BINARY_HEADER.unpack(head)
    if dim <= 0 or dim != width * 8 or count < 0 or nbytes != count * width or \
            size < FLAT_BINARY_HEADER.size + nbytes:
        raise IndexCorrupt(f"{path}: the header ({count} x {dim} bits) does not match the file; rebuild the index")
    if count == 0:
        return np.zeros((0, width), dtype=np.uint8)
    return np.memmap(path, dtype=np.uint8, mode="r", offset=FLAT_BINARY_HEADER.size, shape=(count, width))


def sign_centroids(binary_scale: np.ndarray) -> np.ndarray:
    """(dim/4, 16, 4) float32: for each 4-dimension group, the 16 sign patterns (the nibble's bit 3 is the
    group's first dimension) times the dimensions' scales."""
    scale = np.asarray(binary_scale, dtype=np.float32).reshape(-1, 4)
    values = np.arange(16)[:, None]
    signs = ((values >> np.arange(3, -1, -1)) & 1) * 2.0 - 1.0  # (16, 4)
    return (signs[None, :, :] * scale[:, None, :]).astype(np.float32)


def fast_scan_index(codes: np.ndarray, centroids: np.ndarray):
    """A faiss IndexPQFastScan holding `codes` (rows of packed sign bits), scoring inner products."""
    import faiss
    rows, width = codes.shape
    subquantizers = width * 2
    flat = faiss.IndexPQ(width * 8, subquantizers, 4, faiss.METRIC_INNER_PRODUCT)
    faiss.copy_array_to_vector(centroids.ravel(), flat.pq.centroids)
    flat.is_trained = True
    if rows:
        flat.codes.resize(rows * width)
        target = faiss.rev_swig_ptr(flat.codes.data(), rows * width).reshape(rows, width)
        for start in range(0, rows, PACK_ROWS):
            np.take(_NIBBLE_SWAP, codes[start:start + PACK_ROWS], out=target[start:start + PACK_ROWS])
        flat.ntotal = rows
    return faiss.IndexPQFastScan(flat, BLOCK_ROWS)  # packs the codes into fast-scan blocks


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

    def __init__(self, codes: np.ndarray, binary_scale: np.ndarray, threads: int = 1):
        centroids = sign_centroids(binary_scale)
        self.count = len(codes)
        self.shards = [(start, fast_scan_index(codes[start:end], centroids))
                       for start, end in shard_bounds(self.count, threads)]
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


def _search_shard(shard, q: np.ndarray, k: int, rescore: Rescore | None,
                  ahead: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, sign scores, rescored scores or NaN) of one shard's best k rows; the first `ahead` of them
    (faiss returns them best first) are rescored."""
    start, index = shard
    scores, rows = index.search(q, min(k, index.ntotal))
    found = rows[0] >= 0
    rows, scores = rows[0][found] + start, scores[0][found]
    rescored = np.full(len(rows), np.nan, dtype=np.float32)
    if ahead:
        rescored[:ahead] = rescore(rows[:ahead])
    return rows, scores, rescored
