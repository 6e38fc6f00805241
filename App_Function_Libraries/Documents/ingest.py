"""Adding files and folders to the index: read, split into node groups, annotate, embed, store.

A file is skipped (with its reason recorded) when it cannot be read; the batch goes on. A file whose
content hash and index recipe (node groups, annotation model, path context, embedding model, what changed in
its type's reader: readers.READER_CHANGES, what BM25 searches: store.SEARCHED) are those already stored is left
alone; a changed one replaces its earlier version. Each file is read in a parse worker
under [documents] parse_timeout_seconds and parse_memory_mb, so a hostile file is skipped like any unreadable one.
"""
from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from App_Function_Libraries.Documents.annotate import ChunkAnnotator, PathPatterns
from App_Function_Libraries.Documents.doc_types import (DocumentInfo, IngestReport, ReadText, SkippedFile,
                                                        UnreadableFile)
from App_Function_Libraries.Documents.node_groups import NodeDraft, NodeGroup, NodeGroupError, build_nodes
from App_Function_Libraries.config import DocumentSettings
from App_Function_Libraries.Documents.readers import (READER_CHANGES, file_type_of, read_bytes,
                                                      read_document_limited)
from App_Function_Libraries.Documents.store import SEARCHED, DocumentStore, NewDocument, index_text

Progress = Callable[[int, int, str], None]  # (files done, files in all, current path)


def discover(paths: list[str | Path]) -> tuple[list[Path], list[SkippedFile], int]:
    """Files to ingest from files and folders (folders recursively, hidden entries and unsupported types
    left out). Returns (files, missing paths as skipped, number of unsupported files ignored)."""
    files: list[Path] = []
    missing: list[SkippedFile] = []
    ignored = 0
    for raw in paths:
        path = Path(os.path.expanduser(str(raw))).resolve()
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            found, skipped_types = _walk(path)
            files += found
            ignored += skipped_types
        else:
            missing.append(SkippedFile(str(path), "no such file or folder"))
    return list(dict.fromkeys(files)), missing, ignored


def _walk(folder: Path) -> tuple[list[Path], int]:
    found, ignored = [], 0
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            if file_type_of(Path(name)) is None:
                ignored += 1
            else:
                found.append(Path(root) / name)
    return found, ignored


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Ingestor:
    """One ingest run. `embed(texts) -> vectors`, `embedding_label` names the model."""

    def __init__(self, store: DocumentStore, groups: list[NodeGroup], embed: Callable, embedding_label: str,
                 annotator: ChunkAnnotator | None, patterns: PathPatterns, limits: DocumentSettings | None = None):
        self.limits = limits or DocumentSettings()  # parse_timeout_seconds, parse_memory_mb
        self.store = store
        self.groups = groups
        self.embed = embed
        self.embedding_label = embedding_label
        self.annotator = annotator
        self.patterns = patterns

    def run(self, paths: list[str | Path], progress: Progress | None = None) -> IngestReport:
        files, missing, ignored = discover(paths)
        report = IngestReport(skipped=list(missing), ignored=ignored)
        try:
            for i, path in enumerate(files):
                if progress:
                    progress(i, len(files), str(path))
                self._one(path, report)
        finally:
            self.store.flush()
        if progress:
            progress(len(files), len(files), "")
        return report

    def recipe(self, path_context: str, file_type: str | None = None) -> str:
        data = {"groups": [(g.name, g.parent, g.recipe, g.annotate) for g in self.groups],
                "annotation": self.annotator.model_label if self.annotator else "",
                "path_context": path_context, "embeddings": self.embedding_label, "searched": SEARCHED}
        if READER_CHANGES.get(file_type or ""):  # only then: other types' recipes stay as they were
            data["reader"] = READER_CHANGES[file_type]
        return hashlib.sha1(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()

    def _one(self, path: Path, report: IngestReport) -> None:
        existing = self.store.find_by_path(str(path))
        try:
            data = read_bytes(path)
        except UnreadableFile as exc:
            self._skip(path, str(exc), "", existing, report)
            return
        digest = content_hash(data)
        path_context = self.patterns.context_for(path)
        recipe = self.recipe(path_context, file_type_of(path))
        if existing and existing.content_hash == digest and self.store.recipe_of(existing.id) == recipe:
            report.unchanged.append(str(path))
            return
        try:
            read = read_document_limited(path, data, self.limits)
            drafts = build_nodes(read.text, self.groups, read.page_starts)
        except (UnreadableFile, NodeGroupError) as exc:
            self._skip(path, str(exc), digest, existing, report)
            return
        if not drafts:
            self._skip(path, "no text left after splitting", digest, existing, report)
            return
        warnings: list[str] = []
        contexts = self._contexts(read, digest, drafts, path_context, warnings, report)
        vectors = self.embed([index_text(c, d.text) for c, d in zip(contexts, drafts)])
        info = self.store.write_document(
            self._new_document(path, data, digest, recipe, read, warnings), drafts, contexts, vectors,
            replace_id=existing.id if existing else None)
        self.store.clear_skip(str(path))
        (report.replaced if existing else report.added).append(info)
        report.warnings += [f"{path}: {w}" for w in warnings]

    def _skip(self, path: Path, reason: str, digest: str, existing: DocumentInfo | None,
              report: IngestReport) -> None:
        self.store.record_skip(str(path), reason, digest)
        if existing is not None:  # its indexed text is no longer what the file holds
            self.store.delete_document(existing.id)
            reason += " (its earlier version was removed from the index)"
        report.skipped.append(SkippedFile(str(path), reason))

    def _new_document(self, path: Path, data: bytes, digest: str, recipe: str, read: ReadText,
                      warnings: list[str]) -> NewDocument:
        mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).isoformat(timespec="seconds")
        return NewDocument(path=str(path), name=path.name, file_type=read.file_type, size=len(data),
                           content_hash=digest, recipe=recipe, title=document_title(read, path), modified=mtime,
                           pages=len(read.page_starts), words=len(read.text.split()), warnings=warnings)

    def _contexts(self, read: ReadText, digest: str, drafts: list[NodeDraft], path_context: str,
                  warnings: list[str], report: IngestReport) -> list[str]:
        """Context for each node: the path context, then the LLM context of the node or its nearest
        annotated ancestor."""
        llm: list[str | None] = [None] * len(drafts)
        if self.annotator is not None:
            for group in (g for g in self.groups if g.annotate):
                rows = [i for i, d in enumerate(drafts) if d.group == group.name]
                outcome = self.annotator.annotate(read.text, digest, [drafts[i].text for i in rows],
                                                  [drafts[i].word_start for i in rows])
                report.annotation_calls += outcome.calls
                for i, ctx in zip(rows, outcome.contexts):
                    llm[i] = ctx
                if outcome.rejected:
                    warnings.append(f"{outcome.rejected} chunk context(s) outside 30-750 characters were dropped")
                warnings += sorted(set(outcome.errors or []))
        for i, draft in enumerate(drafts):
            if llm[i] is None and draft.parent is not None:
                llm[i] = llm[draft.parent]
        return [" ".join(p for p in (path_context, llm[i]) if p) for i in range(len(drafts))]


def document_title(read: ReadText, path: Path) -> str:
    """The file's own title (PDF metadata, HTML <title>, the first Markdown or reST heading), else its name."""
    return read.title.strip()[:300] or path.stem
