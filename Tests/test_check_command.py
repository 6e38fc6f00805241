"""`python app.py check`: the verdicts come first and the settings only on request (--settings); the Wikipedia
index and the document library get verdict lines of their own."""
from __future__ import annotations

import json

import pytest

from App_Function_Libraries.CLI import check_command
from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.Documents.library import EMBEDDING_META
from App_Function_Libraries.Documents.store import DocumentStore
from App_Function_Libraries.status import Verdict
from Tests.test_docs_store_retrieve import add, unit


@pytest.fixture
def check(make_settings, capsys, monkeypatch):
    """Run `check` on fresh settings; the engine and LLM verdicts stand in for the network checks."""
    monkeypatch.setattr(check_command, "status_lines", lambda s: [Verdict("engine duckduckgo", True, "answers")])

    def run(*args, values=None):
        settings = make_settings(values)
        code = main(["--config", str(settings.path), "check", *args])
        return code, capsys.readouterr().out, settings
    return run


def test_verdicts_first_and_settings_only_when_asked(check):
    code, out, settings = check()
    lines = out.splitlines()
    assert code == 0 and lines[0] == "OK   engine duckduckgo: answers", out
    assert lines[1].startswith("SKIP wikipedia index: no index in ") and "wiki build --demo" in lines[1]
    assert lines[2].startswith("SKIP document library: no documents yet in ") and "docs add" in lines[2]
    assert lines[3:] == [f"Config file: {settings.path} (python app.py check --settings shows every setting)"]
    assert "[search]" not in out and "search_provider_default" not in out
    code, out, _ = check("--settings")
    assert out.index("OK   engine duckduckgo") < out.index("[search]") < out.index("search_provider_default = ")
    assert "[search]" not in check("--no-settings")[1]  # the old flag still works: it is the default now
    data = json.loads(check("--json")[1])
    assert [c["name"] for c in data["checks"]] == ["engine duckduckgo", "wikipedia index", "document library"]
    assert "settings" not in data and "settings" in json.loads(check("--json", "--settings")[1])


def test_a_missing_index_asked_for_by_default_fails(check):
    code, out, _ = check(values={"search": {"search_provider_default": "duckduckgo,wikipedia,documents"}})
    assert code == 1 and "FAIL wikipedia index: no index in " in out and "FAIL document library: no documents" in out


def test_the_document_library_verdict_counts_documents_and_names_a_model_mismatch(check, tmp_path):
    store = DocumentStore(tmp_path / "docs")
    add(store, "/docs/a.txt", ["glacier melt"], [unit(1, 0)])
    add(store, "/docs/b.txt", ["sea ice"], [unit(0, 1)])
    store.set_meta(EMBEDDING_META, "all-MiniLM-L6-v2")
    store.close()
    code, out, _ = check()
    assert code == 0 and f"OK   document library: 2 documents, model all-MiniLM-L6-v2 ({tmp_path / 'docs'})" in out
    code, out, _ = check(values={"embeddings": {"model": "another-model"}})
    assert code == 1 and ("FAIL document library: 2 documents embedded with 'all-MiniLM-L6-v2', not the configured "
                          "'another-model'; run: python app.py docs reindex") in out


def test_a_damaged_index_or_library_fails_in_one_line(check, tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "manifest.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "documents.sqlite3").write_bytes(b"this is not a database" * 100)
    code, out, _ = check()
    assert code == 1 and "FAIL wikipedia index: " in out and "FAIL document library: " in out
    assert "Traceback" not in out
