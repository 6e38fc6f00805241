"""Hybrid retrieval over one node group: BM25 (SQLite FTS5) and vector search (faiss) each return 50
candidates, reciprocal rank fusion (k = 60) keeps the best 20, an optional cross-encoder re-ranks them.
Metadata filters (file name globs, types, modification dates) restrict both searches.
"""
from __future__ import annotations

import fnmatch
import re
from datetime import datetime, timezone

import numpy as np

from App_Function_Libraries.Documents.doc_types import DocumentInfo, DocumentsError, SearchFilters, SearchHit
from App_Function_Libraries.Documents.store import DocumentStore
from App_Function_Libraries.Retrieval.bm25 import STOPWORDS
from App_Function_Libraries.Retrieval.fusion import RRF_K, reciprocal_rank_fusion

CANDIDATES_PER_METHOD = 50
FUSED_TOP_K = 20
MAX_QUERY_TERMS = 64
_TERM_RE = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str:
    """User text as a safe FTS5 query: each word a quoted string, OR-joined (common words dropped unless
    nothing else is left). Never raises in FTS5, whatever the text holds; empty when it has no words."""
    terms = [t for t in _TERM_RE.findall(text.lower())]
    content = [t for t in terms if t not in STOPWORDS] or terms
    unique = list(dict.fromkeys(content))[:MAX_QUERY_TERMS]
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)


def matching_doc_ids(documents: list[DocumentInfo], filters: SearchFilters | None) -> list[int] | None:
    """Ids of the documents passing the filters (None: no filter, every document)."""
    if filters is None or filters.is_empty():
        return None
    names = [n.lower() for n in filters.names]
    types = {t.lower().lstrip(".") for t in filters.types}
    out = []
    for doc in documents:
        if filters.doc_ids and doc.id not in filters.doc_ids:
            continue
        if names and not any(fnmatch.fnmatch(doc.name.lower(), n) for n in names):
            continue
        if types and doc.file_type not in types:
            continue
        if not _in_date_range(doc.modified, filters.modified_after, filters.modified_before):
            continue
        out.append(doc.id)
    return out


def fuse(rankings: dict[str, list[tuple[int, float]]]) -> list[tuple[int, float]]:
    """Reciprocal rank fusion (k = 60) of the methods' rankings: [(node id, fused score)], best first."""
    return reciprocal_rank_fusion([[i for i, _ in r] for r in rankings.values()], k=RRF_K)


def _in_date_range(iso: str, after: datetime | None, before: datetime | None) -> bool:
    when = datetime.fromisoformat(iso)
    if after is not None and when < _aware(after):
        return False
    if before is not None and when > _aware(before):
        return False
    return True


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


class Retriever:
    """Searches one store; `embed_query(text) -> unit vector` and `dim` come from the embedder."""

    def __init__(self, store: DocumentStore, embedder, reranker=None):
        self.store = store
        self.embedder = embedder
        self.reranker = reranker

    def bm25(self, query: str, group: str, k: int = CANDIDATES_PER_METHOD,
             doc_ids: list[int] | None = None) -> list[tuple[int, float]]:
        if doc_ids is not None and not doc_ids:
            return []
        return self.store.bm25(fts_query(query), group, k, doc_ids)

    def vector(self, query_vector: np.ndarray, group: str, k: int = CANDIDATES_PER_METHOD,
               doc_ids: list[int] | None = None) -> list[tuple[int, float]]:
        allowed = None if doc_ids is None else self.store.node_ids_for_docs(group, doc_ids)
        index = self.store.vector_index(group, int(query_vector.shape[-1]))
        return index.search(query_vector, k, allowed)

    def search(self, query: str, group: str = "fine", k: int = FUSED_TOP_K,
               filters: SearchFilters | None = None, method: str = "hybrid",
               query_vector: np.ndarray | None = None, rerank: bool | None = None) -> list[SearchHit]:
        """The k best nodes of `group` for the query. method: hybrid (BM25 + vector, fused), bm25 or vector."""
        if method not in ("hybrid", "bm25", "vector"):
            raise DocumentsError(f"unknown search method {method!r}: use hybrid, bm25 or vector")
        rankings = self.candidates(query, group, filters, methods=("bm25", "vector") if method == "hybrid"
                                   else (method,), query_vector=query_vector)
        ordered = fuse(rankings) if method == "hybrid" else rankings[method]
        hits = self._hits(ordered[:k], {name: [i for i, _ in r] for name, r in rankings.items()})
        use_rerank = self.reranker is not None and rerank is not False
        if use_rerank and hits:
            hits = self.reranker.rerank(query, hits)
        return hits

    def candidates(self, query: str, group: str, filters: SearchFilters | None = None,
                   methods: tuple[str, ...] = ("bm25", "vector"), query_vector: np.ndarray | None = None,
                   per_method: int = CANDIDATES_PER_METHOD) -> dict[str, list[tuple[int, float]]]:
        """Each method's own ranking: {method: [(node id, score), ...]} (best first, up to per_method)."""
        doc_ids = matching_doc_ids(self.store.documents(with_counts=False), filters)
        out: dict[str, list[tuple[int, float]]] = {}
        if "bm25" in methods:
            out["bm25"] = self.bm25(query, group, per_method, doc_ids)
        if "vector" in methods:
            qvec = query_vector if query_vector is not None else self.embedder.encode_query(query)
            out["vector"] = self.vector(qvec, group, per_method, doc_ids)
        return out

    def _hits(self, ordered: list[tuple[int, float]], rankings: dict[str, list[int]]) -> list[SearchHit]:
        rows = self.store.nodes([i for i, _ in ordered])
        docs = {d.id: d for d in self.store.documents(with_counts=False)} if rows else {}
        positions = {name: {node: r for r, node in enumerate(ranking, start=1)} for name, ranking in rankings.items()}
        hits = []
        for node_id, score in ordered:
            row = rows.get(node_id)
            doc = docs.get(row.doc_id) if row else None
            if row is None or doc is None:  # removed meanwhile
                continue
            hits.append(SearchHit(
                node_id=node_id, doc_id=doc.id, path=doc.path, name=doc.name, file_type=doc.file_type,
                group=row.group, index=row.index, text=row.text, context=row.context, page=row.page,
                score=float(score), bm25_rank=positions.get("bm25", {}).get(node_id),
                vector_rank=positions.get("vector", {}).get(node_id), title=doc.title or ""))
        return hits
