"""Settings tab callbacks: keys are write-only, saving is all-or-nothing and reloads the settings in use."""
import gradio as gr
import pytest

from App_Function_Libraries import config as config_mod
from App_Function_Libraries.Gradio_UI import settings_form as form
from App_Function_Libraries.Gradio_UI import settings_tab
from App_Function_Libraries.Gradio_UI.ui_common import user_errors

SECRET = "sk-live-0123456789abcdef"


def form_values(settings, **overrides):
    """The values the form would send back untouched (keys empty), with some fields changed."""
    raw = form.file_values(settings.path)
    fields = form.all_fields()
    values = ["" if f.secret else form.shown_value(f, settings, raw) for f in fields]
    for name, value in overrides.items():
        values[[f.name for f in fields].index(name)] = value
    return fields, values


def test_untouched_form_changes_nothing(make_settings):
    settings = make_settings({"engines": {"brave_api_key": SECRET}})
    fields, values = form_values(settings)
    assert form.changes(fields, values, settings, form.file_values(settings.path)) == []


def test_key_placeholder_says_set_never_the_key(make_settings):
    settings = make_settings({"engines": {"brave_api_key": SECRET}})
    raw = form.file_values(settings.path)
    brave = next(f for f in form.all_fields() if f.key == "brave_api_key")
    kagi = next(f for f in form.all_fields() if f.key == "kagi_api_key")
    assert form.key_placeholder(brave, settings, raw) == "(set)"
    assert form.key_placeholder(kagi, settings, raw) == "(not set)"
    updates = settings_tab.form_updates(settings, form.all_fields())
    assert SECRET not in repr(updates)
    assert SECRET not in settings_tab.settings_markdown(settings)


def test_key_from_environment_is_named_as_such(make_settings):
    settings = make_settings({}, env={"QUARRY_TAVILY_API_KEY": SECRET})
    tavily = next(f for f in form.all_fields() if f.key == "tavily_api_key")
    assert form.key_placeholder(tavily, settings, form.file_values(settings.path)) == "(set in the environment)"


def test_save_writes_changes_and_reloads(make_settings, tmp_path):
    settings = make_settings({"engines": {"brave_api_key": SECRET}})
    fields, values = form_values(settings, **{"[engines] kagi_api_key": "kagi-new-key",
                                              "[llm] provider": "openai", "[llm] model": "m1",
                                              "[llm_relevance] model": "small-judge"})
    updates = form.changes(fields, values, settings, form.file_values(settings.path))
    outcome = form.save_changes(settings, updates)
    assert sorted(outcome.changed) == ["[engines] kagi_api_key", "[llm] model", "[llm] provider",
                                       "[llm_relevance] model"]
    now = config_mod.get_settings()
    assert now is outcome.settings and now.path == settings.path
    assert now.engines.kagi_api_key == "kagi-new-key" and now.engines.brave_api_key == SECRET
    assert now.llm_for("relevance").model == "small-judge" and now.llm_for("subquery").model == "m1"


def test_bad_value_leaves_the_file_untouched(make_settings):
    settings = make_settings({})
    before = settings.path.read_text()
    fields, values = form_values(settings, **{"[llm] model": "ok-model", "[llm] base_url": "line1\nline2"})
    updates = form.changes(fields, values, settings, form.file_values(settings.path))
    with pytest.raises(config_mod.ConfigError) as err:
        form.save_changes(settings, updates)
    assert ".draft" not in str(err.value)
    assert settings.path.read_text() == before
    assert not list(settings.path.parent.glob("*.draft"))


def test_clear_key_removes_it(make_settings):
    settings = make_settings({"engines": {"serper_api_key": SECRET}})
    fields, values = form_values(settings)
    updates = form.changes(fields, values, settings, form.file_values(settings.path), ["[engines] serper_api_key"])
    form.save_changes(settings, updates)
    assert config_mod.get_settings().engines.serper_api_key == ""
    assert SECRET not in settings.path.read_text()


def test_role_inherit_round_trips(make_settings):
    settings = make_settings({"llm_extraction": {"provider": "none"}})
    fields, values = form_values(settings, **{"[llm_extraction] provider": form.INHERIT})
    updates = form.changes(fields, values, settings, form.file_values(settings.path))
    assert [(s.name, v) for s, v in updates] == [("[llm_extraction] provider", "")]
    form.save_changes(settings, updates)
    raw = form.file_values(settings.path)
    spec = next(f for f in fields if f.name == "[llm_extraction] provider")
    assert form.shown_value(spec, config_mod.get_settings(), raw) == form.INHERIT


def test_llm_test_button_reaches_the_server(make_settings, world):
    from Tests.support.openai_server import ScriptedLLM
    ScriptedLLM(default="ok").install(world)
    make_settings({"llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model"}})
    text = settings_tab.test_llm("llm_final_answer")
    assert text.startswith("✓ OK") and "final_answer" in text


def test_user_errors_turns_exceptions_into_a_warning():
    @user_errors
    def boom():
        raise config_mod.ConfigError("config error: x: [llm] temperature = '9': must be between 0.0 and 2.0")

    with pytest.warns(UserWarning, match="must be between"):
        result = boom()
    assert result == gr.skip()
