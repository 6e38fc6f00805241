"""Runs saved by an older Quarry (Tests/data/old_saved_runs.json: sources with `error` and `extraction`,
citations without verdicts, rounds as dicts, "extract" timings) and their exports.

    python -m Tests.support.old_runs DIR   # writes every export of every old run into DIR (one file each)

Run it on two trees and `diff -r` the folders: the exports of a stored old run must not change.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "old_saved_runs.json"
FORMATS = ("md", "html", "bib", "ris", "csl", "txt")  # JSON is the record itself: it gains each new field
STYLES = ("numbered", "apa", "chicago")


def old_runs() -> dict[str, dict]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def exports(folder: Path) -> dict[str, str]:
    """Every old run saved into a research store at `folder`, loaded back and exported; also exported from its
    dict as read from the file (the way an imported run is): file name -> text."""
    from App_Function_Libraries.DB.export import export_report
    from App_Function_Libraries.DB.research_store import ResearchStore
    store = ResearchStore(folder / "research.db", secrets=())
    out: dict[str, str] = {}
    for name, data in old_runs().items():
        store.save_research(data)
        loaded = store.load_report(data["id"])
        for fmt in FORMATS:
            for style in STYLES if fmt in ("md", "html", "txt") else (None,):
                suffix = f"-{style}" if style else ""
                out[f"{name}-stored{suffix}.{fmt}"] = export_report(loaded, fmt, secrets=(), citation_style=style)
                out[f"{name}-dict{suffix}.{fmt}"] = export_report(data, fmt, secrets=(), citation_style=style)
    return out


def main(target: str) -> None:
    dest = Path(target)
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in exports(Path(tmp)).items():
            (dest / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
