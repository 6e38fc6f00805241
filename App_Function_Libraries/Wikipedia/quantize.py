"""Embedding quantization for the two-stage index: packed sign bits (binary) and per-dimension int8.

Binary: one bit per dimension, set when the value is positive, packed 8 to a byte (most significant bit
first: numpy's packbits order, and the layout of the public dataset's `emb_ubinary`). (Centring the bits on
each dimension's median was tried and ranked no better on MiniLM-like data, so plain signs are kept.)

int8: each dimension's calibration range [low, high] is cut into 255 steps; value -> round((x-low)/step) - 128.

Scoring against a float query:
- the sign vectors (each bit read as +-`binary_scale` of its dimension): signscan.py, faiss fast-scan.
- `int8_weights` + `int8_scores`: the float query against dequantized int8 vectors (an affine map per
  dimension, so the dot product needs only the int8 codes and a per-query weight vector).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INT8_LEVELS = 255


@dataclass
class Calibration:
    """Per-dimension quantization parameters, computed once from a sample and saved with the index."""
    int8_low: np.ndarray  # (dim,) float32
    int8_high: np.ndarray  # (dim,) float32
    binary_scale: np.ndarray  # (dim,) float32: mean |x|, the size one sign bit stands for

    @property
    def dimension(self) -> int:
        return int(self.int8_low.shape[0])

    def to_dict(self) -> dict:
        return {"int8_low": self.int8_low.tolist(), "int8_high": self.int8_high.tolist(),
                "binary_scale": self.binary_scale.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        arrays = {k: np.asarray(data[k], dtype=np.float32) for k in
                  ("int8_low", "int8_high", "binary_scale")}
        dims = {a.shape for a in arrays.values()}
        if len(dims) != 1 or len(next(iter(dims))) != 1:
            raise ValueError("calibration arrays must be 1-D and of equal length")
        return cls(**arrays)


def calibrate(sample: np.ndarray) -> Calibration:
    """Quantization parameters from a sample of float32 embeddings (rows)."""
    sample = np.asarray(sample, dtype=np.float32)
    if sample.ndim != 2 or sample.shape[0] == 0:
        raise ValueError("calibration needs a non-empty 2-D sample")
    low, high = sample.min(axis=0), sample.max(axis=0)
    high = np.where(high > low, high, low + 1e-6)
    scale = np.maximum(np.abs(sample).mean(axis=0), 1e-6)
    return Calibration(low.astype(np.float32), high.astype(np.float32), scale.astype(np.float32))


def plain_calibration(dimension: int) -> Calibration:
    """Parameters for vectors quantized elsewhere (the public dataset): int8 codes are read as they are
    (low -128, step 1: dequantized value = code) and every bit weighs the same."""
    zeros = np.zeros(dimension, np.float32)
    return Calibration(zeros - 128.0, zeros + 127.0, zeros + 1.0)


# ---------------------------------------------------------------- quantizing

def to_ubinary(emb: np.ndarray) -> np.ndarray:
    """Packed sign bits (rows, dim/8) uint8."""
    return np.packbits(np.atleast_2d(emb) > 0, axis=1)


def to_int8(emb: np.ndarray, calib: Calibration) -> np.ndarray:
    emb = np.atleast_2d(np.asarray(emb, dtype=np.float32))
    step = (calib.int8_high - calib.int8_low) / INT8_LEVELS
    codes = np.rint((emb - calib.int8_low) / step) - 128.0
    return np.clip(codes, -128, 127).astype(np.int8)


# ---------------------------------------------------------------- scoring with the float query

def int8_weights(query: np.ndarray, calib: Calibration) -> tuple[np.ndarray, float]:
    """(w, bias) so that codes @ w + bias = query . dequantized(codes), an estimate of the float score."""
    query = np.asarray(query, np.float32)
    step = (calib.int8_high - calib.int8_low) / INT8_LEVELS
    bias = float(query @ (calib.int8_low + 128.0 * step))
    return (query * step).astype(np.float32), bias


def int8_scores(weights: tuple[np.ndarray, float], codes: np.ndarray) -> np.ndarray:
    w, bias = weights
    return codes.astype(np.float32) @ w + np.float32(bias)
