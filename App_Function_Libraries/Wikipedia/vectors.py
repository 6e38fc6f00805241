"""The vector part of the index: binary codes in RAM, int8 vectors memory-mapped, and the staged search.

Search for one float query (unit length):
  1. Hamming: faiss IndexBinaryFlat over the packed sign bits gives the nearest rows by Hamming distance.
  2. Sign rescoring (Quarry's added stage, when stage 1 returned more rows than stage 3 takes): the float
     query against those rows' sign vectors (quantize.sign_scores) keeps the best. It reads the codes faiss
     already holds, so it costs no memory, and it orders candidates much better than Hamming distance, so
     stage 1 can cast a wide net cheaply.
  3. int8 rescoring: the float query against the int8 vectors of the remaining rows, read from the
     memory-mapped usearch file, keeps the best `top_k`.
With hamming_candidates = int8_candidates = top_k x rescore_multiplier this is the original two-stage design.
"""
from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.layout import IndexCorrupt

USEARCH_MAGIC = b"usearch"
HEAP_MAX_K = 256


def read_binary_index(path: Path):
    import faiss
    if not path.is_file():
        raise IndexCorrupt(f"{path} is missing")
    try:
        index = faiss.read_index_binary(str(path))
    except RuntimeError as exc:
        raise IndexCorrupt(f"{path} is not a readable faiss binary index ({str(exc).splitlines()[0]})") from exc
    if not isinstance(index, faiss.IndexBinaryFlat):
        raise IndexCorrupt(f"{path}: expected a flat binary index, found {type(index).__name__}")
    return index


def binary_codes_view(index) -> np.ndarray:
    """The (n, dim/8) codes inside a faiss IndexBinaryFlat, as a numpy view (no copy)."""
    import faiss
    n, width = index.ntotal, index.code_size
    if n == 0:
        return np.zeros((0, width), dtype=np.uint8)
    return faiss.rev_swig_ptr(index.xb.data(), n * width).reshape(n, width)


class PositionalInt8Store:
    """int8 vectors read by row position straight from a usearch file whose slots are in key order (as
    Quarry's builder writes it): the vector matrix at the start of the file is memory-mapped, nothing is
    loaded."""

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
        self.matrix = _map_rows(path, count, dimension)

    def get(self, rows: np.ndarray) -> np.ndarray:
        order = np.argsort(rows)  # sorted reads walk the file forward
        out = np.empty((len(rows), self.matrix.shape[1]), dtype=np.int8)
        out[order] = self.matrix[rows[order]]
        return out


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
    def __init__(self, binary, int8_store, calib: quantize.Calibration):
        self.binary = binary
        self.codes = binary_codes_view(binary)
        self.int8 = int8_store
        self.calib = calib
        self.dimension = int(binary.d)

    @property
    def count(self) -> int:
        return int(self.binary.ntotal)

    def search(self, query: np.ndarray, top_k: int, int8_candidates: int,
               hamming_candidates: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the top_k nearest passages, best first; scores estimate the float dot product.

        The Hamming stage returns max(hamming_candidates, int8_candidates) rows; when that is more than
        int8_candidates, the sign stage keeps the best int8_candidates of them for int8 rescoring."""
        n = self.count
        if n == 0 or top_k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        int8_candidates = min(max(int8_candidates, top_k), n)
        hamming_candidates = min(max(hamming_candidates, int8_candidates), n)
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        # faiss keeps the k best in a heap by default; for large k its counting selection is several times faster
        self.binary.use_heap = hamming_candidates < HEAP_MAX_K
        _, ids = self.binary.search(quantize.to_ubinary(query), hamming_candidates)
        rows = ids[0][ids[0] >= 0]
        if len(rows) > int8_candidates:
            rows = self.sign_stage(query, rows, int8_candidates)
        scores = quantize.int8_scores(quantize.int8_weights(query, self.calib), self.int8.get(rows))
        keep = np.argsort(-scores, kind="stable")[:top_k]
        return rows[keep].astype(np.int64), scores[keep].astype(np.float32)

    def sign_stage(self, query: np.ndarray, rows: np.ndarray, keep: int) -> np.ndarray:
        """The `keep` rows whose sign vectors score best against the float query."""
        s = quantize.sign_scores(quantize.sign_table(query, self.calib), self.codes[rows])
        return rows[np.argpartition(-s, keep - 1)[:keep]]
