"""Opening a local Wikipedia index and searching it (vector stages, optional FTS5 BM25 fusion).

`get_wiki_index(settings)` opens the configured index once (memory-mapped, well under a second) and keeps
it for later queries; `index_status(settings)` says whether one exists without opening it.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from App_Function_Libraries.Retrieval.fusion import reciprocal_rank_fusion
from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.layout import (FAISS_FILE, STORE_FILE, USEARCH_FILE, IndexCorrupt, IndexMissing,
                                                     Manifest, ModelMismatch, QueryError, is_compat_index,
                                                     is_quarry_index)
from App_Function_Libraries.Wikipedia.vectors import KeyedInt8Store, PositionalInt8Store, VectorIndex, read_binary_index


@dataclass
class WikiHit:
    row: int
    title: str
    url: str
    text: str
    pid: str = ""
    score: float = 0.0  # the ranking score (fused when hybrid)
    vector_score: float = 0.0  # estimated cosine similarity to the question
    bm25: float | None = None


@dataclass
class SearchParams:
    top_k: int = 100
    rescore_multiplier: int = 4
    hamming_candidates: int = 6000  # rows of the Hamming stage, narrowed by the sign stage (0: no such stage)
    int8_candidates: int = 1000  # at least this many rows are rescored with int8 (0: top_k x multiplier)
    hybrid: bool = True

    @classmethod
    def from_settings(cls, settings) -> "SearchParams":
        w = settings.wikipedia
        return cls(w.similarity_search_top_k_nodes, w.similarity_search_rescore_multiplier,
                   w.similarity_search_hamming_candidates, w.similarity_search_int8_candidates, w.hybrid)

    def stage_sizes(self, top_k: int) -> tuple[int, int]:
        """(Hamming rows, int8 rows) for a search keeping top_k."""
        int8 = max(top_k * self.rescore_multiplier, self.int8_candidates)
        return max(self.hamming_candidates, int8), int8


class WikiIndex:
    def __init__(self, folder: Path, vectors: VectorIndex, store, manifest: Manifest | None, embedder):
        self.folder, self.vectors, self.store, self.manifest, self.embedder = folder, vectors, store, manifest, embedder
        self.open_seconds = 0.0

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder, embedder) -> "WikiIndex":
        """Open a Quarry index or a folder in the public layout; check it fits the embedding model."""
        start = time.perf_counter()
        folder = Path(folder)
        if is_quarry_index(folder):
            index = cls._open_quarry(folder, embedder)
        elif is_compat_index(folder):
            index = cls._open_compat(folder, embedder)
        else:
            raise IndexMissing(f"no Wikipedia index in {folder}; build one with: python app.py wiki build --demo "
                               f"(or --input PATH), or see Docs/wikipedia.md")
        index.open_seconds = time.perf_counter() - start
        return index

    @classmethod
    def _open_quarry(cls, folder: Path, embedder) -> "WikiIndex":
        from App_Function_Libraries.Wikipedia.store import PassageStore
        manifest = Manifest.load(folder)
        _check_model(manifest.model, manifest.dimension, embedder, folder)
        binary = read_binary_index(folder / FAISS_FILE)
        if binary.d != manifest.dimension or binary.ntotal != manifest.count:
            raise IndexCorrupt(f"{folder / FAISS_FILE}: holds {binary.ntotal} x {binary.d} bits, the manifest "
                               f"says {manifest.count} x {manifest.dimension}; rebuild the index")
        int8 = (PositionalInt8Store(folder / USEARCH_FILE, manifest.count, manifest.dimension)
                if manifest.int8_rows_in_key_order else KeyedInt8Store(folder / USEARCH_FILE, manifest.dimension))
        calib = (quantize.Calibration.from_dict(manifest.calibration) if manifest.calibration
                 else quantize.plain_calibration(manifest.dimension))
        return cls(folder, VectorIndex(binary, int8, calib), PassageStore(folder / STORE_FILE), manifest, embedder)

    @classmethod
    def _open_compat(cls, folder: Path, embedder) -> "WikiIndex":
        from App_Function_Libraries.Wikipedia.compat import CompatStore
        binary = read_binary_index(folder / FAISS_FILE)
        _check_model("", binary.d, embedder, folder)
        int8 = KeyedInt8Store(folder / USEARCH_FILE, binary.d)
        store = CompatStore(folder)
        if store.count() != binary.ntotal:
            raise IndexCorrupt(f"{folder}: the text dataset has {store.count()} passages, the binary index "
                               f"{binary.ntotal}")
        return cls(folder, VectorIndex(binary, int8, quantize.plain_calibration(binary.d)), store, None, embedder)

    @property
    def count(self) -> int:
        return self.vectors.count

    def describe(self) -> str:
        model = self.manifest.model if self.manifest else "(public layout; model from settings)"
        docs = f"{self.manifest.documents:,} articles, " if self.manifest else ""
        return f"{docs}{self.count:,} passages, {self.vectors.dimension}-d, model {model}"

    # ------------------------------------------------------------ searching
    @property
    def query_prompt(self) -> str:
        """The prefix questions get: the one the index was built with, else the configured one."""
        if self.manifest is not None and self.manifest.query_prompt:
            return self.manifest.query_prompt
        return self.embedder.query_prompt or ""

    def embed_query(self, question: str) -> np.ndarray:
        question = (question or "").strip()
        if not question:
            raise QueryError("the question is empty")
        window = self.embedder.max_tokens
        tokens = self.embedder.token_count(self.query_prompt + question)
        if tokens > window:
            raise QueryError(f"the question is {tokens} tokens long; the embedding model reads at most {window}: "
                             f"shorten it")
        if self.query_prompt == (self.embedder.query_prompt or ""):
            return self.embedder.encode_query(question)
        return self.embedder.encode([self.query_prompt + question])[0]

    def search(self, question: str, params: SearchParams | None = None, top_k: int | None = None) -> list[WikiHit]:
        """Passages nearest to the question, best first (vector stages, fused with BM25 when hybrid)."""
        params = params or SearchParams()
        k = top_k or params.top_k
        query = self.embed_query(question)
        hamming, int8 = params.stage_sizes(k)
        rows, scores = self.vectors.search(query, k, int8, hamming)
        vector_scores = dict(zip(rows.tolist(), scores.tolist()))
        bm25: dict[int, float] = {}
        ranking = rows.tolist()
        if params.hybrid and self.store.has_fts:
            bm25 = dict(self.store.full_text_search(question, k))
            if bm25:
                fused = reciprocal_rank_fusion([ranking, list(bm25)])[:k]
                ranking = [r for r, _ in fused]
                fused_scores = dict(fused)
                extra = [r for r in ranking if r not in vector_scores]
                vector_scores.update(zip(extra, self.score_rows(query, extra).tolist()))
        final = fused_scores if bm25 else vector_scores
        hits = []
        for p in self.store.passages(ranking):
            hits.append(WikiHit(p.row, p.title, p.url, p.text, p.pid, float(final[p.row]),
                                float(vector_scores[p.row]), bm25.get(p.row)))
        return hits

    def score_rows(self, query: np.ndarray, rows: list[int]) -> np.ndarray:
        """The float query against the int8 vectors of any rows (estimated cosine similarity)."""
        if not rows:
            return np.zeros(0, np.float32)
        codes = self.vectors.int8.get(np.asarray(rows, dtype=np.int64))
        return quantize.int8_scores(quantize.int8_weights(query, self.vectors.calib), codes)

    def close(self) -> None:
        self.store.close()


def _check_model(model: str, dimension: int, embedder, folder: Path) -> None:
    if embedder is None:
        return
    if model and model != embedder.label:
        raise ModelMismatch(f"the index in {folder} was built with the embedding model {model!r}, but Quarry is "
                            f"set to use {embedder.label!r}: set [embeddings] model = {model} or rebuild the index")
    if embedder.dimension != dimension:
        raise ModelMismatch(f"the index in {folder} holds {dimension}-dimensional vectors, but the embedding model "
                            f"{embedder.label!r} makes {embedder.dimension}: use the model the index was built with")


# ---------------------------------------------------------------- the process-wide index

_cache: dict[tuple, WikiIndex] = {}
_lock = threading.Lock()


def index_folder(settings) -> Path:
    return settings.resolve_path(settings.wikipedia.index_dir)


def get_wiki_index(settings=None) -> WikiIndex:
    """The configured index, opened on first use and kept open for later queries."""
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    if settings is None:
        from App_Function_Libraries.config import get_settings
        settings = get_settings()
    folder = index_folder(settings)
    embedder = get_embedder(settings)
    manifest_path = folder / "manifest.json"
    stamp = manifest_path.stat().st_mtime_ns if manifest_path.exists() else 0
    key = (str(folder), id(embedder), stamp)
    with _lock:
        if key not in _cache:
            for old in [k for k in _cache if k[0] == key[0]]:
                _cache.pop(old).close()
            _cache[key] = WikiIndex.open(folder, embedder)
        return _cache[key]


def forget_wiki_index(settings=None) -> None:
    """Close the cached index (after a rebuild, or in tests)."""
    with _lock:
        for key in list(_cache):
            if settings is None or key[0] == str(index_folder(settings)):
                _cache.pop(key).close()


def index_status(settings) -> tuple[bool, str]:
    """(exists, one-line description) for the configured index folder, without loading anything heavy."""
    folder = index_folder(settings)
    if is_quarry_index(folder):
        try:
            m = Manifest.load(folder)
        except IndexCorrupt as exc:
            return False, str(exc)
        return True, f"{m.documents:,} articles, {m.count:,} passages, model {m.model} ({folder})"
    if is_compat_index(folder):
        return True, f"an index in the public layout ({folder})"
    return False, f"no index in {folder}; build the demo encyclopedia with: python app.py wiki build --demo"
