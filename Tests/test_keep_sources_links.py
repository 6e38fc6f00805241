"""Keep sources writes nothing through a link planted in its folder (issue 23, item 8): a kept source's file name is
a hash of its text, which a hostile page chooses, so another local user can plant `<hash>.md -> ~/.bashrc` in
the folder ahead of it. The file is made with no-follow and exclusive create: the link is left alone, its target
untouched, and the source reported as not kept."""
from __future__ import annotations

import hashlib
import os
import threading

import pytest

from App_Function_Libraries.Research.keep_sources import keep_sources
from App_Function_Libraries.records import Paper, ResearchResult, Source

ABSTRACT = " ".join(["Foragers recruit nestmates with a dance whose angle encodes the bearing."] * 3)


def result() -> ResearchResult:
    paper = Paper(authors=["Karl von Frisch"], year=1967, abstract=ABSTRACT, abstract_only=True)
    return ResearchResult(question="How do bees dance?", sources=[
        Source(title="Dance language", url="https://doi.org/10.1/dance", kind="paper", paper=paper)])


def planted(folder, target) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / f"{hashlib.sha256(ABSTRACT.encode('utf-8')).hexdigest()[:32]}.md"
    os.symlink(target, link)
    return link


@pytest.mark.parametrize("target_exists", [False, True])
def test_a_planted_link_is_not_written_through(make_settings, tmp_path, target_exists):
    settings = make_settings()
    target = tmp_path / "outside" / "victim.txt"
    target.parent.mkdir()
    if target_exists:
        target.write_text("precious\n", encoding="utf-8")
    link = planted(settings.resolve_path(settings.documents.kept_sources_dir), target)
    threads = set(threading.enumerate())
    kept = keep_sources(result(), settings, library=None)  # nothing to add: no library is opened
    assert not kept.added and not kept.already
    assert kept.skipped == [f"Dance language: {link.name} in the kept sources folder is not a file Quarry wrote "
                            "(a link?); not written"]
    assert os.path.islink(link) and os.readlink(link) == str(target)
    assert (target.read_text(encoding="utf-8") == "precious\n") if target_exists else not target.exists()
    assert set(threading.enumerate()) <= threads


def test_a_file_kept_before_is_still_recognised(make_settings):
    settings = make_settings()
    folder = settings.resolve_path(settings.documents.kept_sources_dir)
    folder.mkdir(parents=True)
    name = f"{hashlib.sha256(ABSTRACT.encode('utf-8')).hexdigest()[:32]}.md"
    (folder / name).write_text("kept before\n", encoding="utf-8")
    kept = keep_sources(result(), settings, library=None)
    assert kept.already == ["Dance language"] and not kept.skipped
    assert (folder / name).read_text(encoding="utf-8") == "kept before\n"
