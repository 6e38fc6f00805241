"""Opening a tiny folder laid out like the public wikipedia-2023-11-en-index, and refusing unsafe pickles."""
from __future__ import annotations

import json
import pickle
import sqlite3

import faiss
import numpy as np
import pyarrow as pa
import pytest
from usearch.index import Index

from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.compat import UnsafePickle, load_row_list
from App_Function_Libraries.Wikipedia.index import WikiIndex
from App_Function_Libraries.Wikipedia.layout import IndexCorrupt, IndexMissing

DIM = 64
ARTICLES = {"Lighthouse": 3, "Glacier": 4, "Tide pool": 2, "Kite": 3}


def make_public_layout(folder, mapping_values=None):
    """faiss-ubinary.index, usearch-int8.index (keys added in parallel, as the public index was made),
    document-url-mappings.sqlite (SqliteDict table of pickled row lists) and the text as a datasets folder."""
    rows, texts = [], []
    for title, n in ARTICLES.items():
        for i in range(n):
            rows.append((title, f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}"))
            texts.append(f"{title} passage {i}")
    rng = np.random.default_rng(5)
    vecs = rng.standard_normal((len(rows), DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    binary = faiss.IndexBinaryFlat(DIM)
    binary.add(quantize.to_ubinary(vecs))
    faiss.write_index_binary(binary, str(folder / "faiss-ubinary.index"))
    int8 = np.clip(np.rint(vecs * 127), -128, 127).astype(np.int8)
    index = Index(ndim=DIM, metric="ip", dtype="i8")
    index.add(np.arange(len(rows)), int8)
    index.save(str(folder / "usearch-int8.index"))
    db = sqlite3.connect(folder / "document-url-mappings.sqlite")
    db.execute('CREATE TABLE "unnamed" (key TEXT PRIMARY KEY, value BLOB)')
    by_url: dict[str, list[int]] = {}
    for r, (_, url) in enumerate(rows):
        by_url.setdefault(url, []).append(r)
    values = mapping_values or {url: pickle.dumps(r, protocol=pickle.HIGHEST_PROTOCOL) for url, r in by_url.items()}
    db.executemany('INSERT INTO "unnamed" VALUES (?, ?)', list(values.items()))
    db.commit()
    db.close()
    text_dir = folder / "wikipedia-en-text"
    text_dir.mkdir()
    table = pa.table({"_id": [f"id{i}" for i in range(len(rows))], "title": [t for t, _ in rows],
                      "url": [u for _, u in rows], "text": texts})
    with pa.OSFile(str(text_dir / "data-00000-of-00001.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=5)
    (text_dir / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    return vecs, by_url


def test_public_layout_opens_and_searches(tmp_path):
    vecs, by_url = make_public_layout(tmp_path)
    index = WikiIndex.open(tmp_path, embedder=None)
    assert index.manifest is None and index.count == len(vecs)
    assert not index.store.has_fts
    rows, scores = index.vectors.search(vecs[6], 3, 12)
    assert rows[0] == 6
    passage = index.store.passages([6])[0]
    assert (passage.title, passage.text, passage.pid) == ("Glacier", "Glacier passage 3", "id6")
    assert index.store.document_rows("https://en.wikipedia.org/wiki/Glacier") == by_url[
        "https://en.wikipedia.org/wiki/Glacier"]
    assert index.store.document_rows("https://en.wikipedia.org/wiki/Nope") == []
    assert "public layout" in index.describe()


def test_a_malicious_pickle_in_the_mapping_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    url = "https://en.wikipedia.org/wiki/Kite"
    make_public_layout(tmp_path, {url: pickle.dumps(Payload())})
    index = WikiIndex.open(tmp_path, embedder=None)
    with pytest.raises(UnsafePickle, match="refused"):
        index.store.document_rows(url)
    assert not marker.exists()


@pytest.mark.parametrize("protocol", range(0, pickle.HIGHEST_PROTOCOL + 1))
def test_lists_of_ints_load_in_every_protocol(protocol):
    assert load_row_list(pickle.dumps([0, 7, 2 ** 40, 3], protocol=protocol)) == [0, 7, 2 ** 40, 3]


@pytest.mark.parametrize("value", [["a"], {"rows": [1]}, (1, 2), [1.5], [-1], [[1]], 5])
def test_anything_but_a_list_of_row_numbers_is_refused(value):
    with pytest.raises(UnsafePickle):
        load_row_list(pickle.dumps(value))


def test_garbage_bytes_are_refused():
    with pytest.raises(UnsafePickle):
        load_row_list(b"\x80\x05not a pickle")


def test_missing_text_dataset_and_empty_folder_give_clear_errors(tmp_path):
    with pytest.raises(IndexMissing, match="python app.py wiki build"):
        WikiIndex.open(tmp_path, embedder=None)
    make_public_layout(tmp_path)
    for f in (tmp_path / "wikipedia-en-text").iterdir():
        f.unlink()
    (tmp_path / "wikipedia-en-text").rmdir()
    with pytest.raises(IndexCorrupt, match="text is missing"):
        WikiIndex.open(tmp_path, embedder=None)
