"""Node groups: a document split into nodes at several granularities, each node knowing its parent.

A group is a name, a transform (text → list of texts) and the group it splits (`root`: the whole
document). The built-in groups are `coarse` (~500-word passages of the document) and `fine` (~128-word
passages of each coarse node); both are sentence-aware and do not overlap. New groups are defined with a
transform function, e.g. paragraphs: `NodeGroup("para", split_paragraphs)`.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries.Retrieval.passages import split_passages
from App_Function_Libraries.errors import QuarryError

ROOT = "root"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")

Transform = Callable[[str], "list[str] | str"]


class NodeGroupError(QuarryError, ValueError):
    """A bad group definition (name, parent, cycle) or a transform that failed on a document."""


@dataclass(frozen=True)
class NodeGroup:
    name: str
    transform: Transform
    parent: str = ROOT
    recipe: str = ""  # the transform's parameters: a change makes documents be split again
    annotate: bool = False  # contextual annotation by the LLM (other groups inherit their parent's context)

    def __post_init__(self):
        if not _NAME_RE.match(self.name) or self.name == ROOT:
            raise NodeGroupError(f"node group name {self.name!r}: use 1-32 lower-case letters, digits, - or _ "
                                 f"(not {ROOT!r})")


def word_chunker(max_words: int, min_words: int | None = None, of_passages: bool = False) -> Transform:
    """Sentence-aware passages of about min_words..max_words words, without overlap. of_passages: the text is
    itself a passage (a parent group's node), whose line breaks all stand between whole units (a heading or a
    list item and what follows it: passages._join): they stay breaks, so a heading is never glued to the
    sentence after it. (A document's own single line breaks may be wrapped prose, so only passages do this.)"""
    low = min_words if min_words is not None else max(1, int(max_words * 0.7))

    def transform(text: str) -> list[str]:
        return split_passages(text.replace("\n", "\n\n") if of_passages else text, min_words=low,
                              max_words=max_words)
    return transform


COARSE = NodeGroup("coarse", word_chunker(500),
                   recipe="passages of 350-500 words, list items kept apart, closing quotes kept, "
                          "lead-ins kept with what they introduce", annotate=True)
FINE = NodeGroup("fine", word_chunker(128, of_passages=True), parent="coarse",
                 recipe="passages of 89-128 words, headings and list items kept apart, closing quotes kept, "
                        "lead-ins kept with what they introduce")
DEFAULT_GROUPS = (COARSE, FINE)


@dataclass
class NodeDraft:
    """A node before it is stored: `parent` is the index of its parent in the same draft list (None: root)."""
    group: str
    index: int  # position in its group within the document
    text: str
    parent: int | None
    word_start: int  # word offset of the node in the document (its parent's when it cannot be placed)
    page: int | None = None


def ordered_groups(groups: list[NodeGroup] | tuple[NodeGroup, ...]) -> list[NodeGroup]:
    """Groups with every parent before its children; unknown parents, duplicates and cycles are refused."""
    by_name: dict[str, NodeGroup] = {}
    for g in groups:
        if g.name in by_name:
            raise NodeGroupError(f"node group {g.name!r} is defined twice")
        by_name[g.name] = g
    ordered: list[NodeGroup] = []
    placed = {ROOT}
    pending = list(groups)
    while pending:
        ready = [g for g in pending if g.parent in placed]
        if not ready:
            missing = ", ".join(f"{g.name} (parent {g.parent})" for g in pending)
            raise NodeGroupError(f"node groups whose parent is unknown or circular: {missing}")
        for g in ready:
            ordered.append(g)
            placed.add(g.name)
            pending.remove(g)
    return ordered


def build_nodes(text: str, groups: list[NodeGroup], page_starts: list[int] | None = None) -> list[NodeDraft]:
    """Every node of every group for one document, parents before children."""
    doc_words = text.split()
    page_starts = page_starts or []
    drafts: list[NodeDraft] = []
    first_of_group: dict[str, list[int]] = {ROOT: [-1]}
    for group in ordered_groups(groups):
        parents = first_of_group[group.parent]
        mine: list[int] = []
        for parent_idx in parents:
            parent_text = text if parent_idx < 0 else drafts[parent_idx].text
            parent_start = 0 if parent_idx < 0 else drafts[parent_idx].word_start
            for piece, start in _split_and_place(group, parent_text, parent_start, doc_words):
                draft = NodeDraft(group.name, len(mine), piece, None if parent_idx < 0 else parent_idx,
                                  start, _page_of(start, page_starts))
                mine.append(len(drafts))
                drafts.append(draft)
        first_of_group[group.name] = mine
    return drafts


def _split_and_place(group: NodeGroup, parent_text: str, parent_start: int,
                     doc_words: list[str]) -> list[tuple[str, int]]:
    pieces = _run_transform(group, parent_text)
    placed, offset = [], parent_start
    for piece in pieces:
        words = piece.split()
        if doc_words[offset:offset + min(3, len(words))] == words[:3]:
            placed.append((piece, offset))
            offset += len(words)
        else:  # a transform that rewrites text (a summary, keywords): the node sits where its parent does
            placed.append((piece, parent_start))
    return placed


def _run_transform(group: NodeGroup, text: str) -> list[str]:
    try:
        out = group.transform(text)
    except Exception as exc:  # a user-defined transform: its failure is reported per document
        raise NodeGroupError(f"node group {group.name!r}: transform failed: {type(exc).__name__}: {exc}") from exc
    if out is None:
        return []
    if isinstance(out, str) or not isinstance(out, (list, tuple)):
        out = [out]
    return [s for s in (str(x).strip() for x in out) if s]


def _page_of(word_start: int, page_starts: list[int]) -> int | None:
    if not page_starts:
        return None
    return max(1, bisect.bisect_right(page_starts, word_start))
