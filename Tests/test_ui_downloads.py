"""Download files do not pile up in the temporary directory (Gradio_UI/downloads.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from App_Function_Libraries.Gradio_UI import downloads

ROOT = Path(__file__).resolve().parent.parent
DAY = 24 * 3600


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def folder(base: Path, name: str, age: float = 0.0) -> Path:
    path = base / name
    (path / "f0").mkdir(parents=True)
    (path / "f0" / "report.md").write_text("x", encoding="utf-8")
    when = time.time() - age
    for p in (path / "f0" / "report.md", path / "f0", path):
        os.utime(p, (when, when))
    return path


def test_folders_of_gone_processes_and_old_folders_are_removed(tmp_path):
    gone = folder(tmp_path, f"quarry-ui-{dead_pid()}-abc")
    mine = folder(tmp_path, f"quarry-ui-{os.getpid()}-def")
    running = folder(tmp_path, f"quarry-ui-{os.getppid()}-ghi")
    running_but_stale = folder(tmp_path, f"quarry-ui-{os.getppid()}-jkl", age=2 * DAY)
    old_style_stale = folder(tmp_path, "quarry-ui-mno", age=2 * DAY)
    old_style_fresh = folder(tmp_path, "quarry-ui-pqr", age=DAY / 2)
    other = folder(tmp_path, "somebody-else", age=9 * DAY)
    removed = downloads.prune_stale_roots(tmp_path)
    assert sorted(removed) == sorted([gone, running_but_stale, old_style_stale])
    assert sorted(p for p in tmp_path.iterdir()) == sorted([mine, running, old_style_fresh, other])


def test_a_folder_with_one_recent_file_is_kept(tmp_path):
    kept = folder(tmp_path, "quarry-ui-old", age=3 * DAY)
    (kept / "f1").mkdir()
    (kept / "f1" / "notes.zip").write_bytes(b"PK")
    os.utime(kept, (time.time() - 3 * DAY,) * 2)
    assert downloads.prune_stale_roots(tmp_path) == [] and kept.exists()


def test_each_new_file_clears_this_process_s_files_older_than_a_day(tmp_path, monkeypatch):
    monkeypatch.setattr(downloads, "_root", tmp_path / "quarry-ui-1-x")
    old = folder(tmp_path / "quarry-ui-1-x", "old", age=2 * DAY)
    recent = folder(tmp_path / "quarry-ui-1-x", "recent", age=DAY / 2)
    path = Path(downloads.write_download("# report", "report.md"))
    assert path.read_text(encoding="utf-8") == "# report" and path.parent.parent == tmp_path / "quarry-ui-1-x"
    assert not old.exists() and recent.exists()


def test_a_root_cleared_away_under_the_process_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setattr(downloads, "_root", tmp_path / "quarry-ui-1-gone")
    path = downloads.new_download_path("notes.zip")
    assert path.parent.is_dir() and path.name == "notes.zip"


def download_in_a_process(tmp_path: Path, end: str) -> Path:
    """Run a process that writes one download and then ends with `end`; returns its download folder."""
    code = ("import os, signal, sys; from App_Function_Libraries.Gradio_UI.downloads import write_download; "
            f"print(write_download('x', 'a.md'), flush=True); {end}")
    run = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path),
                                                            "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=60)
    root = Path(run.stdout.strip()).parent.parent
    assert root.parent == tmp_path and root.name.startswith("quarry-ui-")
    return root


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_process_s_folder_goes_when_it_exits_or_at_the_next_start(tmp_path, how):
    if how == "exit":
        root = download_in_a_process(tmp_path, "sys.exit(0)")
    else:  # no exit handler runs: the next process clears it away
        root = download_in_a_process(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
        assert root.exists()
        download_in_a_process(tmp_path, "sys.exit(0)")
    assert not root.exists()
    assert list(tmp_path.iterdir()) == []


def test_web_search_history_and_notes_offer_pdf_word_ris_and_csl(make_settings):
    """The new formats reach the three download places; the sources list follows the report's citation style
    (Report options), else [research] citation_style."""
    from Tests.support.system_tools import require_pango
    require_pango()
    import docx
    import gradio as gr

    from App_Function_Libraries.DB.notes_store import Note
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Gradio_UI import history_tab, notes_tab, report_options, web_search_view as view
    from Tests.test_export_citations import EXPECTED, _flat, mixed_result
    settings = make_settings({"research": {"citation_style": "chicago"}})
    assert {"pdf", "docx", "ris", "csl"} <= {fmt for _, fmt in view.MORE_FORMATS}
    apa = mixed_result(params={"citation_style": "apa"})
    pdf = view.download_file(apa.to_dict(), "pdf")
    assert pdf.endswith(".pdf") and open(pdf, "rb").read(4) == b"%PDF"
    word = view.download_file(apa.to_dict(), "docx")
    assert EXPECTED["apa"][0] in _flat("\n".join(p.text for p in docx.Document(word).paragraphs))
    assert view.download_file(None, "pdf") is None and view.download_file(apa.to_dict(), None) is None

    plain = mixed_result(params={})  # no style saved with it: the configured default
    get_research_store(settings).save_research(plain)
    button = history_tab.download_report(plain.id, "md")
    assert isinstance(button, gr.DownloadButton)
    path = button.value if isinstance(button.value, str) else button.value["path"]
    assert EXPECTED["chicago"][0] in _flat(open(path, encoding="utf-8").read())
    ris = history_tab.download_report(plain.id, "ris")
    assert (ris.value if isinstance(ris.value, str) else ris.value["path"]).endswith(".ris")

    note = Note(id="n1", title="Bee note", content="Bees dance [1].", report=apa.to_dict())
    assert "pdf" in {fmt for _, fmt in notes_tab.EXPORT_FORMATS}
    made = notes_tab.download_for(note, "csl")
    assert (made.value if isinstance(made.value, str) else made.value["path"]).endswith(".csl.json")
    assert report_options.values_from_params({"citation_style": "apa"})[-1] == "apa"
    assert report_options.values_from_params({})[-1] == "chicago"
