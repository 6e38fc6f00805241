"""The first screen and settings that hold: the mode shown, engines that would not answer marked in the picker,
LLM-only controls disabled in extractive mode, URLs checked by one rule on load and on save, the Settings form
showing the settings in force, the question box filled when a report comes back, kept sources by title."""
from __future__ import annotations

import pytest

from App_Function_Libraries import config as config_mod
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

pytest.importorskip("gradio")

from App_Function_Libraries.Gradio_UI import first_screen  # noqa: E402
from App_Function_Libraries.Gradio_UI import settings_form as form  # noqa: E402
from App_Function_Libraries.Gradio_UI import settings_tab  # noqa: E402

BAD_URL = "htp:/127.0.0.1:8899"


# ---------------------------------------------------------------- one rule for URLs, on load and on save

@pytest.mark.parametrize("section,key", [("engines", "searxng_api_url"), ("engines", "brave_api_url"),
                                         ("llm", "base_url"), ("llm_relevance", "base_url")])
def test_a_bad_url_stops_loading_with_one_line_naming_the_key(tmp_path, section, key):
    path = tmp_path / "config.txt"
    path.write_text(f"[{section}]\n{key} = {BAD_URL}\n", encoding="utf-8")
    with pytest.raises(config_mod.ConfigError) as err:
        config_mod.load_settings(path, env={})
    message = str(err.value)
    assert f"[{section}] {key} = '{BAD_URL}'" in message and "http:// or https://" in message
    assert "\n" not in message


@pytest.mark.parametrize("url", ["http://127.0.0.1:8888", "https://api.example.org/v1/search", "http://[::1]:80/x",
                                 ""])
def test_good_urls_and_an_empty_one_load(tmp_path, url):
    path = tmp_path / "config.txt"
    path.write_text(f"[engines]\nsearxng_api_url = {url}\n[llm]\nbase_url = {url}\n", encoding="utf-8")
    assert config_mod.load_settings(path, env={}).engines.searxng_api_url == url


@pytest.mark.parametrize("url", ["ftp://example.org", "http://", "127.0.0.1:8888", "http://host:99999",
                                 "http://a b.org"])
def test_other_bad_urls_are_refused(tmp_path, url):
    path = tmp_path / "config.txt"
    path.write_text(f"[engines]\nsearxng_api_url = {url}\n", encoding="utf-8")
    with pytest.raises(config_mod.ConfigError, match="searxng_api_url"):
        config_mod.load_settings(path, env={})


def test_a_bad_url_from_the_environment_is_refused_too(tmp_path):
    path = tmp_path / "config.txt"
    path.write_text("[search]\n", encoding="utf-8")
    with pytest.raises(config_mod.ConfigError, match=r"\[engines\] searxng_api_url"):
        config_mod.load_settings(path, env={"QUARRY_SEARXNG_API_URL": BAD_URL})


def test_save_refuses_a_bad_url_and_leaves_the_file_as_it_was(make_settings):
    settings = make_settings({})
    before = settings.path.read_text()
    spec = next(f for f in form.all_fields() if f.name == "[engines] searxng_api_url")
    with pytest.raises(config_mod.ConfigError) as err:
        form.save_changes(settings, [(spec, BAD_URL)])
    assert f"[engines] searxng_api_url = '{BAD_URL}'" in str(err.value)
    assert settings.path.read_text() == before


# ---------------------------------------------------------------- the Settings form

def test_duckduckgo_shows_no_url_or_key_and_labels_are_consistent():
    fields = form.all_fields()
    assert [f.key for f in form.engine_fields("duckduckgo")] == ["duckduckgo_backend"]
    assert {f.label for f in form.engine_fields("brave")} == {"API URL", "API key"}
    assert {f.label for f in form.llm_fields("llm") if f.key in ("base_url", "api_key")} == {"API URL", "API key"}
    names = {f.name for f in fields}
    for name in ("[fetch] allow_private_addresses", "[research] pages_max", "[research] follow_up_count",
                 "[research] report_format", "[research] length_words", "[engines] contact_email",
                 "[embeddings] model"):
        assert name in names


def test_the_new_settings_save_and_an_untouched_form_changes_nothing(make_settings):
    settings = make_settings({})
    raw = form.file_values(settings.path)
    fields = form.all_fields()
    values = ["" if f.secret else form.shown_value(f, settings, raw) for f in fields]
    assert form.changes(fields, values, settings, raw) == []
    index = {f.name: i for i, f in enumerate(fields)}
    values[index["[fetch] allow_private_addresses"]] = "false"
    values[index["[research] pages_max"]] = "4"
    values[index["[engines] contact_email"]] = "me@example.org"
    outcome = form.save_changes(settings, form.changes(fields, values, settings, raw))
    assert sorted(outcome.changed) == ["[engines] contact_email", "[fetch] allow_private_addresses",
                                       "[research] pages_max"]
    now = config_mod.get_settings()
    assert now.fetch.allow_private_addresses is False and now.research.pages_max == 4
    assert now.engines.contact_email == "me@example.org"


def test_a_reloaded_page_shows_the_settings_in_force_not_those_the_ui_started_with(make_settings):
    started = make_settings({})
    fields = form.all_fields()
    spec = next(f for f in fields if f.name == "[engines] searxng_api_url")
    form.save_changes(started, [(spec, "http://127.0.0.1:8899")])  # saved after the UI was built
    shown = settings_tab.shown_now(fields)
    assert len(shown) == 1 + len(fields)
    assert shown[1 + fields.index(spec)] == "http://127.0.0.1:8899"
    assert "http://127.0.0.1:8899" in shown[0]  # the active settings list too


# ---------------------------------------------------------------- the mode and the engine picker

def test_the_mode_line_says_extractive_or_which_llm(make_settings):
    text = first_screen.mode_markdown(make_settings({}))
    assert text.startswith("**Answers are quoted extractively**") and "Settings → Language models" in text
    llm = make_settings({"llm": {"provider": "openai", "base_url": "http://127.0.0.1:11434/v1",
                                 "model": "qwen3:4b"}})
    text = first_screen.mode_markdown(llm)
    assert text.startswith("**Answers are written by an LLM**") and "qwen3:4b" in text and "11434" in text


def test_the_picker_marks_an_engine_without_its_key_and_one_that_could_not_be_reached(make_settings):
    from App_Function_Libraries.Search.engine import search_with
    settings = make_settings({"engines": {"searxng_api_url": "http://127.0.0.1:9"},
                              "search": {"search_max_retries": 0, "search_cache_ttl_seconds": 0}})
    labels = dict((value, label) for label, value in first_screen.engine_choices(settings))
    assert labels["brave"] == "brave ✗ not set up: needs API key"
    assert labels["duckduckgo"] == "duckduckgo" and labels["searxng"] == "searxng" and labels["wikipedia"] == "wikipedia"
    assert search_with("searxng", "bees", settings).error_kind == "unreachable"
    labels = dict((value, label) for label, value in
                  first_screen.engine_choices(settings, first_screen.engine_health(settings)))
    assert labels["searxng"] == "searxng ✗ not reachable"
    assert labels["duckduckgo"] == "duckduckgo"  # never searched: nothing known against it


def test_llm_only_controls_are_disabled_with_a_note_in_extractive_mode(make_settings):
    off = first_screen.llm_only_state(make_settings({}))
    assert set(off) == set(first_screen.LLM_ONLY)
    assert all(v["interactive"] is False and first_screen.NEEDS_LLM_NOTE in v["info"] for v in off.values())
    on = first_screen.llm_only_state(make_settings({"llm": {"provider": "openai", "base_url": "http://x:1/v1",
                                                            "model": "m"}}))
    assert all(v["interactive"] is True and v["info"] == "" for v in on.values())


def test_the_first_screen_values_fill_the_mode_the_picker_and_the_controls(make_settings):
    from App_Function_Libraries.Gradio_UI import web_search_tab as tab
    make_settings({})
    values = tab.first_screen_values()
    assert len(values) == 2 + len(first_screen.LLM_ONLY)
    assert "extractively" in values[0]
    assert ("brave ✗ not set up: needs API key", "brave") in values[1]["choices"]


# ---------------------------------------------------------------- reports coming back, kept sources

def test_open_in_web_search_and_a_rerun_fill_the_question_box(make_settings):
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Gradio_UI import web_search_tab as tab
    from App_Function_Libraries.records import ResearchResult
    settings = make_settings({})
    result = ResearchResult(question="How do bees dance?", report_markdown="They waggle.")
    get_research_store(settings).save_research(result)
    values = tab.open_report(result.id)
    assert values[-1] == "How do bees dance?"
    assert tab.question_of(result.to_dict()) == "How do bees dance?"


def test_a_kept_source_is_listed_by_its_title_not_its_hash(tmp_path):
    from App_Function_Libraries.Gradio_UI.documents_tab import document_name

    class Doc:
        def __init__(self, path, title):
            self.path, self.name, self.title = str(path), path.name, title
    kept = tmp_path / "kept"
    assert document_name(Doc(kept / ("0f3a9c" * 5 + "ab.md"), "How bees dance"), kept) == "How bees dance"
    assert document_name(Doc(tmp_path / "starter-care.md", "Keeping a starter"), kept) == "starter-care.md"
    assert document_name(Doc(kept / "x.md", ""), kept) == "x.md"  # no title of its own: the file name


def test_the_warm_up_starts_nothing_without_embeddings(make_settings):
    from App_Function_Libraries.Gradio_UI.warm_up import start_warm_up
    assert start_warm_up(make_settings({"research": {"use_embeddings": "false"}})) is None


@pytest.mark.slow
def test_the_warm_up_loads_the_embedding_model_in_a_daemon_thread(make_settings):
    from App_Function_Libraries.Gradio_UI.warm_up import start_warm_up
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    settings = make_settings({})
    thread = start_warm_up(settings)
    assert thread.daemon
    thread.join(120)
    assert get_embedder(settings)._model is not None
