"""Settings: good, missing and bad values, environment overrides, masking, in-place updates."""
import subprocess
import sys

import pytest

from App_Function_Libraries.config import (
    DEFAULT_CONFIG_PATH, ConfigError, load_settings, masked, update_config_file)
from Tests.conftest import ROOT


def write(tmp_path, text):
    p = tmp_path / "c.txt"
    p.write_text(text, encoding="utf-8")
    return p


def test_shipped_config_loads_with_documented_defaults():
    s = load_settings(DEFAULT_CONFIG_PATH, env={})
    assert s.search.search_provider_default == "duckduckgo"
    assert s.search.search_enable_subquery is True
    assert s.search.search_enable_subquery_count_max == 5
    assert s.llm.provider == "none"
    assert s.ui.host == "127.0.0.1" and s.ui.port == 7860
    assert s.fetch.allow_private_addresses is False
    assert s.llm_for("final_answer").provider == "none"


def test_every_shipped_key_is_documented():
    lines = DEFAULT_CONFIG_PATH.read_text().splitlines()
    for i, line in enumerate(lines):
        if "=" in line and not line.startswith("#"):
            above = [ln for ln in lines[max(0, i - 3):i]]
            key = line.split("=")[0].strip()
            # a key is documented by a comment above it, or belongs to a documented pair/group
            assert any(ln.startswith("#") for ln in above) or lines[i - 1].split("=")[0].strip().endswith(
                ("_url", "_api_key", "min", "provider", "model")), f"undocumented key {key}"


def test_missing_file_uses_defaults_but_named_file_must_exist(tmp_path):
    assert load_settings(None, env={"QUARRY_CONFIG": ""}).search.search_result_max == 15
    with pytest.raises(ConfigError, match="file not found"):
        load_settings(tmp_path / "nope.txt", env={})


@pytest.mark.parametrize("text, fragment", [
    ("[search]\nsearch_result_max = lots\n", "[search] search_result_max = 'lots': expected a whole number"),
    ("[search]\nsearch_result_max = 0\n", "must be between 1 and 200"),
    ("[llm]\nprovider = gpt\n", "[llm] provider = 'gpt': allowed values are none, openai, llamacpp"),
    ("[search]\nsearch_enable_subquery = maybe\n", "expected true or false"),
    ("[fetch]\nconnect_timeout_seconds = soon\n", "expected a number"),
    ("[search]\nsearch_colour = red\n", "[search] search_colour: unknown key"),
    ("[serch]\n", "[serch]: unknown section"),
    ("[llm_final_answer]\nprovider = nope\n", "[llm_final_answer] provider"),
    ("no section header\n", "cannot parse"),
    ("[search]\nsearch_content_country = USA\n",
     "[search] search_content_country = 'USA': expected a two-letter country code (ISO 3166, e.g. US, GB, DE)"),
    ("[search]\nsearch_language_query = english\n",
     "[search] search_language_query = 'english': expected a language code (ISO 639-1"),
    ("[search]\nsearch_language_results = en us\n", "[search] search_language_results = 'en us'"),
    ("[fetch]\nextract_memory_mb = 10\n",
     "[fetch] extract_memory_mb = '10': expected 0 (no cap) or a number of MB from 64 to 1000000"),
    ("[documents]\nparse_memory_mb = -1\n", "[documents] parse_memory_mb = '-1': expected 0 (no cap)"),
    ("[documents]\nparse_timeout_seconds = 0\n", "must be between 1 and 86400"),
    ("[search]\nsearch_result_blacklist = pinterest.com, not a domain!\n",
     "[search] search_result_blacklist = 'pinterest.com, not a domain!': expected domains separated by commas "
     "(e.g. pinterest.com, example.org); 'not a domain!' is not a domain"),
])
def test_bad_values_give_one_line_naming_file_section_key(tmp_path, text, fragment):
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as exc:
        load_settings(p, env={})
    msg = str(exc.value)
    assert fragment in msg and str(p) in msg and "\n" not in msg


def test_search_defaults_accept_what_a_search_accepts(tmp_path):
    p = write(tmp_path, "[search]\nsearch_content_country = all\nsearch_language_query = en-GB\n"
                        "search_language_results =\nsearch_result_blacklist = pinterest.com, https://www.quora.com/x\n")
    s = load_settings(p, env={})
    assert s.search.search_content_country == "all" and s.search.search_language_query == "en-GB"
    assert s.search.search_result_blacklist == ["pinterest.com", "https://www.quora.com/x"]


def test_env_overrides_secrets_and_urls(tmp_path):
    p = write(tmp_path, "[engines]\nbrave_api_key = from-file\n[llm]\nprovider = openai\nmodel = m\n")
    env = {"QUARRY_BRAVE_API_KEY": "env-brave", "QUARRY_SEARXNG_API_URL": "http://127.0.0.1:9/",
           "QUARRY_LLM_API_KEY": "env-llm", "QUARRY_LLM_RELEVANCE_API_KEY": "env-rel"}
    s = load_settings(p, env=env)
    assert s.engines.key("brave") == "env-brave"
    assert s.engines.url("searxng") == "http://127.0.0.1:9/"
    assert s.llm.api_key == "env-llm"
    assert s.llm_for("subquery").api_key == "env-llm"
    assert s.llm_for("relevance").api_key == "env-rel"


def test_role_sections_inherit_and_override(tmp_path):
    p = write(tmp_path, "[llm]\nprovider = openai\nmodel = big\ntemperature = 0.5\n"
                        "[llm_relevance]\nmodel = small\nprovider =\n")
    s = load_settings(p, env={})
    assert s.llm_for("relevance").model == "small"
    assert s.llm_for("relevance").provider == "openai"
    assert s.llm_for("relevance").temperature == 0.5
    assert s.llm_for("final_answer").model == "big"


def test_masked_never_shows_keys(tmp_path):
    p = write(tmp_path, "[engines]\nkagi_api_key = sekrit-kagi\n[llm]\napi_key = sekrit-llm\n")
    shown = repr(masked(load_settings(p, env={"QUARRY_TAVILY_API_KEY": "sekrit-tav"})))
    assert "sekrit" not in shown
    assert "(set)" in shown and "(not set)" in shown


def test_update_config_file_keeps_comments_and_validates(tmp_path):
    p = write(tmp_path, "# top comment\n[search]\n# doc line\nsearch_result_max = 15\n[ui]\nport = 7860\n")
    update_config_file(p, "search", "search_result_max", "30")
    update_config_file(p, "engines", "brave_api_key", "k")
    update_config_file(p, "ui", "host", "0.0.0.0")
    text = p.read_text()
    assert "# top comment" in text and "# doc line" in text
    s = load_settings(p, env={})
    assert s.search.search_result_max == 30 and s.engines.brave_api_key == "k" and s.ui.host == "0.0.0.0"
    with pytest.raises(ConfigError):
        update_config_file(p, "ui", "port", "not-a-port")
    assert load_settings(p, env={}).ui.port == 7860


def test_cli_reports_bad_config_in_one_line_without_traceback(tmp_path):
    p = write(tmp_path, "[ui]\nport = 99999\n")
    proc = subprocess.run([sys.executable, "app.py", "--config", str(p), "check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "[ui] port = '99999': must be between 1 and 65535" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_bf16_is_auto_by_default_and_follows_the_cpu(monkeypatch):
    from App_Function_Libraries.Retrieval import embeddings
    from App_Function_Libraries.config import EmbeddingSettings
    assert EmbeddingSettings().bf16 == "auto"
    for native in (True, False):
        monkeypatch.setattr(embeddings, "cpu_has_native_bf16", lambda native=native: native)
        assert embeddings.Embedder(bf16="auto").uses_bf16 is native
    assert embeddings.Embedder(bf16="true").uses_bf16 and not embeddings.Embedder(bf16="false").uses_bf16
    assert embeddings.Embedder(bf16=True).uses_bf16 and not embeddings.Embedder(bf16=False).uses_bf16
    assert isinstance(embeddings.cpu_has_native_bf16(), bool)


def test_a_retired_key_is_ignored_with_a_warning_and_a_misspelt_one_is_an_error(tmp_path, caplog):
    p = write(tmp_path, "[wikipedia]\nsimilarity_search_hamming_candidates = 6000\n"
                        "similarity_search_top_k_nodes = 50\n")
    assert load_settings(p, env={}).wikipedia.similarity_search_top_k_nodes == 50
    assert "similarity_search_hamming_candidates is no longer used" in caplog.text
    load_settings(write(tmp_path, "[search]\nsearch_result_rerank = true\nsearch_language_analysis = en\n"), env={})
    assert "search_result_rerank is no longer used" in caplog.text
    assert "search_language_analysis is no longer used" in caplog.text
    with pytest.raises(ConfigError, match="similarity_search_hamming_candidate: unknown key"):
        load_settings(write(tmp_path, "[wikipedia]\nsimilarity_search_hamming_candidate = 6000\n"), env={})


@pytest.mark.parametrize("raw, value", [("yes", "true"), ("1", "true"), ("On", "true"), ("True", "true"),
                                        ("no", "false"), ("0", "false"), ("off", "false"), ("AUTO", "auto")])
def test_bf16_still_takes_every_true_false_spelling_of_the_old_setting(tmp_path, raw, value):
    assert load_settings(write(tmp_path, f"[embeddings]\nbf16 = {raw}\n"), env={}).embeddings.bf16 == value


def test_provider_ollama_is_the_openai_client_at_ollamas_address(tmp_path):
    """Ollama serves the OpenAI API: `provider = ollama` is provider = openai with Ollama's base_url, unless
    base_url names another; a role may use it alone; saving it is accepted too."""
    from App_Function_Libraries.config import OLLAMA_BASE_URL
    s = load_settings(write(tmp_path, "[llm]\nprovider = ollama\nmodel = llama3.2\n"), env={})
    assert (s.llm.provider, s.llm.base_url, s.llm.model) == ("openai", "http://127.0.0.1:11434/v1", "llama3.2")
    assert OLLAMA_BASE_URL == "http://127.0.0.1:11434/v1" and s.llm_for("final_answer").provider == "openai"
    s = load_settings(write(tmp_path, "[llm]\nprovider = Ollama\nbase_url = http://gpu.lan:11434/v1\n"), env={})
    assert (s.llm.provider, s.llm.base_url) == ("openai", "http://gpu.lan:11434/v1")
    s = load_settings(write(tmp_path, "[llm]\nprovider = openai\nbase_url = https://api.example/v1\n"
                                      "[llm_relevance]\nprovider = ollama\n"), env={})
    assert s.llm_for("relevance").base_url == OLLAMA_BASE_URL and s.llm.base_url == "https://api.example/v1"
    p = write(tmp_path, "[llm]\nprovider = none\n")
    update_config_file(p, "llm", "provider", "ollama")
    assert load_settings(p, env={}).llm.base_url == OLLAMA_BASE_URL
    with pytest.raises(ConfigError, match=r"provider = 'olama': allowed values are none, openai, llamacpp, "
                                          r"ollama \(= openai\)"):
        load_settings(write(tmp_path, "[llm]\nprovider = olama\n"), env={})


def test_a_bad_engine_list_names_the_bad_entry(tmp_path):
    with pytest.raises(ConfigError, match=r"search_provider_default = 'duckduckgo, googel': 'googel' is not an engine "
                                          r"or local source; expected engines or local sources separated by commas"):
        load_settings(write(tmp_path, "[search]\nsearch_provider_default = duckduckgo, googel\n"), env={})
    with pytest.raises(ConfigError, match=r"'bingo', 'wiki' are not engines or local sources;"):
        load_settings(write(tmp_path, "[search]\nsearch_provider_default = bingo,brave,wiki\n"), env={})
    assert load_settings(write(tmp_path, "[search]\nsearch_provider_default = brave, wikipedia\n"),
                         env={}).search.search_provider_default == "brave, wikipedia"  # a control


def test_saving_a_renamed_key_replaces_its_old_line(tmp_path):
    """The Settings tab writes [research] report_language: a file that says output_lang gets that line replaced,
    not a second line beside it."""
    from App_Function_Libraries.config import load_settings, update_config_file
    path = tmp_path / "config.txt"
    path.write_text("[research]\n# the report's language\noutput_lang = de\n", encoding="utf-8")
    assert load_settings(path, env={}).research.report_language == "de"
    update_config_file(path, "research", "report_language", "fr")
    assert path.read_text(encoding="utf-8") == "[research]\n# the report's language\nreport_language = fr\n"
    assert load_settings(path, env={}).research.report_language == "fr"
