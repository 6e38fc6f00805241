"""Node groups: sizes, parent links, placement in the document, pages, and groups defined by transforms."""
from __future__ import annotations

import re

import pytest

from App_Function_Libraries.Documents.node_groups import (DEFAULT_GROUPS, NodeGroup, NodeGroupError, build_nodes,
                                                          ordered_groups)
from App_Function_Libraries.Retrieval.passages import split_paragraphs


def long_document(paragraphs: int = 12, sentences: int = 9) -> str:
    paras = []
    for p in range(paragraphs):
        sents = [f"Paragraph {p} sentence {s} talks about topic {p * 10 + s} in plain words here." for s in
                 range(sentences)]
        paras.append(" ".join(sents))
    return "\n\n".join(paras)


def test_default_groups_sizes_and_parent_links():
    text = long_document()
    drafts = build_nodes(text, list(DEFAULT_GROUPS))
    coarse = [d for d in drafts if d.group == "coarse"]
    fine = [d for d in drafts if d.group == "fine"]
    assert len(coarse) >= 2 and len(fine) > len(coarse)
    assert all(len(d.text.split()) <= 500 for d in coarse)
    assert all(len(d.text.split()) <= 128 for d in fine)
    assert all(d.parent is None for d in coarse)
    # every fine node's parent is a coarse node, and a coarse node's children rebuild it word for word
    for i, c in enumerate(drafts):
        if c.group != "coarse":
            continue
        children = [d for d in fine if d.parent == i]
        assert children, "each coarse node has fine children"
        assert " ".join(d.text for d in children).split() == c.text.split()
    # no overlap, nothing lost: the coarse nodes rebuild the document
    assert " ".join(d.text for d in coarse).split() == text.split()
    # indexes count within the group, word offsets locate each node in the document
    assert [d.index for d in fine] == list(range(len(fine)))
    words = text.split()
    for d in fine:
        assert words[d.word_start:d.word_start + len(d.text.split())] == d.text.split()


def test_sentence_aware_cuts():
    drafts = build_nodes(long_document(3, 20), list(DEFAULT_GROUPS))
    for d in drafts:
        if d.group == "fine":
            assert d.text.endswith("."), d.text[-40:]


def test_a_fine_node_keeps_headings_and_list_items_on_their_own_lines():
    """A coarse node marks a heading's end and a list item with line breaks; the fine nodes cut from it keep
    them, so no heading is glued to the sentence after it ("Results The study found …") and a list item is
    quoted as an item (control: the coarse text, re-split as a document, glues them)."""
    from App_Function_Libraries.Retrieval.passages import split_passages
    sections = []
    for k in range(6):
        prose = " ".join(f"Section {k} finding {s} was measured carefully in the field by the team." for s in range(4))
        sections.append(f"Results of section {k}\n\n{prose}\n\n- Item {k} holds one measured value.\n\n"
                        f"- Item {k} holds another measured value.\n\n{prose}")
    drafts = build_nodes("\n\n".join(sections), list(DEFAULT_GROUPS))
    fine = [d.text for d in drafts if d.group == "fine"]
    coarse = [d.text for d in drafts if d.group == "coarse"]
    assert any("Results of section" in t for t in fine) and any("- Item" in t for t in fine)
    for text in fine:
        for line in text.split("\n"):
            assert not re.search(r"Results of section \d \S", line), line  # nothing after it on its line
            assert "- Item" not in line or line.startswith("- Item") and line.endswith("value."), line
    glued = [p for c in coarse for p in split_passages(c, 89, 128)]
    assert any(re.search(r"Results of section \d Section", p) for p in glued)


def test_pages_follow_word_offsets():
    text = "one two three four\n\nfive six seven eight\n\nnine ten"
    group = NodeGroup("para", split_paragraphs)
    drafts = build_nodes(text, [group], page_starts=[0, 4, 8])
    assert [(d.text, d.page) for d in drafts] == [("one two three four", 1), ("five six seven eight", 2),
                                                  ("nine ten", 3)]


def test_groups_defined_by_transforms_with_parents():
    text = "Alpha beta. Gamma delta.\n\nEpsilon zeta. Eta theta."
    paras = NodeGroup("para", split_paragraphs)
    sentences = NodeGroup("sentence", lambda t: t.split(". "), parent="para")
    lengths = NodeGroup("sentence-len", lambda t: len(t), parent="sentence")  # non-text output is kept as text
    drafts = build_nodes(text, [lengths, sentences, paras])  # any order: parents are placed first
    by_group = {g: [d for d in drafts if d.group == g] for g in ("para", "sentence", "sentence-len")}
    assert [d.text for d in by_group["para"]] == ["Alpha beta. Gamma delta.", "Epsilon zeta. Eta theta."]
    assert [d.text for d in by_group["sentence"]] == ["Alpha beta", "Gamma delta.", "Epsilon zeta", "Eta theta."]
    assert [drafts[d.parent].text for d in by_group["sentence"]][2] == "Epsilon zeta. Eta theta."
    assert [d.text for d in by_group["sentence-len"]] == ["10", "12", "12", "10"]
    # a node whose text is not in the document sits where its parent does
    third_sentence = by_group["sentence"][2]
    assert by_group["sentence-len"][2].word_start == third_sentence.word_start == 4


def test_bad_group_definitions_are_refused():
    with pytest.raises(NodeGroupError, match="parent is unknown"):
        ordered_groups([NodeGroup("a", str.split, parent="missing")])
    with pytest.raises(NodeGroupError, match="circular"):
        ordered_groups([NodeGroup("a", str.split, parent="b"), NodeGroup("b", str.split, parent="a")])
    with pytest.raises(NodeGroupError, match="defined twice"):
        ordered_groups([NodeGroup("a", str.split), NodeGroup("a", str.split)])
    with pytest.raises(NodeGroupError, match="node group name"):
        NodeGroup("Bad Name!", str.split)
    with pytest.raises(NodeGroupError, match="node group name"):
        NodeGroup("root", str.split)


def test_failing_transform_is_a_node_group_error():
    def broken(text):
        raise RuntimeError("model offline")
    with pytest.raises(NodeGroupError, match="broken.*model offline|'broken'.*model offline"):
        build_nodes("some text", [NodeGroup("broken", broken)])
