"""Untrusted bytes are parsed where a deadline can stop them: the parse worker (App_Function_Libraries/
parse_sandbox.py) is killed at its deadline or memory cap, and nothing of the given-up parse keeps running;
web pages, `python app.py extract` and document ingest go through it; a research run whose results include
servers that drip bytes and pages that bomb the parser still ends within its limits."""
from __future__ import annotations

import json
import os
import sys
import threading
import time

import pytest

from App_Function_Libraries.config import DocumentSettings, FetchSettings
from App_Function_Libraries.Documents.doc_types import UnreadableFile
from App_Function_Libraries.Documents.readers import read_document_limited
from App_Function_Libraries.parse_sandbox import ParseLimits, ParseTimeout, ParseTooLarge, run_limited
from App_Function_Libraries.Research.extract import ExtractionFailed, read_page_text
from Tests.support import parse_jobs
from Tests.support.deadline import finishes_within
from Tests.support.hostile_files import attribute_bomb_html, nested_tags_html, page_tree_bomb_pdf
from Tests.support.mini_web import WAGGLE, MiniWeb, article_html, research_config

DEADLINE = 2.0
SLACK = 3.0  # past the deadline: killing the worker, on a loaded 2-core machine
START = 60.0  # a worker to start (spawn, imports) before the deadline counts

HOSTILE_PAGES = {"attributes": (attribute_bomb_html(100_000), "text/html"),
                 "page-tree": (page_tree_bomb_pdf(), "application/pdf")}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _timed(fn, started: list[float]):
    """fn() run to its end; returns (what it returned or raised, seconds since the worker took the call)."""
    box = {}

    def call():
        try:
            box["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - returned to the test
            box["value"] = exc
    finishes_within(START + DEADLINE + SLACK, call)
    return box["value"], time.monotonic() - started[0]


# ---------------------------------------------------------------- the parse worker

def test_a_parse_past_its_deadline_is_killed_and_nothing_of_it_keeps_running(tmp_path):
    pid_file = tmp_path / "pid"
    threads = threading.active_count()
    started: list[float] = []
    outcome, seconds = _timed(lambda: run_limited(parse_jobs.spin, str(pid_file), limits=ParseLimits(DEADLINE),
                                                  on_start=lambda: started.append(time.monotonic())), started)
    assert isinstance(outcome, ParseTimeout) and str(outcome) == "gave up after 2 s"
    assert DEADLINE <= seconds < DEADLINE + SLACK
    pid = int(pid_file.read_text())
    assert pid != os.getpid() and not _alive(pid)  # killed and reaped: no process burns on
    assert threading.active_count() <= threads  # and no thread was left behind for it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory cap is RLIMIT_AS (Linux)")
def test_a_parse_over_its_memory_cap_is_stopped_and_one_under_it_runs():
    with pytest.raises(ParseTooLarge, match="needed more than 100 MB"):
        run_limited(parse_jobs.hold_memory, 400, limits=ParseLimits(60, memory_mb=100))
    assert run_limited(parse_jobs.hold_memory, 40, limits=ParseLimits(60, memory_mb=100)) == 40


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory cap is RLIMIT_AS (Linux)")
def test_a_parse_that_fails_otherwise_at_its_memory_cap_is_too_large():
    """A C library whose malloc fails under the cap may raise something else (fontconfig under the PDF
    renderer: SystemError); a call that reached its cap is still "needed more than N MB"."""
    with pytest.raises(ParseTooLarge, match="needed more than 100 MB"):
        run_limited(parse_jobs.exhaust_then_fail, limits=ParseLimits(60, memory_mb=100))
    with pytest.raises(SystemError, match="not about memory"):  # control: the same error far from the cap
        run_limited(parse_jobs.fail_system, "not about memory", limits=ParseLimits(60, memory_mb=100))


def test_what_the_parse_raises_is_raised_again_and_the_worker_is_reused():
    first = run_limited(parse_jobs.pid, limits=ParseLimits(60))
    with pytest.raises(ValueError, match="not a page"):
        run_limited(parse_jobs.fail, "not a page", limits=ParseLimits(60))
    assert run_limited(parse_jobs.pid, limits=ParseLimits(60)) == first and first != os.getpid()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="resident size read from /proc")
def test_a_worker_left_much_larger_by_a_call_is_replaced():
    """Freed heap stays resident: a warm worker that grew by hundreds of MB would hold them while idle."""
    pid = run_limited(parse_jobs.keep_memory, 300, limits=ParseLimits(60))
    assert not _alive(pid)
    assert run_limited(parse_jobs.pid, limits=ParseLimits(60)) != pid


# ---------------------------------------------------------------- web pages and documents

@pytest.mark.parametrize("name", sorted(HOSTILE_PAGES))
def test_a_page_that_bombs_the_parser_is_given_up_at_its_deadline(name):
    body, content_type = HOSTILE_PAGES[name]
    started: list[float] = []
    settings = FetchSettings(extract_timeout_seconds=DEADLINE)
    outcome, seconds = _timed(lambda: read_page_text(body, content_type, "", None, settings,
                                                     on_start=lambda: started.append(time.monotonic())), started)
    assert isinstance(outcome, ExtractionFailed)
    assert str(outcome) == "gave up after 2 s reading the page's text ([fetch] extract_timeout_seconds)"
    assert seconds < DEADLINE + SLACK


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory cap is RLIMIT_AS (Linux)")
def test_a_page_whose_parse_needs_too_much_memory_is_given_up():
    settings = FetchSettings(extract_timeout_seconds=60, extract_memory_mb=64)
    with pytest.raises(ExtractionFailed) as exc:
        read_page_text(nested_tags_html(300_000), "text/html", "", None, settings)
    assert str(exc.value) == "gave up: reading the page's text needed more than 64 MB ([fetch] extract_memory_mb)"


def test_an_ordinary_page_reads_as_before():
    page = read_page_text(article_html(WAGGLE).encode(), "text/html", "", None, FetchSettings())
    assert page.title.startswith("How the waggle") and "figure-eight" in page.text and page.method == "trafilatura"


def test_a_document_that_bombs_the_parser_is_unreadable_after_its_deadline(tmp_path):
    path = tmp_path / "tag-soup.html"
    path.write_bytes(attribute_bomb_html(100_000))
    started = time.monotonic()
    with pytest.raises(UnreadableFile) as exc:
        finishes_within(START + DEADLINE + SLACK, lambda: read_document_limited(
            path, path.read_bytes(), DocumentSettings(parse_timeout_seconds=DEADLINE)))
    assert str(exc.value) == "gave up after 2 s reading the file ([documents] parse_timeout_seconds)"
    assert time.monotonic() - started >= DEADLINE


@pytest.mark.slow
def test_ingest_skips_a_hostile_file_at_its_deadline_and_adds_the_rest(tmp_path, make_settings):
    from App_Function_Libraries.Documents.library import DocumentLibrary
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "tag-soup.html").write_bytes(attribute_bomb_html(100_000))
    (folder / "bees.md").write_text("# Bees\n\nForager bees dance on the comb to show where flowers are.\n",
                                    encoding="utf-8")
    lib = DocumentLibrary(make_settings({"documents": {"parse_timeout_seconds": DEADLINE}}))
    try:
        report = finishes_within(START + 2 * (DEADLINE + SLACK), lambda: lib.add([folder]))
    finally:
        lib.close()
    assert [(os.path.basename(s.path), s.reason) for s in report.skipped] == [
        ("tag-soup.html", "gave up after 2 s reading the file ([documents] parse_timeout_seconds)")]
    assert [os.path.basename(d.path) for d in report.added] == ["bees.md"]


def test_extract_command_gives_up_a_hostile_file_and_reads_the_next(tmp_path, make_settings, capsys):
    from App_Function_Libraries.CLI.main import main
    bomb, good = tmp_path / "tag-soup.html", tmp_path / "waggle.html"
    bomb.write_bytes(attribute_bomb_html(100_000))
    good.write_text(article_html(WAGGLE), encoding="utf-8")
    settings = make_settings({"fetch": {"extract_timeout_seconds": DEADLINE}})
    code = finishes_within(START + DEADLINE + SLACK, lambda: main(
        ["--config", str(settings.path), "extract", str(bomb), str(good), "--json"]))
    out = capsys.readouterr()
    records = [json.loads(line) for line in out.out.splitlines()]
    assert code == 1 and [bool(r.get("error")) for r in records] == [True, False]
    assert out.err.strip() == (f"{bomb}: gave up after 2 s reading the page's text "
                               "([fetch] extract_timeout_seconds)")
    assert "figure-eight" in records[1]["text"]


# ---------------------------------------------------------------- a research run

def test_a_research_run_with_dripping_and_parser_bombing_pages_ends(world, make_settings, capsys):
    """Before, a page dripping its body (or its headers, or behind a redirect) kept the run going for hours."""
    from App_Function_Libraries.CLI.main import main
    web = MiniWeb(world, include_faults=False, stalling=True, drip_delay=0.3, bomb_attributes=100_000).install()
    settings = make_settings(research_config(web, fetch={"total_timeout_seconds": DEADLINE,
                                                          "read_timeout_seconds": 1,
                                                          "extract_timeout_seconds": DEADLINE}))
    started = time.monotonic()
    code = finishes_within(START + 2 * DEADLINE + 15, lambda: main(
        ["--config", str(settings.path), "research", "How do honey bees dance to show food?", "--engine",
         "searxng", "--no-llm", "--json", "--no-save"]))
    seconds = time.monotonic() - started
    assert code == 0
    sources = {s["url"]: s for s in json.loads(capsys.readouterr().out)["sources"]}
    errors = {path: sources[web.url(path)]["error"] for path in
              ("stalling/drip-body", "stalling/drip-headers", "stalling/to-drip", "stalling/attributes",
               "stalling/page-tree.pdf") if web.url(path) in sources}
    assert set(errors) == {"stalling/drip-body", "stalling/drip-headers", "stalling/to-drip",
                           "stalling/attributes", "stalling/page-tree.pdf"}
    timeout = f"took longer than the total time-out of {DEADLINE:g} s"
    parse = f"gave up after {DEADLINE:g} s reading the page's text ([fetch] extract_timeout_seconds)"
    assert errors == {"stalling/drip-body": timeout, "stalling/drip-headers": timeout, "stalling/to-drip": timeout,
                      "stalling/attributes": parse, "stalling/page-tree.pdf": parse}
    assert sources[web.url("bees/waggle-dance")]["fetched"]
    assert seconds < 2 * DEADLINE + 15
