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
from App_Function_Libraries.Wikipedia.signscan import auto_threads
from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes
from App_Function_Libraries.Wikipedia.vectors import KeyedInt8Store, PositionalInt8Store, VectorIndex


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
    int8_candidates: int = 1000  # at least this many rows are rescored with int8 (0: top_k x multiplier)
    hybrid: bool = True

    @classmethod
    def from_settings(cls, settings) -> "SearchParams":
        w = settings.wikipedia
        return cls(w.similarity_search_top_k_nodes, w.similarity_search_rescore_multiplier,
                   w.similarity_search_int8_candidates, w.hybrid)

    def int8_rows(self, top_k: int) -> int:
        """Rows the sign scan passes to int8 rescoring in a search keeping top_k."""
        return max(top_k * self.rescore_multiplier, self.int8_candidates)


class WikiIndex:
    def __init__(self, folder: Path, vectors: VectorIndex, store, manifest: Manifest | None, embedder):
        self.folder, self.vectors, self.store, self.manifest, self.embedder = folder, vectors, store, manifest, embedder
        self.open_seconds = 0.0  # opening the index files (the embedding model's load not included)
        self.model_seconds = 0.0  # loading the embedding model, when this open loaded it

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder, embedder, threads: int = 0) -> "WikiIndex":
        """Open a Quarry index or a folder in the public layout; check it fits the embedding model.
        threads: row shards of the sign scan, searched in parallel (0: one per CPU, at most 8)."""
        folder = Path(folder)
        if not (is_quarry_index(folder) or is_compat_index(folder)):
            raise IndexMissing(f"no Wikipedia index in {folder}; build one with: python app.py wiki build --demo "
                               f"(or --input PATH), or see Docs/wikipedia.md")
        start = time.perf_counter()
        manifest = Manifest.load(folder) if is_quarry_index(folder) else None
        if manifest is not None:
            _check_model_name(manifest.model, embedder, folder)  # before loading a model that may not fit
        model_seconds = _load_model(embedder)
        threads = threads or auto_threads()
        index = (cls._open_quarry(folder, manifest, embedder, threads) if manifest is not None
                 else cls._open_compat(folder, embedder, threads))
        index.open_seconds = time.perf_counter() - start - model_seconds
        index.model_seconds = model_seconds
        return index

    @classmethod
    def _open_quarry(cls, folder: Path, manifest: Manifest, embedder, threads: int) -> "WikiIndex":
        from App_Function_Libraries.Wikipedia.store import PassageStore
        _check_dimension(manifest.dimension, embedder, folder)
        codes = map_binary_codes(folder / FAISS_FILE)
        if codes.shape != (manifest.count, manifest.dimension // 8):
            raise IndexCorrupt(f"{folder / FAISS_FILE}: holds {codes.shape[0]} x {codes.shape[1] * 8} bits, the "
                               f"manifest says {manifest.count} x {manifest.dimension}; rebuild the index")
        int8 = (PositionalInt8Store(folder / USEARCH_FILE, manifest.count, manifest.dimension)
                if manifest.int8_rows_in_key_order else KeyedInt8Store(folder / USEARCH_FILE, manifest.dimension))
        calib = (quantize.Calibration.from_dict(manifest.calibration) if manifest.calibration
                 else quantize.plain_calibration(manifest.dimension))
        store = PassageStore(folder / STORE_FILE)
        vectors = VectorIndex(codes, int8, calib, threads, folder / FAISS_FILE)
        return cls(folder, vectors, store, manifest, embedder)

    @classmethod
    def _open_compat(cls, folder: Path, embedder, threads: int) -> "WikiIndex":
        from App_Function_Libraries.Wikipedia.compat import CompatStore
        codes = map_binary_codes(folder / FAISS_FILE)
        dimension = codes.shape[1] * 8
        _check_dimension(dimension, embedder, folder)
        int8 = KeyedInt8Store(folder / USEARCH_FILE, dimension)
        store = CompatStore(folder)
        if store.count() != len(codes):
            raise IndexCorrupt(f"{folder}: the text dataset has {store.count()} passages, the binary index "
                               f"{len(codes)}")
        vectors = VectorIndex(codes, int8, quantize.plain_calibration(dimension), threads, folder / FAISS_FILE)
        return cls(folder, vectors, store, None, embedder)

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
        rows, scores = self.vectors.search(query, k, params.int8_rows(k))
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
        return self.vectors.int8_scores(query, np.asarray(rows, dtype=np.int64))

    def close(self) -> None:
        self.vectors.close()
        self.store.close()


def _load_model(embedder) -> float:
    """Seconds spent loading the embedding model (0 when it was loaded before, or there is none)."""
    if embedder is None:
        return 0.0
    start = time.perf_counter()
    embedder.dimension  # noqa: B018 - loads the model on first use
    return time.perf_counter() - start


def _check_model_name(model: str, embedder, folder: Path) -> None:
    if embedder is not None and model and model != embedder.label:
        raise ModelMismatch(f"the index in {folder} was built with the embedding model {model!r}, but Quarry is "
                            f"set to use {embedder.label!r}: set [embeddings] model = {model} or rebuild the index")


def _check_dimension(dimension: int, embedder, folder: Path) -> None:
    if embedder is not None and embedder.dimension != dimension:
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
    threads = settings.wikipedia.search_threads
    key = (str(folder), id(embedder), stamp, threads)
    with _lock:
        if key not in _cache:
            for old in [k for k in _cache if k[0] == key[0]]:
                # dropped, not closed: a search in another thread may still be using it; it is freed when
                # the last one is done with it
                del _cache[old]
            _cache[key] = WikiIndex.open(folder, embedder, threads)
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
