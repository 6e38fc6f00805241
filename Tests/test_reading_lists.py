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


STEPS = """<html><head><title>How to brew tea</title></head><body><article><h1>How to brew tea</h1>
<p>Brewing tea is simple if you follow a few steps carefully and patiently.</p>
<ol><li>Boil fresh water in a kettle until it reaches a rolling boil.</li>
<li>Warm the teapot by rinsing it with a little <b>hot</b> water.</li></ol>
<p>Then, after a short pause for the pot to warm through, go on with the tea itself.</p>
<ol start="3"><li>Add one teaspoon of loose tea per cup to the pot.</li>
<li value="7">Pour the water over the leaves and steep for four minutes.</li></ol>
<p>You will need these things for it, all of them easy to find:</p>
<ul><li>A kettle that holds a litre of water</li><li>A teapot with a lid that fits well</li></ul>
</article></body></html>"""


@pytest.mark.parametrize("reader", ["trafilatura", "fallback"])
def test_a_numbered_list_keeps_its_numbers(reader, monkeypatch):
    """An <ol>'s items come out of text extraction as "- …", like any list's: they keep the numbers the page
    shows (its `start`, an item's `value`), so a how-to's steps are read as steps; a <ul>'s items stay "- "."""
    from App_Function_Libraries.Retrieval import reading
    if reader == "fallback":
        monkeypatch.setattr(reading, "_trafilatura_text", lambda html, url: "")
    paragraphs = extract_html(STEPS)[1].split("\n\n")
    assert "1. Boil fresh water in a kettle until it reaches a rolling boil." in paragraphs
    assert "2. Warm the teapot by rinsing it with a little hot water." in paragraphs
    assert "3. Add one teaspoon of loose tea per cup to the pot." in paragraphs
    assert "7. Pour the water over the leaves and steep for four minutes." in paragraphs
    assert "- A kettle that holds a litre of water" in paragraphs


@pytest.mark.parametrize("reader", ["trafilatura", "fallback"])
@pytest.mark.parametrize("attribute", ["²", "-1", "1e9", "99999", "x"])
def test_a_numbered_list_s_odd_attributes_are_not_numbers(reader, attribute, monkeypatch):
    """A page's `start` and `value` are untrusted: one that is no number a list shows ("²" passes str.isdigit
    but not int()) is ignored, and the page is read, its items counted from 1."""
    from App_Function_Libraries.Retrieval import reading
    if reader == "fallback":
        monkeypatch.setattr(reading, "_trafilatura_text", lambda html, url: "")
    html = STEPS.replace('<ol start="3">', f'<ol start="{attribute}">').replace('value="7"', f'value="{attribute}"')
    paragraphs = extract_html(html)[1].split("\n\n")
    assert "1. Add one teaspoon of loose tea per cup to the pot." in paragraphs
    assert "2. Pour the water over the leaves and steep for four minutes." in paragraphs


LAYOUT = ("""<html><head><title>Widgetcraft news</title></head><body><table width="100%"><tbody><tr><td>"""
          """<table width="100%"><tbody><tr><td><h1>Widgetcraft News</h1></td><td align="right">Powered by Blogs"""
          """</td></tr></tbody></table><div class="container"><div id="posts"><div class="post text">"""
          """<h3><a href="/post/1">Widgetcraft 1.8 - The Garden Update</a></h3><p>+ Added the ocelot mob to """
          """jungle biomes, with its own sounds<br />+ Added granite, diorite and andesite blocks<br />+ """
          """Villagers now harvest crops and plant new ones in their fields<br />- Removed the old villager """
          """trading screen that nobody liked<br /></p><table><tr><th>Mob</th><th>Biome</th></tr><tr><td>"""
          """Ocelot</td><td>Jungle</td></tr><tr><td>Rabbit</td><td>Desert</td></tr></table></div></div></div>"""
          """</td><td class="sidebar"><h2>Links:</h2><a href="/a">Archive</a><br /><a href="/b">Forums</a>"""
          """</td></tr></tbody></table></body></html>""")


def test_a_page_laid_out_in_a_table_keeps_its_lines():
    """A post laid out in a table's cell (a real changelog page) came out as one table row, its lines run
    together ("… Update + Added Granite … + Added Slime Block + …"), so no change could be quoted. A layout
    table becomes plain blocks and each line stays a line; a data table inside it (header cells) stays a
    table (control)."""
    lines = extract_html(LAYOUT)[1].splitlines()
    assert "+ Added the ocelot mob to jungle biomes, with its own sounds" in lines
    assert "- Removed the old villager trading screen that nobody liked" in lines
    assert "| Ocelot | Jungle |" in lines  # the data table keeps its rows


TUMBLR = EHOW.parent / "tumblr"


@pytest.mark.skipif(not (TUMBLR / "source.html").is_file(), reason="the shared real pages are absent")
def test_a_real_changelog_laid_out_in_a_table_keeps_its_lines():
    _title, text, _method = extract_html((TUMBLR / "source.html").read_text(encoding="utf-8", errors="replace"))
    lines = text.splitlines()
    assert "+ Added Slime Block" in lines and "- Removed Herobrine" in lines
