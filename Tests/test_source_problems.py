"""What is said about a source, one field each: a failure (the page could not be used), a warning (read, with a
caveat), a duplicate, a skip; and the warnings shown in the sources table and on the command line."""
from __future__ import annotations

import pytest

from App_Function_Libraries.CLI.research_command import format_markdown
from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.Gradio_UI import web_search_view as view
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.page_stream import apply_loaded, load_page
from App_Function_Libraries.Research.rank import RankSettings, rank_pages
from App_Function_Libraries.Research.report import number_sources
from App_Function_Libraries.records import ResearchResult, Source
from Tests.support.mini_web import MiniWeb


@pytest.fixture
def web(world):
    return MiniWeb(world, timeout_delay=5).install()


def read(web, path: str, **fetch) -> Source:
    fetcher = PageFetcher(FetchSettings(**{"allow_private_addresses": True, "connect_timeout_seconds": 2,
                                           "read_timeout_seconds": 1, "total_timeout_seconds": 5, **fetch}))
    source = Source(path, web.url(path), verdict="relevant")
    page = load_page(source.url, fetcher)
    apply_loaded(source, page)
    if page.text:
        source.passages = rank_pages("honey bee dance", [page.text], RankSettings(2, 10, 80))[0]
        source.notes = source.passages[0].text
    return source


def test_a_page_read_again_from_the_cache_keeps_its_warning(web, tmp_path):
    """A page cut at the byte cap says so when the page cache gives it again (control: the first read, fetched)."""
    from App_Function_Libraries.DB.research_store import ResearchStore
    store = ResearchStore(tmp_path / "cache.db", secrets=[])
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, max_bytes=300_000))
    first = load_page(web.url("faults/huge"), fetcher, cache=store, cache_ttl=3600)
    again = load_page(web.url("faults/huge"), fetcher, cache=store, cache_ttl=3600)
    assert not first.from_cache and first.warning.startswith("cut at 300,000 bytes")
    assert again.from_cache and again.text == first.text and again.warning == first.warning


def test_each_kind_of_problem_has_its_field_and_error_is_the_one_line(web):
    cut = read(web, "faults/huge", max_bytes=300_000)
    broken = read(web, "faults/server-error")
    good = read(web, "bees/waggle-dance")
    twin = Source("copy", "http://copy.test/", fetched=True, status=200, content_hash=good.content_hash,
                  notes=good.notes)
    late = Source("late", "http://late.test/", skipped="not read: only the first 3 selected results are read "
                                                        "(pages_max)")
    assert cut.fetched and cut.warning.startswith("cut at 300,000 bytes") and cut.failure == ""
    assert not broken.fetched and "500" in broken.failure and broken.warning == ""
    assert good.fetched and (good.failure, good.warning, good.duplicate, good.skipped) == ("", "", "", "")
    number_sources([good, cut, broken, twin, late])
    assert twin.n is None and twin.duplicate == f"same page as source [{good.n}] ({good.final_url})"
    assert [s.error for s in (cut, broken, twin, late)] == [cut.warning, broken.failure, twin.duplicate,
                                                            late.skipped]
    with pytest.raises(AttributeError):
        good.error = "one field for everything"  # the one line is derived, never set

    result = ResearchResult(question="q", sources=[good, cut, broken, twin, late])
    cells = {s.title: row[7] for s, row in zip(result.sources, view.source_rows(result))}
    assert cells["bees/waggle-dance"] == "yes (200)"
    assert cells["faults/huge"].startswith("yes (200): cut at 300,000 bytes")  # the warning is shown
    assert cells["faults/server-error"].startswith("no: ") and "500" in cells["faults/server-error"]
    assert cells["copy"] == f"yes (200): same page as source [{good.n}] ({good.final_url})"
    assert cells["late"] == "no: not read: only the first 3 selected results are read (pages_max)"

    text = format_markdown(result)
    assert f"[{cut.n}] faults/huge - {cut.final_url} (cut at 300,000 bytes" in text  # a cited page's warning
    assert f"[{good.n}] bees/waggle-dance - {good.final_url}\n" in text
    assert f"- faults/server-error - {broken.url}: {broken.failure}" in text
    assert f"- copy - http://copy.test/: {twin.duplicate}" in text
