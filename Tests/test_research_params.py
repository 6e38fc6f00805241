"""The report's language has one name everywhere: report_language (run params, [research] report_language,
ReportOptions, the CLI's --report-language, the MCP/HTTP argument). Its old names still load: a config file's
[research] output_lang, a saved run's output_lang or report_lang, a caller's lang."""
from __future__ import annotations

import pytest

from App_Function_Libraries import options
from App_Function_Libraries.options import BadArgument
from App_Function_Libraries.Research.params import ResearchParams


def test_the_answer_language_has_one_name(make_settings):
    params = ResearchParams.from_settings(make_settings({"research": {"report_language": "de"}}))
    assert params.report_language == "de" and params.report_options().report_language == "de"
    assert "output_lang" not in params.to_dict()


def test_an_old_config_key_still_loads(make_settings):
    """A config.txt written before the renames says output_lang and report_length_words: they are the report
    language and length_words."""
    settings = make_settings({"research": {"output_lang": "de", "report_length_words": "300"}})
    assert (settings.research.report_language, settings.research.length_words) == ("de", 300)
    params = ResearchParams.from_settings(settings)
    assert (params.report_language, params.length_words) == ("de", 300)


def test_a_run_saved_with_the_old_field_still_opens(make_settings):
    params = ResearchParams.from_settings(make_settings({}), report_language="fr")
    assert ResearchParams.from_dict(params.to_dict() | {"output_lang": None}) == params


def test_old_saved_params_json_still_loads(make_settings):
    """A run saved under the old names (the language as output_lang, a search option under its label) opens with
    every value under the option's one name."""
    saved = {"engines": ["searxng"], "output_lang": "pt-BR", "result_count": 7, "content_country": "DE",
             "sort_results_by": "date", "length_words": 300, "no_such_field": 1}
    params = ResearchParams.from_dict(saved)
    assert (params.report_language, params.count, params.country, params.sort, params.length_words) == \
        ("pt-BR", 7, "DE", "date", 300)


def test_callers_old_names_and_off_switches(make_settings):
    params = ResearchParams.from_settings(make_settings({}), lang="de", pages=3, length=200, no_llm=True,
                                          budget_tokens=500, exclude_sites="a.org, b.org")
    assert (params.report_language, params.pages_max, params.length_words, params.use_llm,
            params.budget_llm_tokens, params.site_blacklist) == ("de", 3, 200, False, 500, "a.org, b.org")


@pytest.mark.parametrize("values, argument", [({"report_format": "essay"}, "report_format"),
                                              ({"length_words": 10}, "length_words"),
                                              ({"report_language": "German!"}, "report_language"),
                                              ({"safesearch": "extreme"}, "safesearch"),
                                              ({"date_range": "fortnight"}, "date_range"),
                                              ({"engines": ["altavista"]}, "engines"),
                                              ({"pages": "many"}, "pages_max")])
def test_a_wrong_value_names_its_option(make_settings, values, argument):
    with pytest.raises(BadArgument) as caught:
        ResearchParams.from_settings(make_settings({}), **values)
    assert caught.value.argument == argument


def test_every_field_default_comes_from_its_declared_setting(make_settings):
    """Each option with a setting takes its default from that key (the table, not a hand list, says which)."""
    settings = make_settings({"research": {"pages_max": "7", "citation_style": "apa"},
                              "search": {"search_result_analysis_tone": "academic"}})
    params = ResearchParams.from_settings(settings)
    assert (params.pages_max, params.citation_style, params.tone) == (7, "apa", "academic")
    for name in options.PARAMS:
        option = options.OPTIONS[name]
        if option.setting and option.group != "search":
            section, key = option.setting_key()
            value = getattr(getattr(settings, section), key)
            assert getattr(params, name) == (options.names_list(value) if name == "engines" else value), name
