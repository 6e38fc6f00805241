"""`python app.py research` on the test world, with and without an LLM."""
from __future__ import annotations

import json
import re

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.DB.research_store import get_research_store
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import DEFAULT_FOLLOW_UPS, script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"


def test_research_json_with_an_llm(world, make_settings, capsys):
    web = MiniWeb(world, timeout_delay=5).install()
    script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle")).install(world)
    settings = make_settings(research_config(web, world.url("/v1")))
    code = main(["--config", str(settings.path), "research", QUESTION, "--engine", "searxng", "--json"])
    out = capsys.readouterr()
    assert code == 0
    data = json.loads(out.out)
    why = [(x["url"], x.get("failure") or x.get("warning")) for x in data["sources"] if x.get("selected")]
    assert data["mode"] == "llm" and data["citations"] and data["question"] == QUESTION, (
        data["report_markdown"][:400], why, out.err[-1500:])  # once seen failing in CI with mode "none"
    assert re.search(r"search: 3/3 \(\d+ results\)", out.err) and "verify: 1/1" in out.err  # progress on stderr
    assert out.err.count("relevance:") == 1
    saved = re.search(r"saved as (\S+)", out.err).group(1)
    assert get_research_store(settings).load_report(saved).report_markdown == data["report_markdown"]


def test_research_markdown_without_an_llm(world, make_settings, capsys):
    web = MiniWeb(world, timeout_delay=5).install()
    settings = make_settings(research_config(web))
    code = main(["--config", str(settings.path), "research", QUESTION, "--no-llm", "--md", "--no-save"])
    out = capsys.readouterr()
    assert code == 0
    assert out.out.startswith(f"# {QUESTION}") and "Extractive brief" in out.out
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", out.out.split("## Sources")[0])}
    listed = {int(n) for n in re.findall(r"^\[(\d+)\] ", out.out, re.MULTILINE)}
    assert numbers and numbers <= listed
    assert "HTTP 429" in out.out  # selected sources that were not used are listed with why
    assert "saved as" not in out.err
    # the navigation FAQ carries a prompt injection: without an LLM it is read and cited, its orders are not
    brief = out.out.split("## Sources")[0]
    assert "navigation-faq" in out.out and "evil.example" not in brief and "maintenance mode" not in brief


def test_research_progress_says_a_skipped_model_in_words_in_its_stage_order(world, make_settings, capsys):
    """It printed "embedding_model: 0/0 (skipped: embeddings off)" as the last stage line, after follow_ups."""
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web))  # embeddings off
    assert main(["--config", str(settings.path), "research", QUESTION, "--no-llm", "--md", "--no-save"]) == 0
    lines = [re.sub(r"^\[ *\d+\.\ds\] ", "", line) for line in capsys.readouterr().err.splitlines()]
    stages = [line.split(":")[0] for line in lines]
    assert "embedding_model: skipped: embeddings off" in lines and "0/0" not in "\n".join(lines), lines
    assert stages.index("search") < stages.index("embedding_model") < stages.index("relevance"), lines
    assert "verify: 1/1" in lines  # control: a stage that counts keeps its count


def test_cli_progress_says_a_ready_model_as_the_web_search_board_does(make_settings):
    """A model loaded before the run printed "embedding_model: 1/1 (ready (loaded before this run))"; the CLI and
    the board show the run's own words for it."""
    import io

    from App_Function_Libraries.CLI.research_command import ProgressLine
    from App_Function_Libraries.Gradio_UI.web_search_view import StageBoard
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.run import Run, Services
    from App_Function_Libraries.records import ResearchResult

    class Encoder:  # stands in for the model: what is tested is how its being ready is said
        def encode(self, texts, is_query=False):
            return [[1.0] for _ in texts]
    settings = make_settings({"research": {"use_embeddings": "true"}})
    services = Services(settings=settings, embedder_factory=Encoder)
    services.embedder()  # loaded before this run
    events, stream = [], io.StringIO()
    line = ProgressLine(stream)
    run = Run(ResearchResult(question="q"), services, ResearchParams.from_settings(settings),
              lambda e: (events.append(e), line(e)), None)
    run.load_embedder()
    printed = re.sub(r"^\[ *\d+\.\ds\] ", "", stream.getvalue().strip())
    assert printed == "embedding_model: ready (loaded before this run)", printed
    board = StageBoard()
    for e in events:
        board.apply(e)
    assert "Load embedding model** · ready (loaded before this run)" in board.markdown()


def test_research_rejects_bad_arguments(make_settings, capsys):
    settings = make_settings()
    assert main(["--config", str(settings.path), "research", "bees", "--engine", "altavista"]) == 2
    assert "unknown engine altavista" in capsys.readouterr().err
    assert main(["--config", str(settings.path), "research", "   "]) == 1
    assert "the question is empty" in capsys.readouterr().err


def test_research_report_options_rounds_and_a_follow_up(world, make_settings, capsys):
    from App_Function_Libraries.LLM import prompts
    from App_Function_Libraries.Research.presets import save_preset
    web = MiniWeb(world, include_faults=False).install()
    llm = script_research(ScriptedLLM(default="?"), ("bee", "honey", "waggle", "sun"), invalid_citation=None,
                          gap_queries=[["polarised light sun compass"]]).install(world)
    settings = make_settings(research_config(web, world.url("/v1"), search={"search_result_max": 2}))
    save_preset("terse", "Be terse. {sources}\nQ: {question}", settings)
    code = main(["--config", str(settings.path), "research", QUESTION, "--json", "--no-subqueries", "--tone",
                 "academic", "--format", "bullets", "--report-language", "fr", "--length", "200", "--preset", "terse",
                 "--rounds", "2"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data = json.loads(out.out)
    assert {k: data["params"][k] for k in ("tone", "report_format", "report_language", "length_words", "preset")} \
        == {"tone": "academic", "report_format": "bullets", "report_language": "fr", "length_words": 200,
            "preset": "terse"}
    report_prompt = [p for p in llm.prompts if prompts.REPORT_RULES[:60] in p][0]
    assert "Be terse." in report_prompt and "Write in French." in report_prompt and "Tone: academic." in report_prompt
    assert [r["round"] for r in data["rounds"]] == [1, 2] and data["rounds"][0]["added"]
    assert "round 1; searched \"polarised light sun compass\"" in out.err and "stopped: no gap left" in out.err
    assert data["follow_ups"] == DEFAULT_FOLLOW_UPS
    saved = re.search(r"saved as (\S+)", out.err).group(1)

    asked = len(llm.prompts)
    code = main(["--config", str(settings.path), "research", data["follow_ups"][0], "--follow-up-of", saved[:8],
                 "--no-save"])
    out = capsys.readouterr()
    assert code == 0 and out.out.startswith(f"# {DEFAULT_FOLLOW_UPS[0]}")
    assert "follow-up questions (python app.py research --follow-up-of " in out.err
    subquery_prompt = next(p for p in llm.prompts[asked:] if "search queries for this question" in p)
    assert QUESTION in subquery_prompt and "previous answer" in subquery_prompt


def test_research_refuses_bad_report_options(make_settings, capsys):
    settings = make_settings()
    base = ["--config", str(settings.path), "research", "bees"]
    for extra, message in ((["--preset", "missing"], "no report preset named 'missing'"),
                           (["--length", "5"], "--length-words must be 50 to 10000"),
                           (["--report-language", "German!"], "not a language code"),
                           (["--rounds", "9"], "--rounds must be 0 to 5"),
                           (["--follow-up-of", "abc"], "no saved report with id 'abc'")):
        assert main(base + extra) == 2
        assert message in capsys.readouterr().err


def test_markdown_of_a_report_citing_nothing_says_so_under_sources():
    """A "not answered" report cites nothing: its Sources section says so instead of standing empty."""
    from App_Function_Libraries.CLI.research_command import format_markdown
    from App_Function_Libraries.records import ResearchResult, Source
    read = Source(title="Karl von Frisch", url="https://example.org/frisch", n=1, fetched=True)
    text = format_markdown(ResearchResult(question="What did he eat?", report_markdown="Not answered.",
                                          sources=[read]))
    sources = text.split("## Sources", 1)[1]
    assert sources.split("Read but not cited:")[0].strip() == "None cited."
    assert "https://example.org/frisch" in sources.split("Read but not cited:")[1]


def test_the_printed_report_resolves_markdown_escapes_and_md_keeps_them():
    """A quoted page's brackets are escaped in the report's Markdown (not read as a link); on the terminal the
    reader sees "[Tesla]", with --md the Markdown as it is."""
    from App_Function_Libraries.CLI.research_command import format_report
    from App_Function_Libraries.Retrieval.citations import quote_text
    from App_Function_Libraries.records import ResearchResult, Source
    sentence = quote_text("The coil [Tesla] was patented in 1891 by Nikola Tesla.")
    assert sentence == "The coil \\[Tesla\\] was patented in 1891 by Nikola Tesla."
    result = ResearchResult(question="Who patented the coil?", report_markdown=f"{sentence} [1]",
                            sources=[Source(title="Coils", url="https://example.org/coil", n=1, fetched=True)])
    text = format_report(result, markdown=False)
    assert "The coil [Tesla] was patented in 1891 by Nikola Tesla. [1]" in text and "\\" not in text
    assert "The coil \\[Tesla\\] was patented" in format_report(result, markdown=True)
