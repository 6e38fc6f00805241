"""The report's language has one name in a run's parameters: report_language (default: [research] output_lang).
ResearchParams had a second field, output_lang, that nothing set and only the search echoed back."""
from __future__ import annotations

from App_Function_Libraries.Research.params import ResearchParams


def test_the_answer_language_has_one_name(make_settings):
    params = ResearchParams.from_settings(make_settings({"research": {"output_lang": "de"}}))
    assert params.report_language == "de" and params.report_options().output_lang == "de"
    assert "output_lang" not in params.to_dict()


def test_a_run_saved_with_the_old_field_still_opens(make_settings):
    params = ResearchParams.from_settings(make_settings({}), report_language="fr")
    assert ResearchParams.from_dict(params.to_dict() | {"output_lang": None}) == params
