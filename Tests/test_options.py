"""Each research option is declared once (App_Function_Libraries/options.py) and every door offers exactly the
table's options: the CLI's `research` and `search`, the MCP tools and the HTTP endpoints (one endpoint table),
ResearchParams and config.txt's checks. A door that lacks one, or offers one the table does not declare, fails
here."""
from __future__ import annotations

import asyncio
import dataclasses
import inspect

import pytest

from App_Function_Libraries import config, options
from App_Function_Libraries.quarry.endpoints import ENDPOINTS, signature
from App_Function_Libraries.Research.params import ResearchParams


def _cli_dests(command: str) -> set[str]:
    from App_Function_Libraries.CLI.main import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return {a.dest for a in sub._actions if a.dest != "help"}


def _wire_names(names) -> set[str]:
    """The argument names the options give on MCP and HTTP: each option's wire name and the old names older
    clients send."""
    return {argument for argument, _ in options.wire_arguments(names)}


def test_the_cli_research_command_offers_exactly_the_tables_options():
    from App_Function_Libraries.CLI.research_command import CONTROLS
    assert _cli_dests("research") - set(CONTROLS) == set(options.offered("cli", options.RESEARCH))


def test_the_cli_search_command_offers_the_search_options():
    from App_Function_Libraries.CLI.search_command import OPTIONS
    assert _cli_dests("search") - {"query", "json"} == set(OPTIONS) >= set(options.SEARCH)


def test_the_mcp_research_tool_offers_exactly_the_tables_options(make_settings):
    from App_Function_Libraries.MCP.server import build_server
    tools = {t.name: t for t in asyncio.run(build_server(make_settings({})).list_tools())}
    assert set(tools) == {e.name for e in ENDPOINTS}
    research = set(tools["research"].input_schema["properties"]) - {"question"}
    assert research == _wire_names(options.RESEARCH)
    assert {options.OPTIONS[n].wire for n in options.offered("wire")} <= research  # every option, not just old names
    assert set(tools["web_search"].input_schema["properties"]) - {"query"} == _wire_names(options.SEARCH_COMMAND)


def test_the_http_research_endpoint_offers_exactly_the_tables_options():
    from App_Function_Libraries.Gradio_UI.api_endpoints import endpoint_function
    research = next(e for e in ENDPOINTS if e.name == "research")
    params = set(inspect.signature(endpoint_function(research, lambda: None)).parameters)  # what gr.api reads
    assert params - {"question"} == _wire_names(options.RESEARCH)


def test_a_door_lacking_an_option_fails_the_check():
    """Control: the comparison above fails when one option is missing from a door's arguments."""
    research = next(e for e in ENDPOINTS if e.name == "research")
    lacking = dataclasses.replace(research, args=tuple(a for a in research.args if a.name != "date_range"))
    assert set(signature(lacking, lambda a, t: t).parameters) - {"question"} != _wire_names(options.RESEARCH)


def test_research_params_has_a_field_per_option_and_config_checks_them():
    fields = {f.name for f in dataclasses.fields(ResearchParams)}
    assert set(options.PARAMS) <= fields
    for name, option in options.OPTIONS.items():
        if not option.setting:
            continue
        section, key = option.setting_key()
        made = {f.name: f for f in dataclasses.fields(config.SECTION_TYPES[section])}[key]
        assert made.metadata.get("option") == name, f"[{section}] {key} is not made from option {name}"
        if option.kind == "choice":
            assert made.metadata["choices"] == option.choices
        if option.kind in ("int", "float"):
            assert (made.metadata["min"], made.metadata["max"]) == (option.low, option.high), name


def test_each_option_has_one_name_and_old_names_map_to_it():
    names = set(options.OPTIONS)
    for option in options.OPTIONS.values():
        assert not set(option.aliases) & names, option.name  # an old name is never another option's name
    assert options.canonical({"lang": "de"}) == {"report_language": "de"}  # research: the report's language
    assert options.canonical({"lang": "de"}, options.SEARCH_COMMAND) == {"search_lang": "de"}
    assert options.canonical({"no_llm": True, "no_cache": False}) == {"use_llm": False}
    with pytest.raises(options.BadArgument, match="given twice"):
        options.canonical({"pages": 3, "pages_max": 4})
    with pytest.raises(options.BadArgument, match="no option here"):
        options.canonical({"colour": "red"})


def test_engines_as_text_or_list_on_every_door(make_settings):
    """MCP's web_search took only a list while HTTP took "searxng": both take either now (one validation)."""
    from App_Function_Libraries.quarry.endpoints import python_type
    engines = next(a for a in next(e for e in ENDPOINTS if e.name == "web_search").args if a.name == "engines")
    assert python_type(engines) == list[str] | str | None
    from pydantic import TypeAdapter
    adapter = TypeAdapter(python_type(engines))
    assert adapter.validate_python("searxng") == "searxng" and adapter.validate_python(["searxng"]) == ["searxng"]
    assert options.names_list("searxng, brave") == options.names_list(["searxng", "brave"]) == ["searxng", "brave"]


@pytest.mark.slow
def test_a_research_option_added_in_the_table_reaches_its_stage(world, make_settings):
    """relevance_embedding_threshold became a run's option by its declaration in options.py and its use in the
    relevance stage: the run's value, not [research]'s, decides what is read (real MiniLM embeddings)."""
    from App_Function_Libraries.CLI.main import build_parser
    from App_Function_Libraries.Research.pipeline import process_question
    from Tests.support.mini_web import MiniWeb, research_config
    args = build_parser().parse_args(["research", "q", "--relevance-embedding-threshold", "0.99"])
    assert options.from_arguments(args, options.PARAMS) == {"relevance_embedding_threshold": 0.99}
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=True, research={"relevance_embedding_threshold": 0.3}))
    question = "How do honey bees find food and water?"
    strict = process_question(question, ResearchParams.from_settings(settings, relevance_embedding_threshold=0.99))
    assert not any(s.fetched for s in strict.sources)  # nothing is that similar: nothing read
    usual = process_question(question, ResearchParams.from_settings(settings))
    assert usual.params["relevance_embedding_threshold"] == 0.3 and any(s.fetched for s in usual.sources)
    older = {k: v for k, v in usual.params.items() if k != "relevance_embedding_threshold"}  # saved before it
    default = options.OPTIONS["relevance_embedding_threshold"].default
    assert ResearchParams.from_dict(older).relevance_embedding_threshold == default == 0.2


def test_the_search_options_are_the_tables():
    """SearchOptions' fields (each with its parser and label) are the table's search options."""
    from App_Function_Libraries.Search.options import SearchOptions
    assert sorted(SearchOptions.names()) == sorted(options.SEARCH)
    assert all(SearchOptions.setting(n) == (options.OPTIONS[n].setting_key() or (None, None))[1]
               for n in options.SEARCH)
