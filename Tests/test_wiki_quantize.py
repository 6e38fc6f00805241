"""Quantization and the staged vector search, on synthetic vectors (no model)."""
from __future__ import annotations

import numpy as np
import pytest

from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.builder import write_vector_indexes
from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE, IndexCorrupt
from App_Function_Libraries.Wikipedia.vectors import (KeyedInt8Store, PositionalInt8Store, VectorIndex,
                                                      read_binary_index)


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


def test_sign_scores_equal_the_query_against_scaled_signs():
    v = unit_vectors(50)
    calib = quantize.calibrate(v)
    codes = quantize.to_ubinary(v)
    q = unit_vectors(1, seed=3)[0]
    signs = np.where(v > 0, 1.0, -1.0) * calib.binary_scale
    np.testing.assert_allclose(quantize.sign_scores(quantize.sign_table(q, calib), codes), signs @ q, rtol=1e-4,
                               atol=1e-5)


@pytest.fixture
def vector_folder(tmp_path):
    v = unit_vectors(3000)
    calib = quantize.calibrate(v)
    write_vector_indexes(tmp_path, quantize.to_ubinary(v), quantize.to_int8(v, calib))
    return tmp_path, v, calib


def test_staged_search_finds_the_exact_neighbours(vector_folder):
    folder, v, calib = vector_folder
    index = VectorIndex(read_binary_index(folder / FAISS_FILE), PositionalInt8Store(folder / USEARCH_FILE, 3000, 64),
                        calib)
    queries = unit_vectors(20, seed=7)
    hits = 0
    for q in queries:
        rows, scores = index.search(q, 10, 400, 2000)
        assert list(scores) == sorted(scores, reverse=True)
        hits += len(set(rows.tolist()) & set(np.argsort(-(v @ q))[:10].tolist()))
    assert hits / 200 >= 0.9  # int8 ties at the 10th place cost a little; the bench measures the real thing
    rows, _ = index.search(v[42], 5, 50)  # the original two-stage search (no sign stage)
    assert rows[0] == 42


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
    (folder / FAISS_FILE).write_bytes(b"not an index at all")
    with pytest.raises(IndexCorrupt, match="not a readable faiss"):
        read_binary_index(folder / FAISS_FILE)
