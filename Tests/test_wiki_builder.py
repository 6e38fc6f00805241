"""Readers (JSONL, Parquet, datasets folder, SQuAD), the builder with precomputed vectors (no model),
resuming an interrupted build, and bad input."""
from __future__ import annotations

import json
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.builder import build_index
from App_Function_Libraries.Wikipedia.index import WikiIndex
from App_Function_Libraries.Wikipedia.layout import BuildInputError, IndexCorrupt, Manifest
from App_Function_Libraries.Wikipedia.readers import detect_format, iter_passages

DIM = 64


def records(n: int = 40, seed: int = 1) -> tuple[list[dict], np.ndarray]:
    """Passages with precomputed emb_ubinary / emb_int8 (the public dataset's columns)."""
    vecs = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    bits, int8 = quantize.to_ubinary(vecs), np.clip(np.rint(vecs * 127), -128, 127).astype(np.int8)
    recs = [{"_id": f"p{i}", "title": f"Article {i // 4}", "url": f"https://en.wikipedia.org/wiki/Article_{i // 4}",
             "text": f"Passage number {i} about topic {i // 4}.", "emb_ubinary": bits[i].tolist(),
             "emb_int8": int8[i].tolist()} for i in range(n)]
    return recs, vecs


def write_jsonl(path, recs) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def test_jsonl_build_with_precomputed_vectors_then_reopen(tmp_path):
    recs, vecs = records()
    write_jsonl(tmp_path / "in.jsonl", recs)
    report = build_index(tmp_path / "in.jsonl", tmp_path / "idx", model_label="mixedbread-ai/mxbai-embed-large-v1",
                         query_prompt="Represent this sentence for searching relevant passages: ")
    assert (report.count, report.documents, report.dimension) == (40, 10, DIM)
    manifest = Manifest.load(tmp_path / "idx")
    assert manifest.calibration is None and manifest.model == "mixedbread-ai/mxbai-embed-large-v1"
    assert manifest.query_prompt.startswith("Represent")
    assert not (tmp_path / "idx" / ".build").exists()
    index = WikiIndex.open(tmp_path / "idx", embedder=None)
    rows, _ = index.vectors.search(vecs[13], 3, 12)
    assert rows[0] == 13
    assert index.store.passages([13])[0].text == "Passage number 13 about topic 3."
    assert index.store.document_rows("https://en.wikipedia.org/wiki/Article_3") == [12, 13, 14, 15]
    assert [r for r, _ in index.store.full_text_search("passage number 13", 5)][0] == 13
    index.close()
    reopened = WikiIndex.open(tmp_path / "idx", embedder=None)  # memory-mapped again, same answers
    assert reopened.vectors.search(vecs[13], 3, 12)[0].tolist() == rows.tolist()


def test_parquet_and_datasets_folder_and_squad_read_the_same_passages(tmp_path):
    recs, _ = records(12)
    table = pa.Table.from_pylist(recs)
    pq.write_table(table, tmp_path / "in.parquet", row_group_size=5)
    ds = tmp_path / "saved"
    ds.mkdir()
    with pa.OSFile(str(ds / "data-00000-of-00001.arrow"), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table, max_chunksize=4)
    (ds / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    assert (detect_format(tmp_path / "in.parquet"), detect_format(ds)) == ("parquet", "datasets")
    from_parquet = list(iter_passages(tmp_path / "in.parquet"))
    from_arrow = list(iter_passages(ds))
    assert [p.pid for p in from_parquet] == [p.pid for p in from_arrow] == [r["_id"] for r in recs]
    assert np.array_equal(from_parquet[5].int8, np.asarray(recs[5]["emb_int8"], dtype=np.int8))
    squad = {"version": "1.1", "data": [{"title": "Coral_reef", "paragraphs": [
        {"context": "Corals build reefs.", "qas": []}, {"context": "Reefs shelter fish.", "qas": []}]}]}
    (tmp_path / "dev.json").write_text(json.dumps(squad))
    passages = list(iter_passages(tmp_path / "dev.json"))
    assert [(p.title, p.text, p.url) for p in passages][1] == (
        "Coral reef", "Reefs shelter fish.", "https://en.wikipedia.org/wiki/Coral_reef")


def test_an_interrupted_build_resumes_where_it_stopped(tmp_path):
    recs, vecs = records(50)
    write_jsonl(tmp_path / "in.jsonl", recs)
    calls = []

    def stop_after_two_chunks(done, total):
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    kw = dict(model_label="m", chunk_rows=8, calibration_rows=8)
    with pytest.raises(KeyboardInterrupt):
        build_index(tmp_path / "in.jsonl", tmp_path / "idx", progress=stop_after_two_chunks, **kw)
    assert not (tmp_path / "idx" / "manifest.json").exists()
    report = build_index(tmp_path / "in.jsonl", tmp_path / "idx", **kw)
    assert report.resumed_from == 16 and report.count == 50
    fresh = build_index(tmp_path / "in.jsonl", tmp_path / "fresh", **kw)
    for name in ("faiss-ubinary.index", "usearch-int8.index"):
        assert (tmp_path / "idx" / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()
    index = WikiIndex.open(tmp_path / "idx", embedder=None)
    assert index.store.count() == 50 and index.vectors.search(vecs[49], 1, 10)[0][0] == 49
    assert fresh.resumed_from == 0
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        build_index(tmp_path / "in.jsonl", tmp_path / "again", progress=stop_after_two_chunks, **kw)
    write_jsonl(tmp_path / "in.jsonl", recs[:30])  # the input changed: no resuming from the old rows
    assert build_index(tmp_path / "in.jsonl", tmp_path / "again", **kw).resumed_from == 0


def test_bad_input_gives_clear_errors(tmp_path):
    with pytest.raises(BuildInputError, match="no such file"):
        build_index(tmp_path / "missing.jsonl", tmp_path / "idx", model_label="m")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(BuildInputError, match="no passages found"):
        build_index(tmp_path / "empty.jsonl", tmp_path / "idx", model_label="m")
    (tmp_path / "bad.jsonl").write_text('{"text": "fine", "emb_ubinary": [1], "emb_int8": [1, 1, 1, 1, 1, 1, 1, 1]}\n{oops\n')
    with pytest.raises(BuildInputError, match=r"bad.jsonl:2: not valid JSON"):
        build_index(tmp_path / "bad.jsonl", tmp_path / "idx", model_label="m", chunk_rows=1, calibration_rows=1)
    (tmp_path / "notext.jsonl").write_text('{"title": "No text here"}\n')
    with pytest.raises(BuildInputError, match="no `text`"):
        build_index(tmp_path / "notext.jsonl", tmp_path / "idx", model_label="m")
    (tmp_path / "plain.jsonl").write_text('{"text": "needs a model"}\n')
    with pytest.raises(BuildInputError, match="no embedding model"):
        build_index(tmp_path / "plain.jsonl", tmp_path / "idx", model_label="m")
    recs, _ = records(4)
    recs[1]["emb_int8"] = recs[1]["emb_int8"][:10]
    write_jsonl(tmp_path / "mixed.jsonl", recs)
    with pytest.raises(BuildInputError, match="expected 64"):
        build_index(tmp_path / "mixed.jsonl", tmp_path / "idx", model_label="m")


def test_an_existing_index_is_kept_unless_forced_and_corruption_is_reported(tmp_path):
    recs, _ = records(8)
    write_jsonl(tmp_path / "in.jsonl", recs)
    build_index(tmp_path / "in.jsonl", tmp_path / "idx", model_label="m")
    with pytest.raises(BuildInputError, match="--force"):
        build_index(tmp_path / "in.jsonl", tmp_path / "idx", model_label="m")
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    manifest["count"] = 9
    (tmp_path / "idx" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexCorrupt, match="rebuild"):
        WikiIndex.open(tmp_path / "idx", embedder=None)
    (tmp_path / "idx" / "manifest.json").write_text("{not json")
    with pytest.raises(IndexCorrupt, match="unreadable manifest"):
        WikiIndex.open(tmp_path / "idx", embedder=None)
    build_index(tmp_path / "in.jsonl", tmp_path / "idx", model_label="m", force=True)
    for name in ("usearch-int8.index", "faiss-ubinary.index"):
        kept = (tmp_path / "idx" / name).read_bytes()
        (tmp_path / "idx" / name).unlink()
        with pytest.raises(IndexCorrupt, match="missing"):
            WikiIndex.open(tmp_path / "idx", embedder=None)
        (tmp_path / "idx" / name).write_bytes(kept)
    (tmp_path / "idx" / "passages.sqlite").write_bytes(b"garbage" * 100)
    with pytest.raises(IndexCorrupt, match="not a readable passage store"):
        WikiIndex.open(tmp_path / "idx", embedder=None)


def file_digests(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_a_folder_in_the_public_layout_is_not_overwritten_without_force(tmp_path):
    from Tests.test_wiki_compat import make_public_layout
    public = tmp_path / "public"
    public.mkdir()
    make_public_layout(public)
    before = file_digests(public)
    recs, _ = records(8)
    write_jsonl(tmp_path / "in.jsonl", recs)
    with pytest.raises(BuildInputError, match=r"already holds an index \(faiss-ubinary.index.*--force"):
        build_index(tmp_path / "in.jsonl", public, model_label="m")
    assert file_digests(public) == before
    build_index(tmp_path / "in.jsonl", public, model_label="m", force=True)
    assert Manifest.load(public).count == 8


class FakeModel:
    """What the builder asks of an embedding model when the input brings its own vectors."""
    label, query_prompt = "all-MiniLM-L6-v2", ""

    def __init__(self, dimension: int):
        self.dimension = dimension

    def encode(self, texts, **kw):
        raise AssertionError("precomputed vectors must not be embedded again")


def test_precomputed_vectors_of_another_dimension_than_the_model_are_refused(tmp_path):
    recs, _ = records(8)
    write_jsonl(tmp_path / "in.jsonl", recs)
    with pytest.raises(BuildInputError, match=r"have 64 dimensions, but the embedding model 'all-MiniLM-L6-v2' "
                                              r"makes 384; name the model that made them with --model"):
        build_index(tmp_path / "in.jsonl", tmp_path / "idx", FakeModel(384))
    assert not (tmp_path / "idx" / "manifest.json").exists()
    build_index(tmp_path / "in.jsonl", tmp_path / "idx", FakeModel(DIM))
    assert (Manifest.load(tmp_path / "idx").model, Manifest.load(tmp_path / "idx").dimension) == (
        "all-MiniLM-L6-v2", DIM)


def test_the_demo_replaces_only_an_earlier_demo_index(tmp_path, make_settings, capsys):
    from App_Function_Libraries.CLI.main import main as cli_main
    from App_Function_Libraries.Wikipedia.demo import DEMO_CORPUS, demo_may_replace
    recs, _ = records(8)
    write_jsonl(tmp_path / "in.jsonl", recs)
    assert demo_may_replace(tmp_path / "empty", force=False) is False
    build_index(tmp_path / "in.jsonl", tmp_path / "demo", model_label="m", demo=True)
    assert demo_may_replace(tmp_path / "demo", force=False) is True
    build_index(tmp_path / "in.jsonl", tmp_path / "real", model_label="m")
    with pytest.raises(BuildInputError, match="not the demo encyclopedia.*--force"):
        demo_may_replace(tmp_path / "real", force=False)
    assert demo_may_replace(tmp_path / "real", force=True) is True
    manifest = json.loads((tmp_path / "real" / "manifest.json").read_text())
    manifest["source"] = "/elsewhere/" + "/".join(DEMO_CORPUS.parts[-2:])  # made before manifests said "demo"
    (tmp_path / "old-demo").mkdir()
    (tmp_path / "old-demo" / "manifest.json").write_text(json.dumps(manifest))
    assert demo_may_replace(tmp_path / "old-demo", force=False) is True
    before = file_digests(tmp_path / "real")
    cfg = ["--config", str(make_settings().path)]
    assert cli_main(cfg + ["wiki", "build", "--demo", "--out", str(tmp_path / "real")]) == 1
    assert "not the demo encyclopedia" in capsys.readouterr().err
    assert file_digests(tmp_path / "real") == before


class HashEmbedder(FakeModel):
    """A deterministic stand-in for an embedding model: each text's vector comes from its CRC."""

    def encode(self, texts, **kw):
        vecs = np.vstack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(self.dimension)
                          for t in texts]).astype(np.float32)
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def test_embedding_builds_commit_and_report_every_batch_even_before_calibration(tmp_path):
    recs, _ = records(50)
    for r in recs:
        del r["emb_ubinary"], r["emb_int8"]
    write_jsonl(tmp_path / "in.jsonl", recs)
    kw = dict(chunk_rows=8, calibration_rows=20)
    calls = []

    def stop_after_two_batches(done, total):
        calls.append((done, total))
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # 16 rows in: the int8 ranges are not calibrated yet
        build_index(tmp_path / "in.jsonl", tmp_path / "idx", HashEmbedder(DIM), progress=stop_after_two_batches, **kw)
    assert calls == [(8, 50), (16, 50)]
    calls.clear()
    report = build_index(tmp_path / "in.jsonl", tmp_path / "idx", HashEmbedder(DIM),
                         progress=lambda *call: calls.append(call), **kw)
    assert report.resumed_from == 16 and [c[0] for c in calls] == [24, 32, 40, 48, 50]
    fresh = build_index(tmp_path / "in.jsonl", tmp_path / "fresh", HashEmbedder(DIM), **kw)
    for name in ("faiss-ubinary.index", "usearch-int8.index"):
        assert (tmp_path / "idx" / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()
    assert Manifest.load(tmp_path / "idx").calibration == Manifest.load(tmp_path / "fresh").calibration
    small = build_index(tmp_path / "in.jsonl", tmp_path / "small", HashEmbedder(DIM), chunk_rows=8,
                        calibration_rows=1000)  # fewer passages than the calibration sample
    assert small.count == 50 and Manifest.load(tmp_path / "small").calibration is not None
    index = WikiIndex.open(tmp_path / "small", embedder=None)
    query = HashEmbedder(DIM).encode([recs[7]["text"]])[0]
    assert index.vectors.search(query, 1, 10)[0][0] == 7
