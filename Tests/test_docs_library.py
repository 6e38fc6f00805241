"""The document library end to end with the real MiniLM embedder: ingest of every file type, unreadable
files skipped with reasons, incremental re-ingest, node groups, contextual annotation through the scripted
LLM, path context, and the embedding-model guard."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from App_Function_Libraries.Documents.doc_types import DocumentNotFound, DocumentsError, IndexMismatch
from App_Function_Libraries.Documents.library import EMBEDDING_META, DocumentLibrary
from App_Function_Libraries.Retrieval.passages import split_paragraphs
from Tests.support.make_pdf import write_encrypted_pdf, write_pdf
from Tests.support.openai_server import ScriptedLLM
from Tests.test_docs_readers import write_docx

pytestmark = pytest.mark.slow


def make_corpus(folder: Path) -> dict[str, Path]:
    """One file of every type, each with a word found nowhere else, plus unreadable and ignored files."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sub").mkdir(exist_ok=True)
    files = {
        "txt": folder / "notes.txt", "md": folder / "sub" / "paper.md", "rst": folder / "guide.rst",
        "html": folder / "page.html", "pdf": folder / "report.pdf", "docx": folder / "memo.docx"}
    files["txt"].write_text("Field notes. The heron colony nested near the estuary this spring.\n", encoding="utf-8")
    files["md"].write_text("# Catalysis\n\nPlatinum catalysts speed up hydrogen fuel cells.\n", encoding="utf-8")
    files["rst"].write_text("Telescope guide\n===============\n\nAlign the equatorial mount before observing "
                            "Jupiter.\n", encoding="utf-8")
    files["html"].write_text("<html><head><title>Bakery</title></head><body><article><p>Sourdough bread needs a "
                             "lively starter and a long cold fermentation overnight.</p></article></body></html>",
                             encoding="utf-8")
    write_pdf(files["pdf"], [["Quarterly report on glacier retreat in the Alps."],
                             ["Page two: volcanic ash fell on the observatory roof."]], title="Glacier report")
    write_docx(files["docx"], ["Budget memo", "Travel reimbursements for the archaeology dig were approved."])
    write_encrypted_pdf(folder / "locked.pdf", [["classified"]])
    write_pdf(folder / "scan.pdf", [None])
    (folder / "blob.txt").write_bytes(bytes(range(256)) * 4)
    (folder / "empty.md").write_bytes(b"")
    (folder / "photo.png").write_bytes(b"\x89PNG")
    (folder / ".hidden.txt").write_text("hidden words", encoding="utf-8")
    return files


@pytest.fixture
def patterns_file(tmp_path):
    return tmp_path / "patterns.yml"


@pytest.fixture
def library(make_settings, patterns_file):
    settings = make_settings({"documents": {"annotation_patterns": str(patterns_file)}})
    lib = DocumentLibrary(settings)
    yield lib
    lib.close()


def top_file(lib: DocumentLibrary, query: str, **kw) -> str:
    hits = lib.search(query, **kw)
    return Path(hits[0].path).name if hits else ""


def test_ingest_every_type_and_skip_bad_files(library, tmp_path):
    files = make_corpus(tmp_path / "corpus")
    seen = []
    report = library.add([tmp_path / "corpus", tmp_path / "nowhere"], progress=lambda d, t, p: seen.append((d, t)))
    assert sorted(Path(d.path).name for d in report.added) == sorted(p.name for p in files.values())
    reasons = {Path(s.path).name: s.reason for s in report.skipped}
    assert "encrypted PDF" in reasons["locked.pdf"]
    assert "no extractable text" in reasons["scan.pdf"]
    assert "binary" in reasons["blob.txt"]
    assert reasons["empty.md"] == "empty file"
    assert reasons["nowhere"] == "no such file or folder"
    assert report.ignored == 1  # photo.png; the hidden file is not even counted
    assert seen[-1] == (10, 10)
    assert {Path(p).name for p, _ in library.skipped()} == {"locked.pdf", "scan.pdf", "blob.txt", "empty.md"}
    docs = {Path(d.path).name: d for d in library.list()}
    assert docs["report.pdf"].pages == 2 and docs["report.pdf"].title == "Glacier report"
    assert docs["paper.md"].title == "Catalysis" and docs["memo.docx"].file_type == "docx"
    assert all(d.nodes == {"coarse": 1, "fine": 1} for d in docs.values())
    for query, name in [("heron estuary", "notes.txt"), ("platinum hydrogen", "paper.md"),
                        ("equatorial mount Jupiter", "guide.rst"), ("sourdough starter", "page.html"),
                        ("glacier retreat", "report.pdf"), ("archaeology reimbursements", "memo.docx")]:
        assert top_file(library, query) == name, query
    volcanic = library.search("volcanic ash", group="coarse")[0]
    assert volcanic.citation_target.endswith("report.pdf#p1")  # the one coarse node starts on page 1
    assert library.search("heron", method="bm25")[0].location == "chunk-1"


def test_incremental_reingest(library, tmp_path):
    files = make_corpus(tmp_path / "corpus")
    library.add([tmp_path / "corpus"])
    again = library.add([tmp_path / "corpus"])
    assert again.added == [] and again.replaced == [] and len(again.unchanged) == 6
    note = files["txt"]
    note.write_text("Field notes, revised. A pair of ospreys replaced the herons this year.\n", encoding="utf-8")
    os.utime(note, (time.time() + 5, time.time() + 5))
    changed = library.add([note])
    assert [Path(d.path).name for d in changed.replaced] == ["notes.txt"]
    assert top_file(library, "ospreys", method="bm25") == "notes.txt"
    assert library.search("colony estuary", method="bm25") == []  # old text gone
    old_id = changed.replaced[0].id
    files["md"].write_bytes(b"")  # a file that becomes unreadable loses its stale entry
    emptied = library.add([files["md"]])
    assert "earlier version was removed" in emptied.skipped[0].reason
    assert "paper.md" not in {Path(d.path).name for d in library.list()}
    removed = library.remove(str(files["docx"]))
    assert removed.name == "memo.docx" and library.search("archaeology", method="bm25") == []
    library.remove(old_id)
    assert {Path(d.path).name for d in library.list()} == {"guide.rst", "page.html", "report.pdf"}
    with pytest.raises(DocumentNotFound):
        library.remove(9999)
    with pytest.raises(DocumentNotFound):
        library.remove(str(tmp_path / "never-added.txt"))


def test_node_groups_parents_and_custom_group(library, tmp_path):
    text = "\n\n".join(f"Section {i}. " + " ".join(f"Sentence {i}-{j} describes item {i * 100 + j}." for j in range(30))
                       for i in range(6))
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    library.create_node_group("para", split_paragraphs)
    info = library.add([tmp_path / "long.txt"]).added[0]
    assert info.nodes["para"] == 6 and info.nodes["coarse"] >= 2 and info.nodes["fine"] > info.nodes["coarse"]
    store = library.store
    for coarse in store.group_nodes(info.id, "coarse"):
        children = store.children(coarse.id)
        assert children and all(c.group == "fine" for c in children)
        assert " ".join(c.text for c in children).split() == coarse.text.split()
    hits = library.search("item 305", group="para", k=3)
    assert hits[0].group == "para" and hits[0].text.startswith("Section 3.")
    with pytest.raises(DocumentsError, match="no node group 'nope'.*coarse, fine, para"):
        library.search("item", group="nope")
    # a changed group set re-splits documents that are otherwise unchanged
    lib2 = DocumentLibrary(library.settings)
    report = lib2.add([tmp_path / "long.txt"])
    assert len(report.replaced) == 1 and "para" not in report.replaced[0].nodes
    lib2.close()


def test_a_changed_reader_reads_again_only_its_own_file_type(library, tmp_path, monkeypatch):
    """A change to the HTML reader (readers.READER_CHANGES) makes HTML documents indexed before it be read
    again on the next add; documents of every other type are left alone (no re-embedding of a whole library)."""
    from App_Function_Libraries.Documents import readers
    make_corpus(tmp_path / "corpus")
    monkeypatch.setattr(readers, "READER_CHANGES", {})
    monkeypatch.setattr("App_Function_Libraries.Documents.ingest.READER_CHANGES", {})
    library.add([tmp_path / "corpus"])
    monkeypatch.undo()
    again = library.add([tmp_path / "corpus"])
    assert [Path(d.path).name for d in again.replaced] == ["page.html"] and len(again.unchanged) == 5
    assert library.add([tmp_path / "corpus"]).replaced == []  # and once read again, it stays


def test_a_chunk_is_found_by_its_documents_title(library, tmp_path):
    """A chunk that never names its subject is found by its document's title (BM25 searches it with the chunk;
    not shown); a file with the same text and another title (the control) is not."""
    page = ("<html><head><title>Minecraft 1.8 - The Bountiful Update</title></head><body><article>"
            + "".join(f"<p>+ Added {b} blocks to the game, with smooth versions of each.</p>"
                      for b in ("granite", "andesite", "diorite", "prismarine", "slime")) + "</article></body></html>")
    (tmp_path / "changelog.html").write_text(page, encoding="utf-8")
    (tmp_path / "notes.md").write_text("+ Added granite blocks to the game, with smooth versions of each.\n",
                                       encoding="utf-8")
    library.add([tmp_path])
    hits = library.search("What is the Bountiful Update?", method="bm25")
    assert [Path(h.path).name for h in hits] and {Path(h.path).name for h in hits} == {"changelog.html"}
    assert all("Bountiful" not in h.text for h in hits)  # the chunk's own text does not hold it
    assert {Path(h.path).name for h in library.search("granite blocks", method="bm25")} == {"changelog.html",
                                                                                          "notes.md"}


def test_contextual_and_path_annotation(make_settings, world, tmp_path, patterns_file):
    llm = ScriptedLLM(default="This passage comes from the zeppelin maintenance logbook of the airfield.")
    llm.install(world)
    patterns_file.write_text('"*/grants/*": "A funding proposal filed under quasar research."\n', encoding="utf-8")
    settings = make_settings({"llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model"},
                              "documents": {"contextual_annotation": "true",
                                            "annotation_patterns": str(patterns_file)}})
    (tmp_path / "grants").mkdir()
    doc = tmp_path / "grants" / "proposal.md"
    doc.write_text("We request support for three more years of observations.\n", encoding="utf-8")
    lib = DocumentLibrary(settings)
    report = lib.add([doc])
    assert report.annotation_calls == 1  # the coarse node; the fine node inherits its context
    hit = lib.search("zeppelin", method="bm25")[0]
    assert hit.context == ("A funding proposal filed under quasar research. This passage comes from the zeppelin "
                           "maintenance logbook of the airfield.")
    assert lib.search("quasar", method="bm25", group="coarse")[0].path == str(doc)
    calls = llm.calls
    assert lib.add([doc]).unchanged == [str(doc)] and llm.calls == calls
    without = lib.add([doc], annotate=False)  # another recipe: indexed again, without LLM context
    assert len(without.replaced) == 1 and llm.calls == calls
    assert lib.search("zeppelin", method="bm25") == []
    back = lib.add([doc])  # annotation back on: the cached context is reused, no call
    assert len(back.replaced) == 1 and llm.calls == calls and lib.search("zeppelin", method="bm25")
    lib.close()


def test_annotation_without_llm_warns(make_settings, tmp_path):
    settings = make_settings({"documents": {"contextual_annotation": "true"}})
    (tmp_path / "a.txt").write_text("Some words to index here.", encoding="utf-8")
    lib = DocumentLibrary(settings)
    report = lib.add([tmp_path / "a.txt"])
    assert report.added and "no LLM is configured" in report.warnings[0]
    lib.close()


def test_embedding_model_guard_and_reindex(library, tmp_path):
    (tmp_path / "a.txt").write_text("Lichens grow slowly on granite boulders.", encoding="utf-8")
    library.add([tmp_path / "a.txt"])
    library.store.set_meta(EMBEDDING_META, "some-other-model")
    with pytest.raises(IndexMismatch, match="docs reindex"):
        library.search("lichens")
    assert library.search("lichens", method="bm25")  # BM25 needs no vectors
    assert library.reindex() == 2
    assert top_file(library, "lichen growth on rocks", method="vector") == "a.txt"


def test_cross_encoder_rerank_orders_by_its_scores(make_settings, tmp_path):
    # No trained cross-encoder ships offline: MiniLM's weights with a fresh scoring head exercise the loading,
    # pair scoring and re-ordering code (the scores themselves carry no meaning here).
    from App_Function_Libraries.Retrieval.embeddings import default_model_path
    settings = make_settings({"embeddings": {"cross_encoder": default_model_path()}})
    for i, text in enumerate(["Coffee roasting darkens the beans.", "Coffee grinders vary in burr size.",
                              "Coffee cherries are picked by hand.", "Coffee futures rose this quarter."]):
        (tmp_path / f"c{i}.txt").write_text(text, encoding="utf-8")
    lib = DocumentLibrary(settings)
    lib.add([tmp_path / f"c{i}.txt" for i in range(4)])
    plain = lib.search("coffee", rerank=False)
    assert all(h.rerank_score is None for h in plain)
    reranked = lib.search("coffee")
    scores = [h.rerank_score for h in reranked]
    assert None not in scores and scores == sorted(scores, reverse=True)
    assert sorted(h.node_id for h in reranked) == sorted(h.node_id for h in plain)
    lib.close()
