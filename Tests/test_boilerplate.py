"""Boilerplate rules around trafilatura (Research/boilerplate.py): furniture paragraphs dropped, content
of the same words kept; page chrome pruned only where it is small; the shown standfirst put back."""
from __future__ import annotations

import pytest
from trafilatura.utils import load_html

from App_Function_Libraries.Retrieval.boilerplate import (boilerplate_reason, drop_boilerplate_paragraphs,
                                                            prune_page_chrome, standfirst, with_standfirst)
from App_Function_Libraries.Research.extract import extract_content

SENTENCE = ("The hive's foragers return with pollen and nectar, and the dance they perform on the comb tells "
            "their sisters how far away and in which direction the flowers are.")


@pytest.mark.parametrize("line, reason", [
    ("(Credit: Clayton Aldern / Grist)", "credit"),
    ("Foto: Ingo Pertramer", "credit"),
    ("Letzte Änderung 14.02.2019", "modified"),
    ("page.html - Created 03-10-2004 2:20pm - Last Modified: 03-10-2004 2:20pm", "modified"),
    ("Get The Daily Edition by email and never miss our top stories Free Sign Up", "signup"),
    ("January 13, 2020 at 08:45 AM | categories: Python, Mercurial | View Comments", "meta-pipes"),
    ("Advertisement", "label"),
    ("Share this:", "label"),
    ("12 Comments", "label"),
])
def test_furniture_lines_are_flagged(line, reason):
    assert boilerplate_reason(line, from_end=10) == reason


@pytest.mark.parametrize("line", [
    SENTENCE,
    "Follow us to stay up to date on industry trends.",  # a call, but no sign-up wording
    "| Kaufpreis Auto | 30'000 | 30'000 |",  # a table row
    "Lösung: m = 210 g",
    "Why WordCamps?",
    "The photo was taken in 1998 by a local newspaper.",
    "He subscribed to the theory that the dance encodes distance.",
])
def test_content_lines_are_kept(line):
    assert boilerplate_reason(line, from_end=0) == ""


def test_footer_rules_apply_only_at_the_end():
    line = "© 2019 Science X Network"
    assert boilerplate_reason(line, from_end=0) == "copyright"
    assert boilerplate_reason(line, from_end=8) == ""
    assert drop_boilerplate_paragraphs([SENTENCE, "Sofern nicht anders ausgewiesen, stehen Inhalte dieser "
                                        "Website unter CC-BY"]) == [SENTENCE]


def test_all_flagged_keeps_everything():
    assert drop_boilerplate_paragraphs(["Advertisement"]) == ["Advertisement"]


def test_chrome_pruned_unless_it_holds_the_page():
    small = load_html(f"<html><body><article><h1>Bees</h1><p>{SENTENCE}</p></article>"
                      "<p class='newsletter-promo'>Get the daily edition</p></body></html>")
    assert prune_page_chrome(small) == 1 and "daily edition" not in small.text_content()
    whole = load_html(f"<html><body><div class='post-newsletter'><p>{SENTENCE}</p></div></body></html>")
    assert prune_page_chrome(whole) == 0 and "foragers" in whole.text_content()


def test_standfirst_shown_in_the_body_is_put_back():
    desc = "Bees tell each other where the flowers are by dancing on the comb, researchers say."
    tree = load_html(f"<html><head><meta property='og:description' content='{desc}'></head><body>"
                     f"<div class='intro'>{desc}</div><nav><p>Home</p></nav><article><p>{SENTENCE}</p>"
                     "</article></body></html>")
    lead = standfirst(tree)
    assert lead[0] == desc
    assert with_standfirst([SENTENCE], lead) == [desc, SENTENCE]
    assert with_standfirst([desc, SENTENCE], lead) == [desc, SENTENCE]  # already there
    hidden = load_html(f"<html><head><meta name='description' content='{desc}'></head><body>"
                       f"<footer><p>{desc}</p></footer><p>{SENTENCE}</p></body></html>")
    assert standfirst(hidden) == ("", "")


def test_extract_content_drops_credit_and_newsletter_lines():
    paras = "".join(f"<p>{SENTENCE} Paragraph {i}.</p>" for i in range(4))
    html = (f"<html><body><article><h1>Bees</h1>{paras}<p><em>(Credit: A. Photographer / Agency)</em></p>"
            "<p>Get our newsletter by email and never miss our top stories. Sign up</p>"
            f"<p>{SENTENCE} The end.</p></article></body></html>")
    text = extract_content(html.encode(), "text/html", "utf-8").text
    assert "Paragraph 3" in text and "The end." in text
    assert "Credit:" not in text and "newsletter" not in text
