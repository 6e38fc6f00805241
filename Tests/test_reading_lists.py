"""List items that come out of page extraction as bare paragraphs are marked as items again
(Retrieval/reading.py list_items / mark_list_items), so that a list stays a list and its short items can be
quoted together under their lead-in."""
from pathlib import Path

import pytest
from lxml import html as lxml_html

from App_Function_Libraries.Retrieval.reading import extract_html, list_items, mark_list_items

PAGE = """<html><body><article><p>Paper cranes are folded from one square sheet.</p>
<ul><li>Origami paper</li><li>Bone folder</li><li>Fold it twice. Then press the edge flat.</li>
<li>Outer item<ul><li>Inner item</li></ul></li></ul></article></body></html>"""


def test_paragraphs_that_are_list_items_of_the_page_are_marked():
    items = list_items(lxml_html.fromstring(PAGE))
    assert {"Origami paper", "Bone folder", "Inner item"} <= items
    assert "Fold it twice. Then press the edge flat." not in items  # two sentences: prose, stays a paragraph
    assert not [i for i in items if i.startswith("Outer item")]  # holds a list of its own
    paragraphs = ["Paper cranes are folded from one square sheet.", "Origami paper", "- Bone folder",
                  "Fold it twice. Then press the edge flat."]
    assert mark_list_items(paragraphs, items) == ["Paper cranes are folded from one square sheet.",
                                                  "- Origami paper", "- Bone folder",
                                                  "Fold it twice. Then press the edge flat."]


EHOW = Path(__file__).resolve().parents[2] / "shared" / "data" / "web_pages" / "mozilla_readability" / "ehow-1"


@pytest.mark.skipif(not (EHOW / "source.html").is_file(), reason="the shared real pages are absent")
def test_a_real_how_to_page_keeps_its_list_of_what_you_need():
    """A saved eHow page: trafilatura gives its "What You'll Need" list as bare paragraphs."""
    _title, text, _method = extract_html((EHOW / "source.html").read_text(encoding="utf-8", errors="replace"))
    paragraphs = text.split("\n\n")
    start = paragraphs.index("What You'll Need:")
    assert paragraphs[start + 1] == "- Cloche" and paragraphs[start + 4] == "- Ruler"
