"""Test helper for Tests/test_db_crash.py: saves research runs and notes in a loop until it is killed.

    python Tests/support/db_crash_writer.py DB_PATH TAG

Prints the number of each finished pair of saves. Every save is shaped so that a reader can tell whether it
is complete: run i has 3 + i % 7 sources and as many citations, note i has 1 + i % 4 keywords and its
title and content carry the same marker.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from App_Function_Libraries.DB.notes_store import NotesStore  # noqa: E402
from App_Function_Libraries.DB.research_store import ResearchStore  # noqa: E402
from App_Function_Libraries.records import Citation, Passage, ResearchResult, Source  # noqa: E402


def research_run(tag: str, i: int) -> ResearchResult:
    count = 3 + i % 7
    sources = [Source(title=f"source {j}", url=f"https://s{j}.example/{tag}/{i}", n=j + 1,
                      passages=[Passage("passage text " * 150, 0.5)], notes="extracted " * 100)
               for j in range(count)]
    citations = [Citation(j + 1, f"sentence {j} [{j + 1}]", s.url, "quoted " * 40) for j, s in enumerate(sources)]
    return ResearchResult(question=f"question {tag} {i}", sources=sources, citations=citations,
                          report_markdown="report words " * 1500)


def main(path: str, tag: str) -> None:
    research, notes = ResearchStore(path, secrets=[]), NotesStore(path)
    i = 0
    while True:
        research.save_research(research_run(tag, i))
        notes.add_note(f"note {tag} {i}", f"marker{tag}x{i} " + "body text " * 2500,
                       [f"keyword{j}" for j in range(1 + i % 4)])
        print(i, flush=True)
        i += 1


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
