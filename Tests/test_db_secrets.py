"""With API keys configured, a saved research run, its note, the page cache and every export hold none of them."""
from __future__ import annotations

import dataclasses
import time
import zipfile
from pathlib import Path

import pytest

from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.export import FORMATS, export_note, export_report
from App_Function_Libraries.DB.notes_io import export_notes, save_report_as_note
from App_Function_Libraries.DB.notes_store import get_notes_store
from App_Function_Libraries.DB.redact import configured_secrets, is_secret_name, scrub_message
from App_Function_Libraries.DB.research_store import get_research_store
from App_Function_Libraries.records import Page
from Tests.test_db_research import sample_result

KEYS = {
    "brave": "BSA-brave-key-0123456789abcdef",
    "google": "AIzaSy-google-key-9876543210",
    "llm": "sk-llm-default-key-abcdefghijkl",
    "final": "sk-final-answer-role-key-mnopqr",
    "tavily": "tvly-env-only-key-5555555555",
}


@pytest.fixture
def keyed_settings(make_settings, monkeypatch):
    monkeypatch.setenv("QUARRY_TAVILY_API_KEY", KEYS["tavily"])
    settings = make_settings(
        {"engines": {"brave_api_key": KEYS["brave"], "google_api_key": KEYS["google"]},
         "llm": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": KEYS["llm"]},
         "llm_final_answer": {"api_key": KEYS["final"]}},
        env={"QUARRY_TAVILY_API_KEY": KEYS["tavily"]})
    yield settings
    close_thread_connections()


def naive_full_run(settings):
    """A run whose params carry the whole settings object and whose texts echo keys, as careless code might."""
    result = sample_result()
    everything = {f.name: dataclasses.asdict(getattr(settings, f.name)) for f in dataclasses.fields(settings)
                  if dataclasses.is_dataclass(getattr(settings, f.name))}
    everything["roles"] = {r: dataclasses.asdict(s) for r, s in settings.roles.items()}
    result.params = {"settings": everything, "headers": {"X-Subscription-Token": KEYS["brave"]},
                     "endpoint": f"https://www.googleapis.com/customsearch/v1?key={KEYS['google']}&cx=abc",
                     "max_tokens": 512}
    result.errors = [f"google: GET https://www.googleapis.com/customsearch/v1?key={KEYS['google']} gave 403",
                     f"llm: Authorization: Bearer {KEYS['llm']} was refused",
                     f"tavily: body {{'api_key': '{KEYS['tavily']}'}} rejected"]
    result.llm_usage = {"calls": 3, "prompt_tokens": 900, "models": ["m"], "api_key": KEYS["final"]}
    result.sources[0].snippet += f" (page echoing {KEYS['brave']})"
    result.rounds = [{"round": 1, "request": {"api_key": KEYS["llm"], "query": "bees"}}]
    return result


def assert_no_keys(data: bytes | str, where: str) -> None:
    blob = data.encode("utf-8") if isinstance(data, str) else data
    for name, key in KEYS.items():
        assert key.encode() not in blob, f"the {name} key leaked into {where}"


def test_all_configured_keys_are_known(keyed_settings):
    assert set(KEYS.values()) <= configured_secrets()


def test_database_and_every_export_hold_no_key(keyed_settings, tmp_path):
    research, notes = get_research_store(keyed_settings), get_notes_store(keyed_settings)
    result = naive_full_run(keyed_settings)
    rid = research.save_research(result)
    research.put_page(Page(url="https://bees.example/dance", status=200, fetched_at=time.time(),
                                 text=f"a page that prints {KEYS['google']}", title=KEYS["tavily"]))
    note = save_report_as_note(notes, research.load_report(rid), keywords=["bees"])
    loaded = research.load_report(rid)
    assert loaded.params["max_tokens"] == 512 and loaded.llm_usage["prompt_tokens"] == 900  # counters kept
    assert "settings" in loaded.params and "api_key" not in loaded.params["settings"]["llm"]

    exports = {f"report.{fmt}": export_report(result, fmt) for fmt in FORMATS}
    exports.update({f"note.{fmt}": export_note(note, fmt) for fmt in FORMATS})
    for where, text in exports.items():
        assert_no_keys(text, where)
    export_notes(notes, tmp_path / "out")
    export_notes(notes, tmp_path / "out.zip")
    for member in zipfile.ZipFile(tmp_path / "out.zip").namelist():
        assert_no_keys(zipfile.ZipFile(tmp_path / "out.zip").read(member), f"out.zip:{member}")
    db_files = [p for p in Path(tmp_path).rglob("*") if p.is_file() and p.name != "config.txt"]
    assert any(p.name == "quarry.db" for p in db_files)
    for path in db_files:
        assert_no_keys(path.read_bytes(), str(path.relative_to(tmp_path)))


def test_secret_field_names():
    for name in ("api_key", "google_api_key", "apiKey", "X-Subscription-Token", "token", "client_secret",
                 "password", "Authorization", "access_token", "auth", "sig", "signature", "X-Auth"):
        assert is_secret_name(name), name
    for name in ("max_tokens", "prompt_tokens", "keywords", "question", "content_hash", "monkey", "author", "signal"):
        assert not is_secret_name(name), name


def test_messages_lose_unknown_keys_in_urls_and_bearer_tokens():
    text = scrub_message("GET https://x.example/s?q=bees&api_key=ABCDEF123456&n=2 failed; "
                         "Authorization: Bearer abcdefghijklmnop1234", [])
    assert "ABCDEF123456" not in text and "abcdefghijklmnop1234" not in text
    assert "q=bees" in text and "n=2" in text
