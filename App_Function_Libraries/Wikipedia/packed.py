"""The sign codes in faiss's fast-scan layout, packed once and kept on disk next to the index.

faiss's fast-scan kernels read codes packed in blocks of 32 rows: in each block, for every pair of 4-bit
sub-quantizers, the 32 rows' nibbles are interleaved the way the SIMD lookups want them. Packing is a
shuffle that costs about 0.2 s per million 384-bit rows (8 s for the 41 million passages of Wikipedia),
and the packed codes take as many bytes as the codes (rows rounded up to 32). So they are packed once into
`faiss-ubinary.fastscan` next to the faiss file and memory-mapped at every later open: opening costs a
few checks, and the packed codes are file pages the kernel shares and may reclaim, not anonymous memory.

Blocks are packed independently, so the packed codes of rows [a, b) (a a multiple of 32) are blocks
a/32 .. ceil(b/32) of the whole: one file serves any shard bounds and any thread count.

The file: HEADER_BYTES of header (MAGIC, then JSON: layout version, faiss version, rows, row width, and the
faiss file's size, modification time and a hash of its first and last HASH_BYTES), then the packed blocks.
At open it is checked against the faiss file: the header must match, the size must be exact, and
SAMPLE_BLOCKS blocks spread over the file are packed again from the faiss file and compared. A missing,
stale, truncated or corrupt file is rebuilt (a temporary file renamed into place); where none can be
written (a read-only folder, a full disk) the codes are packed in memory, as every open did before.

Memory: a later open maps the cache and holds no copy of the codes. The open that writes the cache reads
the faiss file with plain reads a chunk at a time (never through a map), writes each chunk packed, then maps
the file it wrote, and gives the heap memory the packing freed back to the system after each chunk (glibc
would keep it: about 40 MiB after packing a million 384-bit rows before the packing used less), so it holds
a few chunks while packing and then what a later open holds.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import logging
import mmap
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from App_Function_Libraries.Wikipedia.vector_files import FLAT_BINARY_HEADER

log = logging.getLogger(__name__)

BLOCK_ROWS = 32  # faiss fast-scan packs codes in blocks of 32 rows
PACK_ROWS = 65_536  # rows packed at a time (a multiple of BLOCK_ROWS): bounds the memory packing needs
PACKED_SUFFIX = ".fastscan"  # faiss-ubinary.index -> faiss-ubinary.fastscan
MAGIC = b"QUARRY-FASTSCAN\n"
LAYOUT_VERSION = 1  # the nibble order below and this file's format; a change rebuilds every cache
HEADER_BYTES = 4096  # the packed blocks start on a page boundary
HASH_BYTES = 65_536
SAMPLE_BLOCKS = 256
ALIGN = 64  # bytes: the start of codes faiss reads with SIMD loads


@dataclass
class PackedCodes:
    """The fast-scan blocks of an index's codes: `data` holds blocks(rows) x block_bytes(width) bytes."""
    data: np.ndarray  # 1-D uint8, memory-mapped from the cache file or in memory
    rows: int
    width: int  # bytes of sign bits per row
    origin: str  # "cache" (read from the file), "written" (packed now into the file), "memory"

    def rows_slice(self, start: int, end: int) -> np.ndarray:
        """The packed bytes of rows [start, end); start must be a multiple of BLOCK_ROWS."""
        if start % BLOCK_ROWS:
            raise ValueError(f"a shard must start on a block of {BLOCK_ROWS} rows, not at row {start}")
        size = block_bytes(self.width)
        return self.data[start // BLOCK_ROWS * size:blocks(end) * size]


def blocks(rows: int) -> int:
    return -(-rows // BLOCK_ROWS)


def block_bytes(width: int) -> int:
    return BLOCK_ROWS * width


def packed_path(faiss_path: Path) -> Path:
    return faiss_path.with_suffix(PACKED_SUFFIX)


# ---------------------------------------------------------------- packing

def pack_rows(codes: np.ndarray) -> np.ndarray:
    """The fast-scan blocks of (rows, width) packed sign bits, as faiss packs them (rows padded with zero
    codes to a multiple of 32), 1-D uint8."""
    rows, width = codes.shape
    if rows == 0:
        return np.zeros(0, np.uint8)
    packed = _pack(_staging(width), codes)  # held until the copy is made: the blocks are its memory
    return _blocks(packed).copy()


def packed_chunks(chunks: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
    """The fast-scan blocks of (rows, width) chunks of codes (all but the last a multiple of BLOCK_ROWS rows).
    A chunk's blocks are a view of faiss's memory, valid until the next is asked for: write or copy them
    first. One staging table serves every chunk, so packing holds about three chunks' worth of memory
    whatever the number of rows."""
    staging = None
    for chunk in chunks:
        if staging is None or staging.pq.M != chunk.shape[1] * 2:
            staging = _staging(chunk.shape[1])
        packed = _pack(staging, chunk)
        yield _blocks(packed)
        del packed
        release_free_memory()  # each chunk's faiss tables are freed a little apart: glibc would keep them all


def _staging(width: int):
    """A faiss IndexPQ (4-bit sub-quantizers) whose code table _pack fills with the rows to pack."""
    import faiss
    flat = faiss.IndexPQ(width * 8, width * 2, 4, faiss.METRIC_INNER_PRODUCT)
    flat.is_trained = True
    return flat


def _pack(staging, codes: np.ndarray):
    """faiss's IndexPQFastScan of the (rows, width) codes, staged through `staging`: its codes are the packed
    blocks."""
    import faiss
    rows, width = codes.shape
    staging.codes.resize(rows * width)  # the same size or smaller after the first chunk: no new memory
    staged = faiss.rev_swig_ptr(staging.codes.data(), rows * width).reshape(rows, width)
    # each byte's nibbles swapped: faiss reads a code byte's low nibble first, packbits puts the first of 8
    # dimensions in the high bits (uint8 shifts: a 256-entry table lookup would first widen the codes to
    # 8-byte indices, 25 MiB per chunk of 65,536 384-bit rows, which the heap then kept)
    np.left_shift(codes, 4, out=staged)
    staged |= codes >> 4
    staging.ntotal = rows
    packed = faiss.IndexPQFastScan(staging, BLOCK_ROWS)
    size = blocks(rows) * block_bytes(width)
    if packed.codes.size() != size:
        raise RuntimeError(f"faiss packed {rows} rows into {packed.codes.size()} bytes, expected {size}")
    return packed


def _blocks(packed) -> np.ndarray:
    """The packed blocks of an IndexPQFastScan, a view of its memory (valid while it lives)."""
    import faiss
    return faiss.rev_swig_ptr(packed.codes.get(), packed.codes.size())


def array_chunks(codes: np.ndarray) -> Iterator[np.ndarray]:
    """The rows of (rows, width) codes, PACK_ROWS at a time."""
    for start in range(0, len(codes), PACK_ROWS):
        yield codes[start:start + PACK_ROWS]


def file_chunks(faiss_path: Path, rows: int, width: int) -> Iterator[np.ndarray]:
    """The rows of the faiss file's codes, PACK_ROWS at a time, read with plain reads: its pages stay in the
    page cache and are never mapped into the process (a memory map would hold them all resident while the
    codes are packed)."""
    buffer = np.empty(min(rows, PACK_ROWS) * width, np.uint8)  # reused: a chunk is valid until the next
    with faiss_path.open("rb", buffering=0) as fh:
        fh.seek(FLAT_BINARY_HEADER.size)
        for start in range(0, rows, PACK_ROWS):
            count = min(PACK_ROWS, rows - start)
            got = fh.readinto(memoryview(buffer)[:count * width])
            if got != count * width:
                raise OSError(f"{faiss_path} ends inside its codes (row {start + got // width} of {rows})")
            yield buffer[:count * width].reshape(count, width)


def release_free_memory() -> None:
    """Give the heap memory freed by packing back to the system. faiss and numpy allocate and free a few MiB
    per chunk packed, and glibc keeps what is freed (tens of MiB over a million rows) as the process's
    anonymous memory, which would stay resident beside the mapped cache for as long as the index is open."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's malloc_trim, or None where the C library has none."""
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def aligned_empty(nbytes: int) -> np.ndarray:
    """An uninitialised 1-D uint8 array whose data starts on an ALIGN-byte boundary."""
    raw = np.empty(nbytes + ALIGN, np.uint8)
    skip = -raw.ctypes.data % ALIGN
    return raw[skip:skip + nbytes]


def pack_in_memory(codes: np.ndarray) -> PackedCodes:
    rows, width = codes.shape
    data = aligned_empty(blocks(rows) * block_bytes(width))
    at = 0
    for chunk in packed_chunks(array_chunks(codes)):
        data[at:at + len(chunk)] = chunk
        at += len(chunk)
    return PackedCodes(data, rows, width, "memory")


# ---------------------------------------------------------------- the cache file

def load_packed(codes: np.ndarray, faiss_path: Path | None) -> PackedCodes:
    """The packed codes of `codes` (the rows of the faiss file at faiss_path): memory-mapped from the cache
    next to it when that is valid, else packed now from the faiss file and written there, then mapped, else
    (no path, or the cache cannot be written) packed in memory. The memory packing used is given back."""
    try:
        return _load_packed(codes, faiss_path)
    finally:
        release_free_memory()


def _load_packed(codes: np.ndarray, faiss_path: Path | None) -> PackedCodes:
    if faiss_path is None or len(codes) == 0:
        return pack_in_memory(codes)
    cache = packed_path(faiss_path)
    header = expected_header(codes, faiss_path)
    mapped = _map_valid(cache, faiss_path, header)
    if mapped is not None:
        return PackedCodes(mapped, len(codes), codes.shape[1], "cache")
    if cache.exists():
        log.info("wikipedia: %s does not match %s (stale or damaged); packing the codes again", cache, faiss_path)
    if write_cache(cache, faiss_path, header):
        mapped = _map_valid(cache, faiss_path, header)
        if mapped is not None:
            return PackedCodes(mapped, len(codes), codes.shape[1], "written")
    return pack_in_memory(codes)


def expected_header(codes: np.ndarray, faiss_path: Path) -> dict:
    import faiss
    stat = faiss_path.stat()
    return {"layout": LAYOUT_VERSION, "faiss": faiss.__version__, "rows": int(codes.shape[0]),
            "width": int(codes.shape[1]), "block_rows": BLOCK_ROWS, "source_bytes": stat.st_size,
            "source_mtime_ns": stat.st_mtime_ns, "source_hash": _ends_hash(faiss_path, stat.st_size)}


def _ends_hash(path: Path, size: int) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as fh:
        digest.update(fh.read(HASH_BYTES))
        fh.seek(max(0, size - HASH_BYTES))
        digest.update(fh.read(HASH_BYTES))
    return digest.hexdigest()


def _header_bytes(header: dict) -> bytes:
    text = MAGIC + json.dumps(header, sort_keys=True).encode("ascii") + b"\n"
    if len(text) > HEADER_BYTES:
        raise ValueError("the packed-codes header does not fit")
    return text.ljust(HEADER_BYTES, b"\0")


def write_cache(cache: Path, faiss_path: Path, header: dict) -> bool:
    """Pack all rows of the faiss file into `cache` (a temporary file renamed into place), a chunk at a time;
    False when it cannot be written."""
    tmp = cache.with_name(f".{cache.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        with tmp.open("xb") as fh:
            fh.write(_header_bytes(header))
            for chunk in packed_chunks(file_chunks(faiss_path, header["rows"], header["width"])):
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, cache)
        return True
    except OSError as exc:
        log.warning("wikipedia: cannot write the packed sign codes to %s (%s); packing them in memory at "
                    "every open instead", cache, exc)
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return False


def _map_valid(cache: Path, faiss_path: Path, header: dict) -> np.ndarray | None:
    """The cache's packed blocks, memory-mapped, when it matches `header` and its sampled blocks match the
    faiss file's codes packed again; else None (missing, stale, truncated or corrupt)."""
    nbytes = blocks(header["rows"]) * block_bytes(header["width"])
    try:
        with cache.open("rb", buffering=0) as fh, faiss_path.open("rb", buffering=0) as source:
            if fh.read(HEADER_BYTES) != _header_bytes(header) or \
                    os.fstat(fh.fileno()).st_size != HEADER_BYTES + nbytes or not _samples_match(fh, source, header):
                return None
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    return np.frombuffer(mapped, np.uint8, count=nbytes, offset=HEADER_BYTES)


def sample_blocks(count: int) -> np.ndarray:
    """The blocks compared at open: SAMPLE_BLOCKS spread evenly, the first and last among them."""
    return np.unique(np.linspace(0, count - 1, min(count, SAMPLE_BLOCKS)).round().astype(np.int64))


def _samples_match(cache, source, header: dict) -> bool:
    """Sampled blocks of the cache against the same rows of the faiss file, packed now. Read with plain reads
    (a fault in a memory map of a cold file would read megabytes ahead around each block)."""
    width = header["width"]
    size = block_bytes(width)  # a block's rows take as many bytes in the faiss file as packed
    picked = sample_blocks(blocks(header["rows"]))
    rows = np.zeros((len(picked), size), np.uint8)  # zero codes pad a partial last block, as faiss pads it
    stored = np.zeros((len(picked), size), np.uint8)
    for i, block in enumerate(picked.tolist()):
        source.seek(FLAT_BINARY_HEADER.size + block * size)
        raw = source.read(size)
        rows[i, :len(raw)] = np.frombuffer(raw, np.uint8)
        cache.seek(HEADER_BYTES + block * size)
        packed_block = cache.read(size)
        if len(packed_block) != size:
            return False
        stored[i] = np.frombuffer(packed_block, np.uint8)
    return bool(np.array_equal(pack_rows(rows.reshape(-1, width)).reshape(len(picked), size), stored))
