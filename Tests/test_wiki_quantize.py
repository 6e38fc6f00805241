"""Quantization and the staged vector search, on synthetic vectors (no model)."""
from __future__ import annotations

import numpy as np
import pytest

from App_Function_Libraries.Wikipedia import quantize, signscan
from App_Function_Libraries.Wikipedia.builder import write_vector_indexes
from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE, IndexCorrupt
from App_Function_Libraries.Wikipedia.signscan import SignScan
from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes
from App_Function_Libraries.Wikipedia.vectors import KeyedInt8Store, PositionalInt8Store, VectorIndex


def unit_vectors(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32) + 0.05
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_ubinary_is_packed_sign_bits_msb_first():
    v = np.array([[0.5, -1, 2, -0.1, 0, 3, -2, 1, 1, 1, 1, 1, 1, 1, 1, -1]], dtype=np.float32)
    assert quantize.to_ubinary(v).tolist() == [[0b10100101, 0b11111110]]


def test_int8_round_trip_is_close_and_calibration_serialises():
    v = unit_vectors(500)
    calib = quantize.calibrate(v)
    again = quantize.Calibration.from_dict(calib.to_dict())
    codes = quantize.to_int8(v, again)
    assert codes.dtype == np.int8 and codes.min() >= -128 and codes.max() <= 127
    q = v[0]
    estimate = quantize.int8_scores(quantize.int8_weights(q, again), codes)
    assert np.max(np.abs(estimate - v @ q)) < 0.02  # 255 levels per dimension


def test_int8_clips_values_outside_the_calibration_range():
    calib = quantize.calibrate(np.array([[0.0, 0.0], [1.0, 1.0]], dtype=np.float32) * 1.0)
    codes = quantize.to_int8(np.array([[5.0, -5.0]], dtype=np.float32), calib)
    assert codes.tolist() == [[127, -128]]


def scaled_sign_scores(v: np.ndarray, calib: quantize.Calibration, q: np.ndarray) -> np.ndarray:
    return (np.where(v > 0, 1.0, -1.0) * calib.binary_scale) @ q


def test_sign_scan_scores_the_query_against_scaled_signs():
    v = unit_vectors(500)
    calib = quantize.calibrate(v)
    scan = SignScan(quantize.to_ubinary(v), calib.binary_scale)
    for seed in range(5):
        q = unit_vectors(1, seed=100 + seed)[0]
        exact = scaled_sign_scores(v, calib, q)
        rows, scores = scan.search(q, 500)
        assert sorted(rows.tolist()) == list(range(500))
        # fast-scan rounds its lookup tables to 8 bits: scores are close, not equal
        assert np.max(np.abs(scores - exact[rows])) < 0.01 * np.ptp(exact)
        best, _ = scan.search(q, 20)
        assert len(set(best.tolist()) & set(np.argsort(-exact)[:20].tolist())) >= 18


def test_sharded_sign_scan_keeps_the_same_rows_as_one_shard(monkeypatch):
    monkeypatch.setattr(signscan, "MIN_SHARD_ROWS", 500)
    v = unit_vectors(3000)
    calib = quantize.calibrate(v)
    one = SignScan(quantize.to_ubinary(v), calib.binary_scale, threads=1)
    three = SignScan(quantize.to_ubinary(v), calib.binary_scale, threads=3)
    assert len(one.shards) == 1 and len(three.shards) == 3 and three.shards[1].start % 32 == 0
    for seed in range(10):
        q = unit_vectors(1, seed=200 + seed)[0]
        rows1, scores1 = one.search(q, 100)
        rows3, scores3 = three.search(q, 100)
        assert len(rows3) == 100 and sorted(scores3.tolist()) == sorted(scores1.tolist())
        cut = np.sort(scores1)[0]  # rows tied with the 100th score may differ; all above it may not
        assert set(rows3[scores3 > cut].tolist()) == set(rows1[scores1 > cut].tolist())
    three.close()


@pytest.fixture
def vector_folder(tmp_path):
    v = unit_vectors(3000)
    calib = quantize.calibrate(v)
    write_vector_indexes(tmp_path, quantize.to_ubinary(v), quantize.to_int8(v, calib))
    return tmp_path, v, calib


def test_staged_search_finds_the_exact_neighbours(vector_folder):
    folder, v, calib = vector_folder
    index = VectorIndex(map_binary_codes(folder / FAISS_FILE), PositionalInt8Store(folder / USEARCH_FILE, 3000, 64),
                        calib)
    queries = unit_vectors(20, seed=7)
    hits = 0
    for q in queries:
        rows, scores = index.search(q, 10, 400)
        assert list(scores) == sorted(scores, reverse=True)
        hits += len(set(rows.tolist()) & set(np.argsort(-(v @ q))[:10].tolist()))
    assert hits / 200 >= 0.9  # int8 ties at the 10th place cost a little; the bench measures the real thing
    rows, _ = index.search(v[42], 5, 5)
    assert rows[0] == 42


def test_a_big_index_passes_more_rows_to_int8_rescoring(vector_folder, monkeypatch):
    from App_Function_Libraries.Wikipedia import vectors
    folder, v, calib = vector_folder
    index = VectorIndex(map_binary_codes(folder / FAISS_FILE), PositionalInt8Store(folder / USEARCH_FILE, 3000, 64),
                        calib)
    asked, real = [], index.scan.search
    monkeypatch.setattr(index.scan, "search", lambda q, k, rescore=None: asked.append(k) or real(q, k, rescore))
    index.search(v[0], 10, 40)
    monkeypatch.setattr(vectors, "ROWS_PER_INT8_CANDIDATE", 10)  # 3,000 rows: at least 300 candidates
    rows, _ = index.search(v[0], 10, 40)
    assert asked == [40, 300] and rows[0] == 0


def test_positional_and_keyed_int8_reads_agree(vector_folder):
    folder, v, calib = vector_folder
    rows = np.array([2999, 0, 17, 1500])
    positional = PositionalInt8Store(folder / USEARCH_FILE, 3000, 64).get(rows)
    keyed = KeyedInt8Store(folder / USEARCH_FILE, 64).get(rows)
    assert np.array_equal(positional, keyed)
    assert np.array_equal(positional, quantize.to_int8(v[rows], calib))


def test_wrong_count_or_a_truncated_int8_file_is_refused(vector_folder):
    folder, _, _ = vector_folder
    with pytest.raises(IndexCorrupt, match="expected 10 int8 vectors"):
        PositionalInt8Store(folder / USEARCH_FILE, 10, 64)
    data = (folder / USEARCH_FILE).read_bytes()
    (folder / USEARCH_FILE).write_bytes(data[:5000])
    with pytest.raises(IndexCorrupt):
        PositionalInt8Store(folder / USEARCH_FILE, 3000, 64)
    binary = (folder / FAISS_FILE).read_bytes()
    (folder / FAISS_FILE).write_bytes(binary[:-8])
    with pytest.raises(IndexCorrupt, match="does not match the file"):
        map_binary_codes(folder / FAISS_FILE)
    (folder / FAISS_FILE).write_bytes(b"not an index at all")
    with pytest.raises(IndexCorrupt, match="not a readable faiss"):
        map_binary_codes(folder / FAISS_FILE)
    (folder / FAISS_FILE).unlink()
    with pytest.raises(IndexCorrupt, match="missing"):
        map_binary_codes(folder / FAISS_FILE)


@pytest.mark.parametrize("ahead", [1.1, 0.3])  # 0.3: most kept rows are rescored after the merge
def test_sharded_search_rescores_the_rows_one_shard_would(vector_folder, monkeypatch, ahead):
    """Four shards return exactly the int8 top-k of their merged candidates, and differ from one shard only
    where the sign scan's candidates do: rows tied at the candidate cut may be kept by either (which one
    depends on how the CPU's SIMD path orders ties), and k rows picked from candidate sets that differ in m
    rows differ in at most m rows."""
    folder, v, calib = vector_folder
    monkeypatch.setattr(signscan, "MIN_SHARD_ROWS", 500)
    monkeypatch.setattr(signscan, "RESCORE_AHEAD", ahead)
    int8 = PositionalInt8Store(folder / USEARCH_FILE, 3000, 64)
    one, four = (VectorIndex(map_binary_codes(folder / FAISS_FILE), int8, calib, threads) for threads in (1, 4))
    assert (one.threads, four.threads) == (1, 4)
    for q in unit_vectors(10, seed=11):
        rows, scores = four.search(q, 20, 300)
        candidates, scan_scores = four.scan.search(q, 300)  # the same merge, rescored here in one go
        expected = candidates[np.argsort(-four.int8_scores(q, candidates), kind="stable")[:20]]
        assert set(rows.tolist()) == set(expected.tolist())
        np.testing.assert_allclose(scores, four.int8_scores(q, rows), rtol=1e-6)
        one_candidates, one_scan_scores = one.scan.search(q, 300)
        assert sorted(scan_scores.tolist()) == sorted(one_scan_scores.tolist())
        cut = np.sort(scan_scores)[0]
        assert set(candidates[scan_scores > cut].tolist()) == set(one_candidates[one_scan_scores > cut].tolist())
        differ = len(set(candidates.tolist()) ^ set(one_candidates.tolist())) // 2
        one_rows = one.search(q, 20, 300)[0]
        assert len(set(one_rows.tolist()) - set(rows.tolist())) <= differ
    four.close()


def test_sharded_search_check_fails_when_a_shard_rescores_wrongly(vector_folder, monkeypatch):
    """Control for the test above: a rescoring that drops the five best rows is caught."""
    folder, v, calib = vector_folder
    monkeypatch.setattr(signscan, "MIN_SHARD_ROWS", 500)
    int8 = PositionalInt8Store(folder / USEARCH_FILE, 3000, 64)
    one, four = (VectorIndex(map_binary_codes(folder / FAISS_FILE), int8, calib, threads) for threads in (1, 4))
    caught = 0
    for q in unit_vectors(10, seed=11):
        candidates, _ = four.scan.search(q, 300)
        wrong = candidates[np.argsort(-four.int8_scores(q, candidates), kind="stable")[5:25]]
        one_candidates, _ = one.scan.search(q, 300)
        differ = len(set(candidates.tolist()) ^ set(one_candidates.tolist())) // 2
        one_rows = one.search(q, 20, 300)[0]
        caught += len(set(one_rows.tolist()) - set(wrong.tolist())) > differ
    assert caught >= 8
    four.close()


def test_a_big_index_is_packed_in_bounded_shards_taken_in_turn_by_the_threads(monkeypatch):
    """No shard over MAX_SHARD_ROWS; more shards than threads still give the same rows as one shard."""
    monkeypatch.setattr(signscan, "MIN_SHARD_ROWS", 200)
    monkeypatch.setattr(signscan, "MAX_SHARD_ROWS", 640)
    for threads in (1, 2):
        bounds = signscan.shard_bounds(3000, threads)
        assert bounds[0][0] == 0 and bounds[-1][1] == 3000 and len(bounds) % threads == 0
        assert all(end - start <= 640 and start % 32 == 0 for start, end in bounds)
    v = unit_vectors(3000)
    calib = quantize.calibrate(v)
    one = SignScan(quantize.to_ubinary(v), calib.binary_scale, threads=1)
    two = SignScan(quantize.to_ubinary(v), calib.binary_scale, threads=2)
    assert len(one.shards) >= 5 and len(two.shards) % 2 == 0 and two.workers.threads == 2
    assert all(shard.index.ntotal <= 640 for shard in one.shards + two.shards)
    q = unit_vectors(1, seed=300)[0]
    rows1, scores1 = one.search(q, 100)
    rows2, scores2 = two.search(q, 100)
    assert sorted(scores1.tolist()) == sorted(scores2.tolist())
    two.close()
