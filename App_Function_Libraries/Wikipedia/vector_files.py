"""The two vector files of an index: written block by block (a build of any size holds one block in memory),
and the faiss file's codes memory-mapped for reading.

faiss-ubinary.index: a faiss IndexBinaryFlat as `faiss.write_index_binary` writes it (header, then the code
vector: its byte count and the packed sign bits).

usearch-int8.index: a usearch dense index as `Index.save` writes it (the int8 matrix, usearch's 64-byte
head, then its proximity graph) with a graph that has no edges. Quarry reads the int8 rows by position and
never walks the graph, and building one would hold every vector in memory (16 GB of int8 for the 41
million passages of Wikipedia). usearch opens the file (`Index.restore`, `view=True`) and reads vectors by
key as from any index it saved; a search in it would only find the entry node.
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from App_Function_Libraries.Wikipedia.layout import BuildInputError

from App_Function_Libraries.Wikipedia.layout import IndexCorrupt

WRITE_ROWS = 262_144
FLAT_BINARY_FOURCC = b"IBxF"
# fourcc, d, code_size, ntotal, is_trained, metric_type, then the code vector's byte count
FLAT_BINARY_HEADER = struct.Struct("<4siiqbiQ")
BINARY_METRIC = 1  # what faiss records for an IndexBinaryFlat (METRIC_L2; binary indexes ignore it)
# usearch's dense head: magic, version (3 x u16), metric, scalar, key and slot kinds (1 byte each),
# present and deleted counts, dimensions (u64), multi (bool), zero padding to 64 bytes
USEARCH_HEAD = struct.Struct("<7s3H4B3Q?")
USEARCH_HEAD_BYTES = 64
USEARCH_MAGIC = b"usearch"
USEARCH_KINDS = (ord("i"), 23, 14, 15)  # metric ip, scalar i8, key u64, compressed slot u32
# usearch's graph header: size, connectivity, base connectivity, max level, entry slot (u64 each)
USEARCH_GRAPH_HEADER = struct.Struct("<5Q")
USEARCH_CONNECTIVITY = 3  # recorded in the header; level-0 nodes have room for twice as many neighbours


class FlatBinaryWriter:
    """faiss-ubinary.index for `rows` rows of packed sign bits, appended in blocks."""

    def __init__(self, path: Path, rows: int, width: int):
        self.path, self.rows, self.width, self.written = path, rows, width, 0
        self.fh = path.open("wb")
        self.fh.write(FLAT_BINARY_HEADER.pack(FLAT_BINARY_FOURCC, width * 8, width, rows, 1, BINARY_METRIC,
                                              rows * width))

    def append(self, bits: np.ndarray) -> None:
        _check_block(bits, self.width, self.rows - self.written, self.path)
        self.fh.write(np.ascontiguousarray(bits, dtype=np.uint8).tobytes())
        self.written += len(bits)

    def close(self) -> None:
        self.fh.close()
        _check_complete(self.written, self.rows, self.path)


class UsearchInt8Writer:
    """usearch-int8.index for `rows` int8 vectors (key = slot = row), appended in blocks; the graph (no edges)
    is written by close()."""

    def __init__(self, path: Path, rows: int, dim: int):
        if rows >= 2 ** 32 or dim >= 2 ** 32:
            raise BuildInputError(f"{rows} x {dim} int8 vectors are more than a usearch file with 32-bit sizes "
                                  "holds; build the index from fewer passages")
        self.path, self.rows, self.dim, self.written = path, rows, dim, 0
        self.fh = path.open("wb")
        self.fh.write(struct.pack("<2I", rows, dim))

    def append(self, int8: np.ndarray) -> None:
        _check_block(int8, self.dim, self.rows - self.written, self.path)
        self.fh.write(np.ascontiguousarray(int8, dtype=np.int8).tobytes())
        self.written += len(int8)

    def close(self) -> None:
        try:
            _check_complete(self.written, self.rows, self.path)
            self._write_graph()
        finally:
            self.fh.close()

    def _write_graph(self) -> None:
        n, base = self.rows, 2 * USEARCH_CONNECTIVITY
        head = USEARCH_HEAD.pack(USEARCH_MAGIC, *_usearch_version(), *USEARCH_KINDS, n, 0, self.dim, False)
        self.fh.write(head.ljust(USEARCH_HEAD_BYTES, b"\0"))
        self.fh.write(USEARCH_GRAPH_HEADER.pack(n, USEARCH_CONNECTIVITY, base, 0, 0))
        for start in range(0, n, WRITE_ROWS):  # every node's level: 0
            self.fh.write(bytes(2 * min(WRITE_ROWS, n - start)))
        node = np.dtype([("key", "<u8"), ("level", "<i2"), ("neighbours", "<u4"), ("slots", "<u4", (base,))])
        for start in range(0, n, WRITE_ROWS):
            nodes = np.zeros(min(WRITE_ROWS, n - start), node)
            nodes["key"] = np.arange(start, start + len(nodes), dtype=np.uint64)
            self.fh.write(nodes.tobytes())


def write_flat_binary(path: Path, bits: np.ndarray) -> None:
    """faiss-ubinary.index from (n, dim/8) packed sign bits (an array or a memory map, read in blocks)."""
    _write_all(FlatBinaryWriter(path, *bits.shape), bits)


def write_usearch_int8(path: Path, int8: np.ndarray) -> None:
    """usearch-int8.index from (n, dim) int8 codes (an array or a memory map, read in blocks)."""
    _write_all(UsearchInt8Writer(path, *int8.shape), int8)


def _write_all(writer, data: np.ndarray) -> None:
    try:
        for start in range(0, len(data), WRITE_ROWS):
            writer.append(data[start:start + WRITE_ROWS])
    finally:
        writer.close()


def _check_block(block: np.ndarray, width: int, room: int, path: Path) -> None:
    if block.ndim != 2 or block.shape[1] != width or len(block) > room:
        raise ValueError(f"{path}: a block of {block.shape} does not fit ({room} rows of {width} left)")


def _check_complete(written: int, rows: int, path: Path) -> None:
    if written != rows:
        raise ValueError(f"{path}: {written} rows written, {rows} announced")


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


def _usearch_version() -> tuple[int, int, int]:
    """The installed usearch's version, which it writes into the files it saves."""
    import usearch
    major, minor, patch = (int(part) for part in usearch.__version__.split(".")[:3])
    return major, minor, patch
