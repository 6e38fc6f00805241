"""Exports with bounds (issue 23, item 6): a Word table costs work in proportion to its cells (it was quadratic:
1,600 cells took 135 s), and a PDF or Word file is made in a worker process under a deadline and a memory cap,
so a document too large to print gets one clear line within the deadline and leaves nothing running."""
from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from App_Function_Libraries.DB import export_render
from App_Function_Libraries.DB.export import export_note, export_report
from App_Function_Libraries.DB.export_print import Printable
from App_Function_Libraries.DB.export_render import ExportTooLarge
from App_Function_Libraries.parse_sandbox import ParseLimits, _default_pool


def table_markdown(rows: int, cols: int) -> str:
    head = "|" + "|".join(f"h{c}" for c in range(cols)) + "|\n|" + "|".join("---" for _ in range(cols)) + "|\n"
    return head + "".join("|" + "|".join(f"r{r}c{c} [1]" for c in range(cols)) + "|\n" for r in range(rows - 1))


def running() -> tuple[set[threading.Thread], set[int]]:
    """The threads and child processes alive now."""
    return set(threading.enumerate()), {p.pid for p in multiprocessing.active_children()}


def nothing_left_running(before: tuple[set[threading.Thread], set[int]]) -> None:
    """No worker is busy, every child process started since `before` is an idle warm worker, no new thread is
    left."""
    threads_before, children_before = before
    pool = _default_pool()
    assert pool.busy == 0
    idle = {w.proc.pid for w in pool.idle}
    assert {p.pid for p in multiprocessing.active_children()} - children_before <= idle
    deadline = time.monotonic() + 10  # a retired worker's stop() thread ends once the kill is reaped
    while time.monotonic() < deadline and set(threading.enumerate()) - threads_before:
        time.sleep(0.1)
    assert not set(threading.enumerate()) - threads_before


@pytest.mark.parametrize("cells", [400, 1600])
def test_word_table_cells_are_laid_out_once(cells, monkeypatch):
    """python-docx's table.cell(r, c) lays out the whole table on each call: count the cell objects made."""
    import docx.table
    from App_Function_Libraries.DB.export_docx import docx_bytes
    made = [0]
    init = docx.table._Cell.__init__

    def counting(self, *args, **kwargs):
        made[0] += 1
        init(self, *args, **kwargs)
    monkeypatch.setattr(docx.table._Cell, "__init__", counting)
    data = docx_bytes(Printable("Table", [], table_markdown(cells // 20, 20), cite={1: "https://example.org/"}))
    assert data[:2] == b"PK"
    assert made[0] <= 2 * cells, made[0]  # quadratic: cells * cells / 2 and more


def test_a_2000_cell_table_exports_to_word_within_the_deadline():
    before = running()
    result = {"question": "Table", "report_markdown": table_markdown(100, 20),
              "sources": [{"n": 1, "title": "A", "url": "https://example.org/a"}], "created_at": 0}
    started = time.monotonic()
    data = export_report(result, "docx", secrets=())
    assert data[:2] == b"PK" and time.monotonic() - started < export_render.RENDER_LIMITS.seconds
    import io

    import docx
    document = docx.Document(io.BytesIO(data))
    assert len(document.tables[0].rows) == 100 and document.tables[0].rows[99].cells[19].text.startswith("r98c19")
    nothing_left_running(before)


def test_a_pdf_too_large_to_print_stops_at_the_deadline(monkeypatch):
    before = running()
    monkeypatch.setattr(export_render, "RENDER_LIMITS", ParseLimits(seconds=6, memory_mb=1024))
    note = {"title": "Citations", "content": "[1] " * 50_000, "report": {"sources": [
        {"n": 1, "title": "A", "url": "https://example.org/a"}]}}
    started = time.monotonic()
    with pytest.raises(ExportTooLarge) as caught:
        export_note(note, "pdf", secrets=())
    seconds = time.monotonic() - started
    assert str(caught.value) == ("the PDF was not made: the document is too large to print (gave up after 6 s); "
                                 "export it as Markdown or HTML")
    assert seconds < 6 + 60, seconds  # the deadline, plus starting a worker on a busy machine
    nothing_left_running(before)


def test_a_document_over_the_size_limit_is_refused_at_once():
    body = "Honey bees dance. " * (export_render.MAX_PRINT_CHARS // 18 + 1)
    for fmt, name in (("pdf", "PDF"), ("docx", "Word document")):
        started = time.monotonic()
        with pytest.raises(ExportTooLarge, match=f"the {name} was not made: the document is too large to print "
                                                 r"\([\d,]+ characters; at most 500,000\)"):
            export_report({"question": "Big", "report_markdown": body, "created_at": 0}, fmt, secrets=())
        assert time.monotonic() - started < 5


def test_a_pdf_over_the_memory_cap_gets_the_clear_line(monkeypatch):
    before = running()
    monkeypatch.setattr(export_render, "RENDER_LIMITS", ParseLimits(seconds=120, memory_mb=64))
    body = "\n\n".join(["Honey bees communicate the location of food with a dance [1]. " * 8] * 600)
    with pytest.raises(ExportTooLarge, match=r"the PDF was not made: (the document is too large to print \(it "
                                             r"needed more than 64 MB\)|its renderer died under the 64 MB memory "
                                             r"cap; the document may be too large to print)"):
        export_report({"question": "Big", "report_markdown": body, "created_at": 0,
                       "sources": [{"n": 1, "title": "A", "url": "https://example.org/a"}]}, "pdf", secrets=())
    nothing_left_running(before)


def test_a_small_report_still_prints():
    data = export_report({"question": "Small", "report_markdown": "Bees dance [1].", "created_at": 0,
                          "sources": [{"n": 1, "title": "A", "url": "https://example.org/a"}]}, "pdf", secrets=())
    assert data.startswith(b"%PDF")
