"""The sign codes' fast-scan packing cached next to the index (packed.py), the shards reading it in place,
and the vector files written block by block (vector_files.py). Small synthetic indexes, no model."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import faiss
import numpy as np
import pytest

from App_Function_Libraries.Wikipedia import packed, quantize, signscan, vector_files, vectors
from App_Function_Libraries.Wikipedia.builder import build_index, write_vector_indexes
from App_Function_Libraries.Wikipedia.index import WikiIndex
from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, PACKED_FILE, USEARCH_FILE, IndexCorrupt
from App_Function_Libraries.Wikipedia.signscan import SignScan
from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes
from App_Function_Libraries.Wikipedia.vectors import PositionalInt8Store

ROWS, DIM = 3000, 64


def unit_vectors(n: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32) + 0.05
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A vector index of ROWS rows cut into 3 shards, packed 1,024 rows at a time."""
    monkeypatch.setattr(signscan, "MIN_SHARD_ROWS", 500)
    monkeypatch.setattr(packed, "PACK_ROWS", 1024)
    v = unit_vectors(ROWS)
    calib = quantize.calibrate(v)
    write_vector_indexes(tmp_path, quantize.to_ubinary(v), quantize.to_int8(v, calib))
    return tmp_path, calib


@pytest.fixture
def full_packings(monkeypatch):
    """Counts the times all rows are packed (not the few blocks each open compares)."""
    calls = []
    real = packed.packed_chunks

    def counting(chunks):
        calls.append(0)

        def rows():
            for chunk in chunks:
                calls[-1] += len(chunk)
                yield chunk
        return real(rows())
    monkeypatch.setattr(packed, "packed_chunks", counting)
    return calls


def open_scan(folder: Path, calib, threads: int = 3, cached: bool = True) -> SignScan:
    faiss_path = folder / FAISS_FILE
    return SignScan(map_binary_codes(faiss_path), calib.binary_scale, threads, faiss_path if cached else None)


def same_up_to_ties(a: SignScan, b: SignScan, queries: np.ndarray, k: int = 100) -> None:
    """Same scores, and the same rows above the k-th score (rows tied at the cut may differ with the SIMD
    path's tie order)."""
    for q in queries:
        rows_a, scores_a = a.search(q, k)
        rows_b, scores_b = b.search(q, k)
        assert sorted(scores_a.tolist()) == sorted(scores_b.tolist())
        cut = np.sort(scores_a)[0]
        assert set(rows_a[scores_a > cut].tolist()) == set(rows_b[scores_b > cut].tolist())


def test_the_packing_is_written_on_the_first_open_and_read_on_the_next(folder, full_packings):
    path, calib = folder
    first = open_scan(path, calib)
    assert first.packed.origin == "written" and full_packings == [ROWS]
    assert (path / PACKED_FILE).is_file() and packed.packed_path(path / FAISS_FILE).name == PACKED_FILE
    second = open_scan(path, calib)
    assert second.packed.origin == "cache" and full_packings == [ROWS]  # nothing packed again
    in_memory = open_scan(path, calib, cached=False)
    assert in_memory.packed.origin == "memory" and full_packings == [ROWS, ROWS]
    assert np.array_equal(second.packed.data, in_memory.packed.data)
    same_up_to_ties(second, in_memory, unit_vectors(10, seed=5))
    assert not [p for p in path.iterdir() if p.name.endswith(".tmp")]


def test_the_shards_read_the_mapped_file_in_place(folder):
    path, calib = folder
    open_scan(path, calib)
    scan = open_scan(path, calib)
    assert len(scan.shards) == 3 and scan.packed.origin == "cache"
    data = scan.packed.data
    low, high = data.ctypes.data, data.ctypes.data + data.size
    for shard in scan.shards:
        assert shard.borrowed is not None
        at = faiss.rev_swig_ptr(shard.index.codes.get(), 1).ctypes.data
        assert low <= at < high and at == low + shard.start // 32 * 32 * (DIM // 8)
    q = unit_vectors(1, seed=9)[0]
    rows, _ = scan.search(q, 50)
    del scan  # the shards clear faiss's table before faiss would free the mapped bytes
    again = open_scan(path, calib)
    assert sorted(again.search(q, 50)[0].tolist()) == sorted(rows.tolist())


def test_where_faiss_lays_its_table_out_otherwise_the_shards_copy_the_codes(folder, monkeypatch):
    path, calib = folder
    reference = open_scan(path, calib)
    monkeypatch.setattr(signscan, "_table_layout_is_known", lambda: False)
    copied = open_scan(path, calib)
    assert all(shard.borrowed is None and shard.index.codes.size() > 0 for shard in copied.shards)
    same_up_to_ties(copied, reference, unit_vectors(5, seed=8))


def test_one_cache_serves_any_thread_count(folder, full_packings):
    """Blocks are packed independently: the whole index packed at once equals it packed in chunks, and the
    file written for 3 shards serves 1 and 2 shards with the results of faiss's own packing."""
    path, calib = folder
    codes = map_binary_codes(path / FAISS_FILE)
    assert np.array_equal(packed.pack_rows(np.asarray(codes)), packed.pack_in_memory(codes).data)
    open_scan(path, calib, threads=3)
    queries = unit_vectors(8, seed=3)
    reference = open_scan(path, calib, threads=1, cached=False)
    packings = len(full_packings)
    for threads in (1, 2):
        scan = open_scan(path, calib, threads=threads)
        assert scan.packed.origin == "cache" and len(scan.shards) == threads
        same_up_to_ties(scan, reference, queries)
    assert len(full_packings) == packings


def corrupt_first_block(cache: Path) -> None:
    with cache.open("r+b") as fh:
        fh.seek(packed.HEADER_BYTES + 10)
        byte = fh.read(1)
        fh.seek(packed.HEADER_BYTES + 10)
        fh.write(bytes([byte[0] ^ 0xFF]))


def truncate(cache: Path) -> None:
    os.truncate(cache, cache.stat().st_size - 100)


def garble_header(cache: Path) -> None:
    with cache.open("r+b") as fh:
        fh.write(b"garbage")


def empty(cache: Path) -> None:
    cache.write_bytes(b"")


@pytest.mark.parametrize("damage", [corrupt_first_block, truncate, garble_header, empty])
def test_a_damaged_cache_is_detected_and_rebuilt(folder, full_packings, damage):
    path, calib = folder
    reference = open_scan(path, calib, cached=False)
    open_scan(path, calib)
    damage(path / PACKED_FILE)
    rebuilt = open_scan(path, calib)
    assert rebuilt.packed.origin == "written" and full_packings == [ROWS, ROWS, ROWS]
    assert np.array_equal(rebuilt.packed.data, reference.packed.data)
    same_up_to_ties(rebuilt, reference, unit_vectors(5, seed=4))
    assert open_scan(path, calib).packed.origin == "cache"


def test_a_cache_left_by_other_codes_is_stale_even_with_the_same_size_and_time(folder, full_packings):
    path, calib = folder
    open_scan(path, calib)
    faiss_path = path / FAISS_FILE
    stat = faiss_path.stat()
    other = unit_vectors(ROWS, seed=1)
    vector_files.write_flat_binary(faiss_path, quantize.to_ubinary(other))
    os.utime(faiss_path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert faiss_path.stat().st_size == stat.st_size
    scan = open_scan(path, calib)
    assert scan.packed.origin == "written"
    fresh = open_scan(path, calib, cached=False)
    assert np.array_equal(scan.packed.data, fresh.packed.data)
    same_up_to_ties(scan, fresh, unit_vectors(5, seed=6))


def test_another_faiss_version_or_layout_rebuilds_the_cache(folder, monkeypatch):
    path, calib = folder
    open_scan(path, calib)
    monkeypatch.setattr(faiss, "__version__", "0.0.1")
    assert open_scan(path, calib).packed.origin == "written"
    monkeypatch.setattr(packed, "LAYOUT_VERSION", packed.LAYOUT_VERSION + 1)
    assert open_scan(path, calib).packed.origin == "written"
    assert open_scan(path, calib).packed.origin == "cache"


def refuse_temp_files(monkeypatch, error: int) -> None:
    real_open = Path.open

    def open_(self, mode="r", *args, **kwargs):
        if self.name.endswith(".tmp") and "x" in mode:
            raise OSError(error, os.strerror(error), str(self))
        return real_open(self, mode, *args, **kwargs)
    monkeypatch.setattr(Path, "open", open_)


def test_a_read_only_folder_opens_packing_in_memory(folder, monkeypatch, caplog):
    path, calib = folder
    reference = open_scan(path, calib, cached=False)
    refuse_temp_files(monkeypatch, errno.EROFS)
    scan = open_scan(path, calib)
    assert scan.packed.origin == "memory" and not (path / PACKED_FILE).exists()
    assert "cannot write the packed sign codes" in caplog.text
    same_up_to_ties(scan, reference, unit_vectors(5, seed=7))


def test_a_stale_cache_in_a_read_only_folder_is_not_used(folder, monkeypatch):
    path, calib = folder
    open_scan(path, calib)
    corrupt_first_block(path / PACKED_FILE)
    refuse_temp_files(monkeypatch, errno.EROFS)
    scan = open_scan(path, calib)
    assert scan.packed.origin == "memory"
    assert np.array_equal(scan.packed.data, open_scan(path, calib, cached=False).packed.data)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_folder_without_write_permission_opens(folder):
    path, calib = folder
    path.chmod(0o555)
    try:
        scan = open_scan(path, calib)
        assert scan.packed.origin == "memory" and not (path / PACKED_FILE).exists()
    finally:
        path.chmod(0o755)


def test_a_write_that_fails_midway_leaves_no_file(folder, monkeypatch):
    path, calib = folder
    real = packed.packed_chunks

    def full_disk(chunks):
        packing = real(chunks)
        yield next(packing)
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(packed, "packed_chunks", full_disk)
    monkeypatch.setattr(packed, "pack_in_memory", lambda codes: packed.PackedCodes(
        np.concatenate([c.copy() for c in real(packed.array_chunks(codes))]), len(codes), codes.shape[1], "memory"))
    scan = open_scan(path, calib)
    assert scan.packed.origin == "memory"
    assert sorted(p.name for p in path.iterdir()) == [FAISS_FILE, USEARCH_FILE]


def test_the_build_writes_the_packing_and_the_first_open_reads_it(tmp_path, full_packings):
    v = unit_vectors(40)
    bits, int8 = quantize.to_ubinary(v), np.clip(np.rint(v * 127), -128, 127).astype(np.int8)
    lines = [f'{{"_id": "p{i}", "title": "A{i}", "text": "passage {i}", "emb_ubinary": {bits[i].tolist()}, '
             f'"emb_int8": {int8[i].tolist()}}}\n' for i in range(40)]
    (tmp_path / "in.jsonl").write_text("".join(lines), encoding="utf-8")
    build_index(tmp_path / "in.jsonl", tmp_path / "idx", model_label="m")
    assert (tmp_path / "idx" / PACKED_FILE).is_file() and full_packings == [40]
    index = WikiIndex.open(tmp_path / "idx", embedder=None)
    assert index.vectors.scan.packed.origin == "cache" and full_packings == [40]
    assert index.vectors.search(v[7], 3, 12)[0][0] == 7
    index.close()


def test_the_first_open_packs_from_the_faiss_file_not_from_the_codes_in_hand(folder):
    """The cache is written from plain reads of the faiss file, so the codes' memory map is never read whole
    (its pages would be resident in the process beside the packed codes while they are packed)."""
    path, _ = folder
    codes = map_binary_codes(path / FAISS_FILE)
    written = packed.load_packed(np.zeros_like(codes), path / FAISS_FILE)  # right shape, wrong bytes
    assert written.origin == "written"
    assert np.array_equal(written.data, packed.pack_in_memory(codes).data)


# ---------------------------------------------------------------- the process's memory when an index is open

BIG_ROWS, BIG_WIDTH = 300_000, 48  # 384-bit codes, 13.7 MiB packed
# Opens the scan of the faiss file argv[1] in this fresh process (argv[2] "cached": through the cache next to
# it) and prints the anonymous memory the process gained (and the most it held while packing), the codes'
# origin, and the KiB of each file mapped
OPEN_IN_A_FRESH_PROCESS = """
import json, sys
from pathlib import Path
import numpy as np
from App_Function_Libraries.Wikipedia.signscan import SignScan
from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes
from App_Function_Libraries.Wikipedia import packed
from Tests.test_wiki_packed import anonymous_bytes, mapped_kib
faiss_path = Path(sys.argv[1])
packing = packed.packed_chunks
most = [0]  # the most anonymous memory seen while packing, after each chunk


def watched(chunks):
    for chunk in packing(chunks):
        most[0] = max(most[0], anonymous_bytes() - before)
        yield chunk
packed.packed_chunks = watched
before = anonymous_bytes()
scan = SignScan(map_binary_codes(faiss_path), np.ones(384, np.float32), 2,
                faiss_path if sys.argv[2] == "cached" else None)
gain = anonymous_bytes() - before
scan.search(np.ones(384, np.float32), 10)  # reads every packed block
print(json.dumps({"gain": gain, "packing": most[0], "origin": scan.packed.origin, "size": int(scan.packed.data.size),
                  "cache_kib": mapped_kib(faiss_path.with_suffix(".fastscan").resolve()),
                  "faiss_kib": mapped_kib(faiss_path.resolve())}))
"""


def anonymous_bytes() -> int:
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        if line.startswith("Anonymous:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no Anonymous line in smaps_rollup")


@pytest.fixture
def big_faiss_file(tmp_path):
    bits = np.random.default_rng(11).integers(0, 256, (BIG_ROWS, BIG_WIDTH), dtype=np.uint8)
    vector_files.write_flat_binary(tmp_path / FAISS_FILE, bits)
    return tmp_path / FAISS_FILE


def open_in_a_fresh_process(faiss_path: Path, cached: bool = True) -> dict:
    """Heap reuse makes memory growth meaningful only in a fresh process (as a user's open is)."""
    import json
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", OPEN_IN_A_FRESH_PROCESS, str(faiss_path),
                           "cached" if cached else "memory"], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


linux_only = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="reads /proc/self (Linux)")


@linux_only
def test_the_first_and_later_opens_map_the_packed_codes_and_keep_no_copy(big_faiss_file):
    first = open_in_a_fresh_process(big_faiss_file)  # packs the codes into the cache, gives the memory back
    later = open_in_a_fresh_process(big_faiss_file)  # maps the cache
    assert (first["origin"], later["origin"]) == ("written", "cache")
    chunk = packed.PACK_ROWS * BIG_WIDTH
    assert 0 < first["packing"] < 4 * chunk  # packing holds three chunks at most, whatever the number of rows
    for opened in (first, later):
        assert opened["gain"] < opened["size"] / 4
        assert opened["cache_kib"] * 1024 >= opened["size"] and opened["faiss_kib"] == 0


@linux_only
def test_control_codes_packed_in_memory_are_seen_as_anonymous_memory(big_faiss_file):
    """The sibling's measure can fail: without the cache, the packed codes are anonymous memory."""
    opened = open_in_a_fresh_process(big_faiss_file, cached=False)
    assert opened["origin"] == "memory" and opened["gain"] >= opened["size"] * 0.9 and opened["cache_kib"] == 0


# ---------------------------------------------------------------- the int8 file's pages in the process

def mapped_kib(path: Path) -> int:
    """KiB of path's pages resident in this process's mappings of it (Linux: /proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].endswith(":"):
            inside = len(fields) > 5 and fields[5] == str(path)
        elif inside and fields[0] == "Rss:":
            total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads mappings from /proc (Linux)")
def test_a_big_int8_file_is_read_row_by_row_and_never_mapped(folder, monkeypatch):
    """Random reads through a map would leave the cached pages around every row read mapped into the process
    (most of a cached 17 GB file); a big file is read with pread, a small one is mapped."""
    path, _ = folder
    int8_path = (path / USEARCH_FILE).resolve()
    expected = np.fromfile(int8_path, np.int8, count=ROWS * DIM, offset=8).reshape(ROWS, DIM)
    rows = np.array([2999, 7, 1200, 7, 0])
    small = PositionalInt8Store(int8_path, ROWS, DIM)
    assert small.file is None and np.array_equal(small.get(rows), expected[rows])
    assert mapped_kib(int8_path) > 0
    del small
    assert mapped_kib(int8_path) == 0
    monkeypatch.setattr(vectors, "INT8_MAP_MAX", ROWS * DIM + 1000)  # the vectors fit, the file with its graph not
    assert (path / USEARCH_FILE).stat().st_size > vectors.INT8_MAP_MAX
    assert PositionalInt8Store(int8_path, ROWS, DIM).file is None  # as a million 384-d rows: mapped
    monkeypatch.setattr(vectors, "INT8_MAP_MAX", 64 * 1024)  # below the vectors' size (3000 x 64 bytes)
    big = PositionalInt8Store(int8_path, ROWS, DIM)
    assert big.file is not None and not big.prefetch
    for start in range(0, ROWS, 50):
        some = np.arange(start, min(start + 7, ROWS))[::-1]
        assert np.array_equal(big.get(some), expected[some])
    assert np.array_equal(big.get(rows), expected[rows])
    assert mapped_kib(int8_path) == 0


def test_reads_from_a_huge_int8_file_ask_for_all_their_rows_first(folder, monkeypatch):
    path, _ = folder
    expected = np.fromfile(path / USEARCH_FILE, np.int8, count=ROWS * DIM, offset=8).reshape(ROWS, DIM)
    monkeypatch.setattr(vectors, "INT8_MAP_MAX", 1)
    assert not PositionalInt8Store(path / USEARCH_FILE, ROWS, DIM).prefetch
    monkeypatch.setattr(vectors, "INT8_PREFETCH_MIN", 1)
    store = PositionalInt8Store(path / USEARCH_FILE, ROWS, DIM)
    assert store.prefetch
    asked, real = [], os.posix_fadvise
    monkeypatch.setattr(os, "posix_fadvise", lambda fd, offset, length, advice: (
        asked.append((offset, length, advice)), real(fd, offset, length, advice))[1])
    rows = np.array([2999, 5, 64, 1500])
    assert np.array_equal(store.get(rows), expected[rows])
    assert asked == [(8 + row * DIM, DIM, os.POSIX_FADV_WILLNEED) for row in sorted(rows)]


def test_an_int8_file_cut_short_under_a_reader_is_reported(folder, monkeypatch):
    path, _ = folder
    monkeypatch.setattr(vectors, "INT8_MAP_MAX", 1)
    store = PositionalInt8Store(path / USEARCH_FILE, ROWS, DIM)
    os.truncate(path / USEARCH_FILE, 8 + 100 * DIM)
    assert store.get(np.array([3, 99])).shape == (2, DIM)
    with pytest.raises(IndexCorrupt, match="shorter than its 3000 int8 vectors"):
        store.get(np.array([3, 2000]))


# ---------------------------------------------------------------- vector files written block by block

def test_the_faiss_file_is_the_one_faiss_writes(tmp_path, monkeypatch):
    monkeypatch.setattr(vector_files, "WRITE_ROWS", 700)
    bits = np.random.default_rng(2).integers(0, 256, (ROWS, DIM // 8), dtype=np.uint8)
    vector_files.write_flat_binary(tmp_path / "ours.index", bits)
    index = faiss.IndexBinaryFlat(DIM)
    index.add(bits)
    faiss.write_index_binary(index, str(tmp_path / "faiss.index"))
    assert (tmp_path / "ours.index").read_bytes() == (tmp_path / "faiss.index").read_bytes()
    assert np.array_equal(map_binary_codes(tmp_path / "ours.index"), bits)


def test_the_usearch_file_opens_in_usearch_with_every_vector_under_its_key(tmp_path, monkeypatch):
    from usearch.index import Index
    monkeypatch.setattr(vector_files, "WRITE_ROWS", 700)
    int8 = np.random.default_rng(3).integers(-128, 128, (ROWS, DIM), dtype=np.int8)
    vector_files.write_usearch_int8(tmp_path / "ours.index", int8)
    theirs = Index(ndim=DIM, metric="ip", dtype="i8")
    theirs.add(np.arange(ROWS, dtype=np.uint64), int8, threads=1)
    theirs.save(str(tmp_path / "usearch.index"))
    matrix_and_head = 8 + ROWS * DIM + 64  # the same bytes up to the graph (which here has no edges)
    assert (tmp_path / "ours.index").read_bytes()[:matrix_and_head] == \
        (tmp_path / "usearch.index").read_bytes()[:matrix_and_head]
    meta = Index.metadata(str(tmp_path / "ours.index"))
    assert (meta["count_present"], meta["dimensions"]) == (ROWS, DIM)
    keys = np.array([ROWS - 1, 0, 1234], dtype=np.uint64)
    for view in (True, False):
        restored = Index.restore(str(tmp_path / "ours.index"), view=view)
        assert len(restored) == ROWS
        assert np.array_equal(np.vstack(restored.get(keys, dtype="i8")), int8[keys.astype(np.int64)])


def test_a_writer_refuses_a_wrong_number_of_rows(tmp_path):
    writer = vector_files.UsearchInt8Writer(tmp_path / "u.index", 10, DIM)
    writer.append(np.zeros((6, DIM), np.int8))
    with pytest.raises(ValueError, match="does not fit"):
        writer.append(np.zeros((5, DIM), np.int8))
    with pytest.raises(ValueError, match="6 rows written, 10 announced"):
        writer.close()
    with pytest.raises(ValueError, match="does not fit"):
        vector_files.FlatBinaryWriter(tmp_path / "f.index", 10, DIM // 8).append(np.zeros((2, DIM), np.uint8))
