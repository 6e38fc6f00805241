"""Keep a report's sources: its read pages and papers become documents in the library, so they can be
searched and asked offline later.

Each source's text (the page as the page cache keeps it, else the passages the run ranked; a paper's abstract
when only that was read) is written as one Markdown file into `[documents] kept_sources_dir`, named by a hash
of that text, then added to the library. A source whose text was kept before is not added again.

    keep_sources(result, settings, library=None) -> KeepReport
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from App_Function_Libraries.records import ResearchResult, Source

MIN_WORDS = 20  # shorter texts (an error page, an empty abstract) are not worth a document
TEN_YEARS = 10 * 365 * 86400.0  # the page cache is asked for a page of any age


@dataclass
class KeepReport:
    added: list[str] = field(default_factory=list)  # titles of the sources added to the library
    already: list[str] = field(default_factory=list)  # kept before (same text)
    skipped: list[str] = field(default_factory=list)  # "title: why"

    def summary(self) -> str:
        parts = [f"{len(self.added)} added to the document library"]
        parts += [f"{len(self.already)} kept before"] if self.already else []
        parts += [f"{len(self.skipped)} not kept"] if self.skipped else []
        return "Kept sources: " + ", ".join(parts)


def keep_sources(result: ResearchResult, settings, library=None, page_cache=None) -> KeepReport:
    """Write each read web page and paper of the result as a file and add the new ones to the library."""
    folder = Path(settings.resolve_path(settings.documents.kept_sources_dir))
    folder.mkdir(parents=True, exist_ok=True)
    report, fresh = KeepReport(), []
    for source in result.sources:
        if source.kind not in ("web", "paper"):
            continue  # Wikipedia articles and documents are local already
        text = _text_of(source, page_cache)
        if len(text.split()) < MIN_WORDS:
            if source.fetched or source.paper:
                report.skipped.append(f"{source.title or source.url}: no text to keep")
            continue
        path = folder / f"{hashlib.sha256(text.encode('utf-8')).hexdigest()[:32]}.md"
        try:
            _write_new(path, _as_markdown(source, text))
        except FileExistsError:
            if path.is_symlink() or not path.is_file():
                report.skipped.append(f"{source.title or source.url}: {path.name} in the kept sources folder is "
                                      "not a file Quarry wrote (a link?); not written")
            else:
                report.already.append(source.title or source.url)
            continue
        fresh.append((path, source))
    if fresh:
        library = library or _default_library(settings)
        added = library.add([p for p, _ in fresh])
        failed = {str(s.path) for s in added.skipped}
        for path, source in fresh:
            if str(path) in failed:
                path.unlink(missing_ok=True)
                report.skipped.append(f"{source.title or source.url}: the library could not read it")
            else:
                report.added.append(source.title or source.url)
    return report


def _write_new(path: Path, text: str) -> None:
    """Create `path` and write `text` into it; FileExistsError when anything is there already. Nothing planted
    in the folder is followed: a link at the name (even one pointing nowhere) is not written through."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _text_of(source: Source, page_cache) -> str:
    """The page's whole text when the page cache has it, else its ranked passages; for a paper read from its
    abstract, the abstract."""
    if page_cache is not None and source.fetched:
        try:
            record = page_cache.get_page(source.final_url or source.url, TEN_YEARS)
        except Exception:  # noqa: BLE001 - a broken cache falls back to the passages
            record = None
        if record is not None and record.text:
            return record.text
    if source.paper is not None and source.paper.abstract_only:
        return source.paper.abstract
    return "\n\n".join(p.text for p in source.passages)


def _as_markdown(source: Source, text: str) -> str:
    lines = [f"# {_one_line(source.title) or source.url}", "", f"Source: {source.url}"]
    if source.paper is not None and source.paper.facts(most_authors=6):
        lines.append("Paper: " + "; ".join(source.paper.facts(most_authors=6)))
    return "\n".join(lines) + "\n\n" + text.strip() + "\n"


def _one_line(text: str) -> str:
    return " ".join((text or "").split())


def _default_library(settings):
    from App_Function_Libraries.Documents.library import document_library
    return document_library(settings)
