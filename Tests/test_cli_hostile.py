"""The CLI facing hostile text and hostile notes: terminal control sequences in result and page titles,
reports and imported notes never reach the terminal (window title, screen clear, clipboard write), and notes
commands keep working over a note whose stored time is out of range."""
from __future__ import annotations

import json
import sqlite3
import zipfile

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.CLI.terminal import clean, json_text
from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.notes_store import get_notes_store
from App_Function_Libraries.DB.research_store import get_research_store
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse
from Tests.support.testworld import Response
from Tests.test_db_research import sample_result

TITLE_BAR = "\x1b]0;owned\x07"  # OSC 0: sets the window title
CLEAR = "\x1b[2J"  # CSI 2 J: clears the screen
CLIPBOARD = "\x1b]52;c;ZWNobyBvd25lZA==\x07"  # OSC 52: writes the clipboard
C1_CSI = "\x9b31m"  # U+009B: CSI in one character
BIDI = "\u202e"  # right-to-left override
HOSTILE = f"Bees {TITLE_BAR}dance{CLEAR} here {CLIPBOARD}{C1_CSI}{BIDI}"
CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\x08", "\r")


def assert_clean(*texts: str) -> None:
    for text in texts:
        found = sorted({repr(c) for c in CONTROLS if c in text})
        assert not found, f"control characters reached the terminal: {found} in {text[:200]!r}"


@pytest.fixture
def cli(make_settings, capsys):
    settings = make_settings()

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["--config", str(settings.path), *args])
        out, err = capsys.readouterr()
        return code, out, err

    run.settings = settings
    yield run
    close_thread_connections()


def test_clean_keeps_text_newlines_and_tabs():
    assert clean(HOSTILE + "\nline\ttab\r\x00\x7f") == "Bees ]0;owneddance[2J here ]52;c;ZWNobyBvd25lZA==31m\nline\ttab"
    assert json.loads(json_text({"t": HOSTILE})) == {"t": HOSTILE}
    assert_clean(json_text({"t": HOSTILE}))


def test_notes_commands_print_no_control_characters(cli, tmp_path):
    store = get_notes_store(cli.settings)
    note = store.add_note(f"Evil {TITLE_BAR}title{CLEAR}", f"Honey bees dance.\n{HOSTILE}\n\tindented",
                          [f"key{C1_CSI}word", f"bidi{BIDI}"])
    short = note.id[:8]
    outputs = [cli("notes", "list"), cli("notes", "search", "dance"), cli("notes", "keywords"),
               cli("notes", "list", "--json"), cli("notes", "search", "dance", "--json")]
    outputs += [cli("notes", "show", short, "--format", fmt) for fmt in ("txt", "md", "json", "html", "bib")]
    for code, out, err in outputs:
        assert code == 0
        assert_clean(out, err)
    shown_txt = cli("notes", "show", short, "--format", "txt")[1]
    assert "Honey bees dance.\nBees ]0;owneddance[2J here" in shown_txt and "\n\tindented" in shown_txt
    assert json.loads(cli("notes", "show", short, "--format", "json")[1])["content"] == note.content  # exact
    assert json.loads(cli("notes", "list", "--json")[1])[0]["title"] == note.title
    cli("notes", "show", short, "--format", "md", "-o", str(tmp_path / "exact.md"))
    assert HOSTILE in (tmp_path / "exact.md").read_text(encoding="utf-8")  # a file keeps everything


def test_notes_import_lists_hostile_names_without_control_characters(cli, tmp_path):
    path = tmp_path / "in.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"bad{TITLE_BAR}{CLIPBOARD}.json", "{not json")
        archive.writestr("good.md", "# Good\n\nfine")
    code, out, err = cli("notes", "import", str(path))
    assert code == 1 and "1 added" in out and "skipped bad]0;owned]52;c;ZWNobyBvd25lZA==.json:" in err
    assert_clean(out, err)


def test_history_prints_no_control_characters(cli):
    result = sample_result()
    result.question = f"Why {TITLE_BAR}do bees dance?{CLEAR}"
    result.sources[0].title = f"Waggle {CLIPBOARD}dance{C1_CSI}"
    get_research_store(cli.settings).save_research(result)
    for args in (("history",), ("history", "--json"), ("history", "show", result.id[:8]),
                 ("history", "show", result.id[:8], "--format", "txt"),
                 ("history", "show", result.id[:8], "--format", "json")):
        code, out, err = cli(*args)
        assert code == 0, err
        assert_clean(out, err)
    assert "Why ]0;owneddo bees dance?[2J" in cli("history")[1]


def _evil_search(world, page_path: str):
    """A SearXNG instance whose results carry terminal control sequences in titles, snippets and dates."""
    def search(req):
        results = [{"url": world.url(page_path), "title": f"Waggle dance {TITLE_BAR}{CLEAR}",
                    "content": f"How honey bees dance {CLIPBOARD} to share food.{C1_CSI}",
                    "engine": "mini", "engines": ["mini"], "score": 1.0, "category": "general",
                    "parsed_url": ["http", "", "", "", "", ""], "positions": [1],
                    "publishedDate": f"2024-01-01{BIDI}"}]
        return Response.json({"query": req.arg("q"), "number_of_results": 1, "results": results, "answers": [],
                              "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []})
    return search


def _evil_page() -> str:
    sentence = ("Forager honey bees dance on the comb to show nest mates the direction and distance of food "
                f"{TITLE_BAR}{CLIPBOARD}. ")
    return (f"<html><head><title>Bees {TITLE_BAR}{CLEAR}</title></head><body><article><h1>Bee dances</h1>"
            + "".join(f"<p>{sentence * 3} Paragraph {i} on how honey bees communicate food.</p>" for i in range(4))
            + "</article></body></html>")


def test_search_and_research_print_no_control_characters(world, make_settings, capsys):
    world.route("GET", "/evil/search", _evil_search(world, "/evil/page"))
    world.route("GET", "/evil/page", lambda req: Response.html(_evil_page()))
    settings = make_settings({
        "search": {"search_provider_default": "searxng", "search_max_retries": 0, "search_cache_ttl_seconds": 0},
        "engines": {"searxng_api_url": world.url("/evil")},
        "research": {"use_embeddings": "false", "pages_max": 3, "passage_words_min": 10},
        "llm": {"provider": "none"}})
    config = ["--config", str(settings.path)]
    assert main(config + ["search", "honey bees dance", "--engine", "searxng"]) == 0
    out = capsys.readouterr()
    assert "Waggle dance ]0;owned[2J" in out.out and "How honey bees dance ]52;c;" in out.out
    assert_clean(out.out, out.err)
    assert main(config + ["search", "honey bees dance", "--engine", "searxng", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["results"][0]["title"] == f"Waggle dance {TITLE_BAR}{CLEAR}"
    assert_clean(out.out, out.err)
    for flags in (["--md"], []):
        code = main(config + ["research", "How do honey bees dance to show food?", "--no-llm", "--no-save",
                              "--engine", "searxng", *flags])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert "Waggle dance ]0;owned[2J" in out.out or "Bees ]0;owned[2J" in out.out
        assert_clean(out.out, out.err)


def test_notes_commands_work_over_a_time_out_of_range(cli, tmp_path):
    """created_at 1e300 broke `notes list`, `show` and `export` (an older Quarry imported it); now an import
    refuses it, and a value already stored shows as '?'."""
    (tmp_path / "far.json").write_text('[{"title": "Far", "content": "c", "created_at": 1e300},'
                                       ' {"title": "Near", "content": "c", "created_at": 1714128000}]')
    code, out, err = cli("notes", "import", str(tmp_path / "far.json"))
    assert code == 1 and "1 added" in out
    assert "skipped far.json: item 1: created_at 1e+300 is not a time between the years 1970 and 9999" in err
    store = get_notes_store(cli.settings)
    stuck = store.add_note("Stored long ago", "c")
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE notes SET created_at = 1e300, updated_at = 1e300 WHERE id = ?", [stuck.id])
    conn.commit()
    conn.close()
    code, out, err = cli("notes", "list")
    assert code == 0 and f"{stuck.id[:8]}  ?  v1  Stored long ago" in out, err
    for fmt in ("md", "txt", "json", "html", "bib"):
        assert cli("notes", "show", stuck.id[:8], "--format", fmt)[0] == 0
    code, out, err = cli("notes", "export", str(tmp_path / "all.zip"))
    assert code == 0 and out.startswith("exported 2 notes"), err


def test_check_output_is_cleaned_of_terminal_controls(monkeypatch, capsys, make_settings):
    """Server-supplied model names and error text in `check` reach the terminal without control sequences."""
    from App_Function_Libraries.CLI import check_command
    from App_Function_Libraries.status import Verdict
    make_settings()
    monkeypatch.setattr(check_command, "status_lines",
                        lambda s: [Verdict("llm", False, "model \x1b]0;pwned\x07 \x1b[2Jgone \x9b31m")])
    check_command.run_check(type("A", (), {"json": False, "no_settings": True})())
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "gone" in out
