"""Search snippets: marks that cannot be mistaken for a note's markdown, shown safely in each display."""
from __future__ import annotations

from App_Function_Libraries.DB.snippets import BOLD, END, NORMAL, START, as_markdown, for_terminal, plain, segments

SNIPPET = f"…  they **{START}dance{END}**\n\tand {START}dance{END} again\x1b[31m"


def test_segments_collapse_space_and_drop_control_characters():
    assert segments(SNIPPET) == [("… they **", False), ("dance", True), ("** and ", False), ("dance", True),
                                 (" again [31m", False)]


def test_each_display_highlights_without_doubling_the_notes_markup():
    assert plain(SNIPPET) == ("… they **dance** and dance again [31m", [(9, 14), (21, 26)])
    assert as_markdown(SNIPPET) == r"… they \*\***dance**\*\* and **dance** again \[31m"
    assert for_terminal(SNIPPET, bold=False) == "… they **dance** and dance again [31m"
    assert for_terminal(SNIPPET, bold=True).count(BOLD) == 2 and "\x1b[31m" not in for_terminal(SNIPPET, True)
    assert f"**{BOLD}dance{NORMAL}**" in for_terminal(SNIPPET, bold=True)


def test_a_cut_snippet_keeps_its_marks_whole():
    assert plain(SNIPPET, limit=12) == ("… they **da…", [(9, 11)])
    assert as_markdown(SNIPPET, limit=12) == r"… they \*\***da**…"
    assert plain("short", limit=12) == ("short", [])
