"""The documents store and hybrid retrieval on hand-made data: FTS5 BM25, faiss vectors, rank fusion order,
filters, parent links, safe query quoting and a faiss index that is only ever a cache."""
from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from App_Function_Libraries.Documents.doc_types import SearchFilters
from App_Function_Libraries.Documents.node_groups import NodeDraft
from App_Function_Libraries.Documents.retrieve import Retriever, fts_query
from App_Function_Libraries.Documents.store import DocumentStore, NewDocument
from App_Function_Libraries.Retrieval.fusion import reciprocal_rank_fusion


def unit(*xs) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def new_doc(path: str, file_type: str = "txt", modified: str = "2024-03-01T10:00:00+00:00") -> NewDocument:
    return NewDocument(path=path, name=path.rsplit("/", 1)[-1], file_type=file_type, size=10, content_hash=path,
                       recipe="r", title="t", modified=modified, pages=0, words=10, warnings=[])


def add(store: DocumentStore, path: str, texts: list[str], vectors: list[np.ndarray], **kw) -> list[int]:
    drafts = [NodeDraft("fine", i, t, None, i * 5) for i, t in enumerate(texts)]
    info = store.write_document(new_doc(path, **kw), drafts, [""] * len(texts), np.stack(vectors))
    return [n.id for n in store.group_nodes(info.id, "fine")]


@pytest.fixture
def store(tmp_path):
    s = DocumentStore(tmp_path / "idx")
    yield s
    s.close()


def test_fusion_order_on_a_hand_made_case(store):
    # BM25 for "apple": a (3x) > b (2x) > d (1x), c never. Vectors for e1: d > c > b > a.
    ids = add(store, "/docs/fruit.txt",
              ["apple apple apple kiwi lime", "apple apple kiwi lime mango", "kiwi lime mango nut olive",
               "apple kiwi lime mango nut"],
              [unit(0, 1, 0, 0), unit(0.3, 1, 0, 0), unit(0.8, 0.6, 0, 0), unit(1, 0, 0, 0)])
    a, b, c, d = ids
    retriever = Retriever(store, embedder=None)
    q = unit(1, 0, 0, 0)
    assert [h.node_id for h in retriever.search("apple", method="bm25", query_vector=q)] == [a, b, d]
    assert [h.node_id for h in retriever.search("apple", method="vector", query_vector=q)] == [d, c, b, a]
    hits = retriever.search("apple", query_vector=q)
    # RRF k=60: d 1/63+1/61, a 1/61+1/64, b 1/62+1/63, c 1/62
    assert [h.node_id for h in hits] == [d, a, b, c]
    assert [(h.bm25_rank, h.vector_rank) for h in hits] == [(3, 1), (1, 4), (2, 3), (None, 2)]
    assert hits[0].score == pytest.approx(1 / 63 + 1 / 61)
    assert [h.node_id for h in retriever.search("apple", k=2, query_vector=q)] == [d, a]
    assert reciprocal_rank_fusion([[a, b, d], [d, c, b, a]])[0][0] == d


def test_filters_limit_both_searches(store):
    md = add(store, "/docs/notes.md", ["glacier melt rates"], [unit(1, 0, 0, 0)], file_type="md",
             modified="2023-01-10T00:00:00+00:00")
    pdf = add(store, "/docs/report.pdf", ["glacier melt in the alps"], [unit(0.9, 0.1, 0, 0)], file_type="pdf",
              modified="2024-06-01T00:00:00+00:00")
    r = Retriever(store, embedder=None)
    q = unit(1, 0, 0, 0)

    def found(**kw):
        return {h.node_id for h in r.search("glacier", query_vector=q, filters=SearchFilters(**kw))}
    assert found() == set(md + pdf)
    assert found(types=["pdf"]) == set(pdf)
    assert found(types=[".MD"]) == set(md)
    assert found(names=["REPORT*"]) == set(pdf)
    assert found(names=["*.md", "*.pdf"]) == set(md + pdf)
    assert found(modified_after=datetime(2024, 1, 1)) == set(pdf)
    assert found(modified_before=datetime(2023, 12, 31)) == set(md)
    assert found(types=["docx"]) == set()
    for method in ("bm25", "vector"):
        assert {h.node_id for h in r.search("glacier", query_vector=q, method=method,
                                            filters=SearchFilters(types=["md"]))} == set(md)


def test_parent_links_and_removal(store):
    drafts = [NodeDraft("coarse", 0, "big part one two", None, 0),
              NodeDraft("fine", 0, "big part", 0, 0), NodeDraft("fine", 1, "one two", 0, 2)]
    info = store.write_document(new_doc("/docs/a.txt"), drafts, ["ctx"] * 3,
                                np.stack([unit(1, 0, 0, 0), unit(0, 1, 0, 0), unit(0, 0, 1, 0)]))
    assert info.nodes == {"coarse": 1, "fine": 2}
    coarse = store.group_nodes(info.id, "coarse")[0]
    children = store.children(coarse.id)
    assert [c.text for c in children] == ["big part", "one two"]
    assert all(c.parent_id == coarse.id for c in children)
    r = Retriever(store, embedder=None)
    assert r.search("big", group="coarse", query_vector=unit(1, 0, 0, 0))
    store.delete_document(info.id)
    assert r.search("big", group="coarse", query_vector=unit(1, 0, 0, 0)) == []
    assert r.search("big", group="fine", query_vector=unit(0, 1, 0, 0)) == []
    assert store.nodes([coarse.id] + [c.id for c in children]) == {}


@pytest.mark.parametrize("damage", ["delete", "garbage", "stale"])
def test_faiss_file_is_rebuilt_from_stored_vectors(tmp_path, damage):
    s = DocumentStore(tmp_path / "idx")
    ids = add(s, "/docs/x.txt", ["first", "second"], [unit(1, 0, 0, 0), unit(0, 1, 0, 0)])
    s.vector_index("fine", 4)
    s.flush()
    s.close()
    faiss_file = tmp_path / "idx" / "vectors-fine.faiss"
    assert faiss_file.exists()
    if damage == "delete":
        faiss_file.unlink()
    elif damage == "garbage":
        faiss_file.write_bytes(b"not a faiss index")
    else:  # another writer changed the store after this file was saved
        s2 = DocumentStore(tmp_path / "idx")
        ids += add(s2, "/docs/y.txt", ["third"], [unit(0, 0, 1, 0)])
        s2.conn.close()  # closed without saving its faiss file
    s3 = DocumentStore(tmp_path / "idx")
    hits = s3.vector_index("fine", 4).search(unit(0, 0, 1, 0), 5)
    assert {i for i, _ in hits} == set(ids)
    s3.close()


def test_a_second_writer_is_seen_without_reopening(tmp_path):
    first = DocumentStore(tmp_path / "idx")
    add(first, "/docs/a.txt", ["alpha"], [unit(1, 0, 0, 0)])
    assert first.vector_index("fine", 4).size == 1
    second = DocumentStore(tmp_path / "idx")
    new = add(second, "/docs/b.txt", ["beta"], [unit(0, 1, 0, 0)])
    second.close()
    hits = first.vector_index("fine", 4).search(unit(0, 1, 0, 0), 1)
    assert hits[0][0] == new[0]
    first.close()


def test_fts_query_quotes_every_term():
    assert fts_query('the "apple" OR pie*') == '"apple" OR "pie"'  # "or" is a stop word
    assert fts_query("the of and") == '"the" OR "of" OR "and"'  # only stop words: keep them
    assert fts_query("¿?!") == ""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_no_query_text_makes_fts5_raise(store, text):
    store.bm25(fts_query(text), "fine", 5)


@pytest.mark.parametrize("text", ['"', 'a" OR "b', "NEAR(a b)", "col: x", "-x", "*", "AND OR NOT", "^start",
                                  "{a b}: c", "x'); DROP TABLE nodes; --", "日本語のテキスト", "e\u0301te\u0301"])
def test_hostile_queries_are_plain_words(store, text):
    add(store, "/docs/z.txt", ["x nodes table start"], [unit(1, 0, 0, 0)])
    store.bm25(fts_query(text), "fine", 5)
    assert store.conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0] == 1


def test_bm25_finds_stems_and_context(store):
    drafts = [NodeDraft("fine", 0, "The mice were running experiments.", None, 0)]
    store.write_document(new_doc("/docs/lab.txt"), drafts, ["Lab notebook of the Baker group."],
                         np.stack([unit(1, 0, 0, 0)]))
    assert store.bm25(fts_query("mouse"), "fine", 5) == []  # stemming, not lemmas: mice is not mouse
    assert len(store.bm25(fts_query("runs"), "fine", 5)) == 1  # porter: runs ~ running
    assert len(store.bm25(fts_query("experiment"), "fine", 5)) == 1
    assert len(store.bm25(fts_query("Baker notebook"), "fine", 5)) == 1  # context is indexed with the chunk
    assert store.bm25(fts_query("Baker"), "coarse", 5) == []  # groups are searched separately


def test_an_unknown_search_method_is_a_documents_error(store):
    from App_Function_Libraries.Documents.doc_types import DocumentsError
    with pytest.raises(DocumentsError, match="unknown search method 'fuzzy'"):
        Retriever(store, embedder=None).search("apple", method="fuzzy")
