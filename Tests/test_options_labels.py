"""Each option has one UI label and one set of choice labels, from the option table (options.py), on both
forms that show it (Web Search's options and Report options, and Settings); a true/false setting is a
checkbox; the Report options line under an extractive brief says what applied."""
import gradio as gr
import pytest

from App_Function_Libraries import config as config_mod
from App_Function_Libraries import options
from App_Function_Libraries.Gradio_UI import report_options, settings_form, settings_tab, web_search_tab
from App_Function_Libraries.Gradio_UI.web_search_view import options_line


def web_search_fields(settings) -> dict:
    with gr.Blocks():
        return {**web_search_tab.build_options(settings), **report_options.build(settings)}


def settings_fields(settings) -> dict:
    """The Settings tab's general fields by the option whose default each one sets (None: no option)."""
    raw = settings_form.file_values(settings.path)
    out = {}
    with gr.Blocks():
        for spec in settings_form.general_fields():
            option = options.by_setting(f"{spec.section}.{spec.key}")
            out[option.name if option else spec.name] = settings_tab.build_field(spec, settings, raw)
    return out


def off_table(fields: dict, names) -> list[str]:
    """The options among `names` whose field is not labelled as the table labels it, or whose dropdown does not
    show the table's choice labels (with the codes as values)."""
    wrong = []
    for name in names:
        field = fields[name]
        if not options.OPTIONS[name].label or field.label != options.label(name):
            wrong.append(f"{name}: label {field.label!r}")
        elif options.OPTIONS[name].choices and field.choices != options.labelled(name):
            wrong.append(f"{name}: choices {field.choices!r}")
    return wrong


def test_an_option_on_both_forms_has_the_table_s_label_and_choice_labels(make_settings):
    settings = make_settings({})
    web, tab = web_search_fields(settings), settings_fields(settings)
    shared = [name for name in options.OPTIONS if name in web and name in tab]
    assert {"tone", "report_format", "length_words", "report_language", "citation_style",
            "pages_max"} <= set(shared)
    assert off_table(web, shared) == [] and off_table(tab, shared) == []
    assert ("Chicago author-date", "chicago") in tab["citation_style"].choices  # the label shown, the code kept
    assert ("bullet brief", "bullets") in tab["report_format"].choices


def test_every_option_on_the_web_search_form_takes_its_label_from_the_table(make_settings):
    """Each option among the Web Search form's search options (the Report options are checked above) is named as
    the table names it, and its dropdown shows the table's choice labels while keeping the code as the value."""
    web = web_search_fields(make_settings({}))
    shown = [name for name in web_search_tab.OPTION_NAMES
             if name in options.OPTIONS and name not in web_search_tab.REPORT_OPTION_NAMES]
    assert {"count", "result_max", "country", "search_lang", "result_lang", "safesearch", "sort", "date_range",
            "site_blacklist", "include_sites", "exact_terms", "exclude_terms", "dedupe_filter"} <= set(shown)
    assert off_table(web, shown) == []
    assert web["safesearch"].choices == [("Off", "off"), ("Moderate", "moderate"), ("Strict", "strict")]
    assert web["sort"].choices == [("Relevance", "relevance"), ("Newest first", "date")]
    assert web["sort"].value == "relevance"  # the value stays the code


def test_control_a_field_named_or_offered_by_hand_is_caught():
    """Control: off_table reports a form's own label, and raw codes offered instead of the table's labels."""
    with gr.Blocks():
        fields = {"report_format": gr.Dropdown(list(options.choices("report_format")), label="Format"),
                  "safesearch": gr.Dropdown(list(options.choices("safesearch")), label=options.label("safesearch")),
                  "tone": gr.Dropdown(options.labelled("tone"), label=options.label("tone"))}
    assert off_table(fields, ["report_format", "safesearch", "tone"]) == [
        "report_format: label 'Format'", f"safesearch: choices {fields['safesearch'].choices!r}"]


def test_true_false_settings_are_checkboxes_that_save_as_the_file_writes_them(make_settings):
    settings = make_settings({})
    tab = settings_fields(settings)
    private = tab["[fetch] allow_private_addresses"]
    was = settings.fetch.allow_private_addresses
    assert isinstance(private, gr.Checkbox) and private.value is was
    assert not any(isinstance(c, gr.Dropdown) and {v for _, v in c.choices} == {"true", "false"}
                   for c in tab.values())
    raw = settings_form.file_values(settings.path)
    fields = settings_form.all_fields()
    values = ["" if f.secret else settings_form.field_value(f, settings, raw) for f in fields]
    assert settings_form.changes(fields, values, settings, raw) == []  # an untouched checkbox changes nothing
    values[[f.name for f in fields].index("[fetch] allow_private_addresses")] = not was
    outcome = settings_form.save_changes(settings, settings_form.changes(fields, values, settings, raw))
    assert outcome.changed == ["[fetch] allow_private_addresses"]
    assert config_mod.get_settings().fetch.allow_private_addresses is (not was)
    assert f"allow_private_addresses = {str(not was).lower()}" in settings.path.read_text()


def test_the_citation_style_box_is_wide_enough_for_its_longest_label(make_settings):
    tab = settings_fields(make_settings({}))
    narrow = settings_tab.dropdown_width(settings_form.FieldSpec("x", "y", "z", ("ab",)))
    assert tab["citation_style"].min_width > narrow
    assert tab["citation_style"].min_width >= 8 * len("Chicago author-date")


PARAMS = {"tone": "academic", "report_format": "bullets", "report_language": "de", "length_words": 300,
          "aggregation_prompt": "", "preset": ""}


def test_an_extractive_report_s_options_line_says_what_applied():
    line = options_line(PARAMS, "extractive")
    assert "extractive (quoted sentences, no LLM)" in line and "bullet brief" in line and "≤ 300 words" in line
    for unused in ("tone", "academic", "built-in prompt", "de"):
        assert unused not in line.replace("extractive", "").replace("sentences", "")


def test_an_llm_report_s_options_line_keeps_its_options():
    assert options_line(PARAMS, "llm") == ("*Report options: tone academic · bullet brief · de · ≤ 300 words · "
                                           "built-in prompt*")
