"""Keep sources: a report's read pages become documents in the library, once."""
from __future__ import annotations

import pytest

from App_Function_Libraries.DB.research_store import get_research_store
from App_Function_Libraries.Documents.library import DocumentLibrary
from App_Function_Libraries.Research.keep_sources import keep_sources
from App_Function_Libraries.Research.pipeline import process_question
from App_Function_Libraries.records import Paper, Source
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

pytestmark = pytest.mark.slow


def test_keeping_a_reports_sources_twice_adds_them_once(world, make_settings, tmp_path):
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=True))
    result = process_question("How do honey bees communicate the location of food?")
    read = [s for s in result.sources if s.fetched]
    assert read
    abstract = " ".join(["Foragers recruit nestmates with a dance whose angle encodes the bearing."] * 3)
    result.sources.append(Source(title="Dance language", url="https://doi.org/10.1/dance", kind="paper",
                                 paper=Paper(authors=["Karl von Frisch"], year=1967, doi="10.1/dance",
                                             abstract=abstract, abstract_only=True)))
    store = get_research_store(settings)
    first = keep_sources(result, settings, page_cache=store)
    assert len(first.added) == len(read) + 1 and not first.already
    library = DocumentLibrary(settings)
    docs = library.list()
    assert len(docs) == len(read) + 1
    again = keep_sources(result, settings, page_cache=store)
    assert not again.added and len(again.already) == len(read) + 1
    assert len(DocumentLibrary(settings).list()) == len(docs)
    hits = library.search("angle encodes the bearing", k=3)
    assert hits and "Foragers recruit nestmates" in hits[0].text
    folder = settings.resolve_path(settings.documents.kept_sources_dir)
    assert str(hits[0].path).startswith(str(folder)) and str(folder).startswith(str(tmp_path))
    assert "Source: https://doi.org/10.1/dance" in open(hits[0].path, encoding="utf-8").read()
