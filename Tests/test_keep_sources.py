"""Keep sources: a report's read pages become documents in the library, once."""
from __future__ import annotations

import re

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


def test_research_keep_sources_twice_adds_once_from_the_command_line(world, make_settings, capsys):
    from App_Function_Libraries.CLI.main import main
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=True))
    args = ["--config", str(settings.path), "research", "How do honey bees communicate the location of food?",
            "--no-llm", "--md", "--keep-sources"]
    assert main(args) == 0
    first = capsys.readouterr().err
    added = int(re.search(r"Kept sources: (\d+) added to the document library", first).group(1))
    assert added and first.index("saved as") < first.index("Kept sources:")
    count = len(DocumentLibrary(settings).list())
    assert count == added
    assert main(args + ["--no-save"]) == 0  # kept from the result in hand
    second = capsys.readouterr().err
    assert f"Kept sources: 0 added to the document library, {added} kept before" in second
    assert "saved as" not in second
    assert len(DocumentLibrary(settings).list()) == count
    saved = re.search(r"saved as (\S+)", first).group(1)
    assert main(["--config", str(settings.path), "history", "keep", saved[:8]]) == 0
    assert capsys.readouterr().out.strip() == f"Kept sources: 0 added to the document library, {added} kept before"


def test_history_keep_with_an_unknown_id_is_one_error_line(make_settings, capsys):
    from App_Function_Libraries.CLI.main import main
    settings = make_settings()
    assert main(["--config", str(settings.path), "history", "keep", "feedface"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip().count("\n") == 0 and "no saved report with id 'feedface'" in out.err
