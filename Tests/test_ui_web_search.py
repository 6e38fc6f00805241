"""Web Search tab pieces: citation links, stage progress, ticking sources, the form's checks, the run stream."""
import threading
import time
from types import SimpleNamespace

import pytest

from App_Function_Libraries.Gradio_UI import research_runner, web_search_params as wp, web_search_view as view
from App_Function_Libraries.DB.markdown_html import EXTERNAL
from App_Function_Libraries.Gradio_UI.answer_view import SourceRef, render
from App_Function_Libraries.Gradio_UI.web_search_tab import OPTION_NAMES
from App_Function_Libraries.LLM.prompts import DEFAULT_AGGREGATION_PROMPT
from App_Function_Libraries.records import Paper, ResearchResult, Source


def test_citations_link_to_web_sources_or_to_their_row():
    refs = [SourceRef(1, "Bees [draft]", "https://example.org/a_(b)"), SourceRef(2, "notes.md (p3)", "/x/notes.md#p3")]
    text = render("One [1]. Two [2]. Unknown [7]. Already [1](http://x). Escaped \\[1].", refs, "doc")
    assert '<a href="https://example.org/a_(b)" title="Bees [draft]" target="_blank"' in text
    assert ('>[1]</a>.</span> Two <span class="cite"><a href="#doc-source-2" title="notes.md (p3)">[2]</a>.</span>'
            in text)
    assert "Unknown [7]" in text and 'Already <a href="http://x"' in text and "Escaped [1]." in text


def test_every_number_of_a_citation_group_links_to_its_source_and_is_listed():
    from App_Function_Libraries.Gradio_UI.answer_view import answer_html, cited_numbers
    refs = [SourceRef(1, "One", "https://one.example"), SourceRef(2, "Two", "/x/notes.md#p3"),
            SourceRef(3, "Three", "https://three.example"), SourceRef(4, "Four", "https://four.example")]
    text = render("Both [1, 3]. A range [2-3]. Half known [3, 9]. None known [8, 9].", refs, "doc")

    def a(href, title, n):
        return f'<a href="{href}" title="{title}"{EXTERNAL if href.startswith("http") else ""}>{n}</a>'
    unit = '<span class="cite">'  # a linked group and its full stop: one tight unit (CITE_CSS)
    three = a("https://three.example", "Three", 3)
    assert f'Both {unit}[{a("https://one.example", "One", 1)}, {three}].</span>' in text
    assert f'A range {unit}[{a("#doc-source-2", "Two", 2)}, {a("https://three.example", "Three", 3)}].</span>' in text
    assert f'Half known {unit}[{a("https://three.example", "Three", 3)}, 9].</span>' in text
    assert "None known [8, 9]." in text
    assert cited_numbers("Both [1, 3]. A range [2-3].") == {1, 2, 3}
    listed = answer_html("Only these [1, 3].", refs, "web").split("<hr>", 1)[1]
    cited, rest = listed.split("Read but not cited", 1)  # issue 22: cited first, then read but not cited
    assert "https://one.example" in cited and "https://three.example" in cited
    assert "https://four.example" not in cited and "notes.md" not in cited
    assert "https://four.example" in rest and "notes.md" in rest


def event(stage, done, total, message=""):
    return SimpleNamespace(stage=stage, done=done, total=total, message=message)


def test_stage_board_marks_running_done_and_cancelled():
    board = view.StageBoard()
    board.apply(event("subqueries", 1, 1))
    board.apply(event("search", 0, 2))
    text = board.markdown()
    assert "✓ **Sub-queries** · 1/1" in text and "◐ **Search** · 0/2" in text and "○ **Fetch pages**" in text
    assert "■ **Search**" in board.markdown(cancelled=True)
    board.apply(event("search", 2, 2, "9 results"))
    board.apply(event("done", 1, 1))
    text = board.markdown({"search": 1.25})
    assert "✓ **Search** · 2/2 · 9 results · 1.2 s" in text and "– **Write report**" in text


def load_stage_events(make_settings) -> dict[str, tuple[list, dict]]:
    """The LOAD_STAGE events a real Run sends, and its timings: the model loaded in this run, ready before it,
    embeddings off. The model is a stand-in (a run's events around its load are what is tested, not the model)."""
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.run import LOAD_STAGE, Run, Services

    class Encoder:
        def encode(self, texts, is_query=False):
            return [[1.0] for _ in texts]
    said: dict[str, tuple[list, dict]] = {}
    for name, on in (("loaded", True), ("ready", True), ("off", False)):
        settings = make_settings({"research": {"use_embeddings": str(on).lower()}})
        services = Services(settings=settings, embedder_factory=Encoder)
        if name == "ready":
            services.embedder()  # loaded before this run
        events: list = []
        run = Run(ResearchResult(question="q"), services, ResearchParams.from_settings(settings), events.append, None)
        if on:
            run.load_embedder()
        run.finish()
        said[name] = [e for e in events if e.stage in (LOAD_STAGE, "done")], run.result.timings
    return said


def test_the_embedding_model_stage_says_how_the_model_was_had(make_settings):
    """It showed "– Load embedding model" with no reason while every other stage had ✓, counts and a time; then
    "✓ Load embedding model · 1/1 · loaded in 2.5 s · 2.5 s": the time twice, and a count of one model."""
    from App_Function_Libraries.Research.run import LOAD_STAGE
    lines, waited = {}, 0.0
    for name, (said, timings) in load_stage_events(make_settings).items():
        board = view.StageBoard()
        for e in said:
            board.apply(e)
        lines[name] = next(line for line in board.markdown(timings).split("\n") if "Load embedding model" in line)
        waited = timings.get(LOAD_STAGE, waited)
    assert lines["loaded"].strip() == f"✓ **Load embedding model** · loaded in {waited:.1f} s", lines
    assert lines["ready"].strip() == "✓ **Load embedding model** · ready (loaded before this run)", lines
    assert lines["off"].strip() == "– **Load embedding model** · skipped: embeddings off", lines


def test_control_the_board_shows_a_counted_stage_with_its_count_and_time():
    """Control: a stage that counts (pages fetched) keeps its count and its time beside the message."""
    from App_Function_Libraries.Research.run import ProgressEvent
    board = view.StageBoard()
    board.apply(ProgressEvent("fetch", 3, 3, "2 read"))
    assert "✓ **Fetch pages** · 3/3 · 2 read · 4.0 s" in board.markdown({"fetch": 4.0})


def result_with_sources():
    return ResearchResult(question="q", sources=[
        Source("A", "http://a", verdict="relevant", n=1, fetched=True, status=200),
        Source("B", "http://b", verdict="irrelevant", reason="off topic"),
        Source("C", "http://c", verdict="unjudged", failure="HTTP 500")])


def test_source_rows_and_ticks_set_overrides():
    result = result_with_sources()
    rows = view.source_rows(result)
    assert [r[0] for r in rows] == [True, False, True]
    assert rows[0][1] == "1" and rows[0][7] == "yes (200)" and rows[2][7] == "no: HTTP 500"
    rows[0][0], rows[1][0] = False, "true"
    assert view.apply_ticks(result, rows) == 2
    assert [s.user_override for s in result.sources] == [False, True, None]
    assert [s.selected for s in result.sources] == [False, True, True]
    with pytest.raises(ValueError, match="no longer matches"):
        view.apply_ticks(result, rows[:2])


def test_source_rows_show_each_source_kind_and_a_papers_authors_and_year():
    paper = Paper(authors=["Ann Lee", "Bo Chen", "Cy Diaz", "Di Evans"], year=2021, venue="Apidologie")
    result = ResearchResult(question="q", sources=[
        Source("Waggle", "http://a"), Source("Dance study", "http://b", kind="paper", paper=paper),
        Source("Honey bee", "http://c", kind="wikipedia"), Source("notes.pdf", "file:///d", kind="document")])
    rows = view.source_rows(result)
    assert view.SOURCE_HEADERS[-1] == "kind" and len(view.SOURCE_TYPES) == len(view.SOURCE_HEADERS)
    assert all(len(row) == len(view.SOURCE_HEADERS) for row in rows)
    assert [row[-1] for row in rows] == ["web", "paper", "wikipedia", "document"]
    assert rows[1][2] == "Dance study — Ann Lee, Bo Chen, Cy Diaz et al.; 2021"
    assert [rows[0][2], rows[2][2], rows[3][2]] == ["Waggle", "Honey bee", "notes.pdf"]


def test_rounds_show_what_each_searched_added_and_changed():
    saved = {"round": 1, "queries": ["bee dance distance"], "considered": 2,
             "added": [{"n": 3, "url": "http://d", "title": "Distance"}],
             "change": {"added_sentences": ["Far food <b>means</b> long runs [3]."], "removed_sentences": []},
             "stop": "", "seconds": 1.5, "request": {"kept": True}}  # as a saved run holds it
    result = ResearchResult.from_dict({"question": "q", "rounds": [saved]})
    assert result.rounds[0].added[0]["n"] == 3 and result.to_dict()["rounds"] == [{**saved, "gaps": []}]
    text = view.rounds_markdown(result)
    assert '**Round 1**: searched "bee dance distance"; 2 new result(s); added \\[3\\] Distance; report +1/-0' in text
    assert "- added: Far food \\<b\\>means\\</b\\> long runs \\[3\\]." in text  # page text shows as text
    assert view.rounds_markdown(ResearchResult(question="q")) == ""


def form(settings, **changes):
    values = {"engines": ["searxng"], "count": 10, "result_max": 15, "country": "US", "search_lang": "en",
              "result_lang": "en", "date_range": "any", "date_start": "", "date_end": "", "safesearch": "moderate",
              "site_blacklist": "pinterest.com, example.org", "include_sites": "", "exact_terms": "waggle dance",
              "exclude_terms": "honey",
              "dedupe_filter": False, "geolocation": "", "sort": "relevance", "subqueries": True,
              "subquery_count": 3, "relevance_check": True, "pages_max": 5, "report_format": "short",
              "llm_subquery": wp.CONFIGURED, "llm_relevance": wp.NO_LLM, "llm_extraction": wp.CONFIGURED,
              "llm_final_answer": wp.CONFIGURED, "tone": "neutral", "report_language": "", "length_words": 600,
              "aggregation_prompt": DEFAULT_AGGREGATION_PROMPT, "preset": "default", "citation_style": "apa"}
    assert set(values) == set(OPTION_NAMES)
    values.update(changes)
    return values


def test_form_becomes_research_params(make_settings):
    settings = make_settings({})
    params = wp.build_params(settings, form(settings, date_range="custom", date_start="2024-01-01"))
    assert params.engines == ["searxng"] and params.pages_max == 5 and params.subquery_count == 3
    assert params.site_blacklist == ["pinterest.com", "example.org"] and params.exact_terms == ["waggle dance"]
    assert params.date_range == "2024-01-01.." and params.report_format == "short" and params.use_llm
    assert params.citation_style == "apa"  # Report options' citation style is saved with the run
    with pytest.raises(ValueError, match="citation_style must be one of numbered, apa, chicago"):
        wp.build_params(settings, form(settings, citation_style="mla"))
    services = wp.build_services(settings, form(settings), params)
    assert services.llms["relevance"] is None


def test_report_options_become_params_and_name_the_preset_only_while_unedited(make_settings):
    from App_Function_Libraries.Research.presets import save_preset
    settings = make_settings({})
    params = wp.build_params(settings, form(settings, tone="journalistic", report_language="de", length_words=250))
    assert (params.tone, params.report_language, params.length_words) == ("journalistic", "de", 250)
    assert params.aggregation_prompt == "" and params.preset == ""  # the built-in prompt is not copied
    text = DEFAULT_AGGREGATION_PROMPT + "\nQuote dates."
    save_preset("dates", text, settings)
    assert wp.build_params(settings, form(settings, aggregation_prompt=text, preset="dates")).preset == "dates"
    edited = wp.build_params(settings, form(settings, aggregation_prompt=text + "!", preset="dates"))
    assert edited.preset == "" and edited.aggregation_prompt.endswith("Quote dates.!")


@pytest.mark.parametrize("changes, message", [
    ({"aggregation_prompt": "Answer {question}."}, "no {sources} placeholder"),
    ({"report_language": "Deutsch!"}, "not a language code"),
    ({"engines": []}, "at least one search engine"),
    ({"country": "United States"}, "two-letter country code"),
    ({"date_range": "custom"}, "start date, an end date"),
    ({"date_range": "custom", "date_end": "2024-13-45"}, "date_range"),
])
def test_bad_options_are_refused_before_running(make_settings, changes, message):
    settings = make_settings({})
    with pytest.raises(ValueError, match=message):
        wp.build_params(settings, form(settings, **changes))


def test_stream_run_reports_progress_result_and_cancel():
    def work(on_progress, cancel, on_delta):
        on_progress(event("search", 0, 1))
        on_delta("Part one. ")
        for _ in range(100):
            if cancel.is_set():
                return "stopped"
            time.sleep(0.02)
        return "finished"

    stream = research_runner.stream_run(work, poll=0.01)
    first = next(stream)
    assert research_runner.cancel_run(first.run_id)
    updates = list(stream)
    last = updates[-1]
    assert last.final and last.result == "stopped" and last.cancelled
    assert any(u.partial == "Part one. " for u in updates)
    assert not research_runner.cancel_run(first.run_id), "a finished run is forgotten"


def test_closing_the_stream_cancels_the_work():
    seen = threading.Event()

    def work(on_progress, cancel, on_delta):
        cancel.wait(5)
        seen.set()

    stream = research_runner.stream_run(work, poll=0.01)
    next(stream)
    stream.close()
    assert seen.wait(2)


def test_search_streams_the_llm_report_and_honours_no_llm_for_a_role(make_settings, world):
    from App_Function_Libraries.Gradio_UI.web_search_tab import run_search
    from App_Function_Libraries.LLM import prompts
    from Tests.support.mini_web import MiniWeb
    from Tests.support.openai_server import ScriptedLLM
    from Tests.support.research_llm import script_research
    web = MiniWeb(world, include_faults=False).install()
    llm = script_research(ScriptedLLM(), topic_words=("bee", "honey", "dance")).install(world)
    settings = make_settings({"llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model"},
                              "engines": {"searxng_api_url": web.search_base},
                              "research": {"use_embeddings": "false"}})
    values = form(settings, engines=["searxng"], subqueries=False, llm_relevance=wp.NO_LLM, pages_max=3,
                  exact_terms="", exclude_terms="", blacklist="")
    updates = list(run_search("How do honey bees communicate where flowers are?",
                              *[values[name] for name in OPTION_NAMES]))
    final = updates[-1]
    run_id, progress, report, rows, state = final[:5]
    assert run_id is None and "✓ **Verify citations**" in progress
    streamed = [u[2] for u in updates[:-1] if isinstance(u[2], str) and "Findings" in u[2]]
    assert streamed, "the report was shown while the LLM wrote it"
    assert state["mode"] == "llm" and "## Findings" in state["report_markdown"]
    sent = llm.prompts
    assert not any(prompts.RELEVANCE_SYSTEM[:60] in p for p in sent), "relevance was set to no LLM"
    assert any(prompts.EXTRACTION_SYSTEM[:60] in p for p in sent) and any(prompts.REPORT_RULES[:60] in p for p in sent)
    assert all(s["verdict"] == "unjudged" for s in state["sources"])
    assert re_link(report), report


def re_link(report: str) -> bool:
    """An [n] opens its evidence, and the evidence links to the page at the quoted text (issue 22; before, the
    [n] linked to the page itself)."""
    import re
    return bool(re.search(r'<a href="#web-evidence-\d+"[^>]*>\[\d+\]</a>', report)) and bool(
        re.search(r'<a href="http://127\.0\.0\.1:\d+/web/[^"#]*#:~:text=[^"]+"', report))


def test_answer_lists_the_sources_it_cites_first_then_those_read_but_not_cited():
    """Issue 22 item 7 (before: the uncited sources were left out of the list under the answer)."""
    from App_Function_Libraries.Gradio_UI.answer_view import answer_html
    refs = [SourceRef(1, "One", "https://one.example"), SourceRef(2, "Two", "https://two.example")]
    text = answer_html("Only the second [2].", refs, "wiki")
    assert text.index("https://two.example") < text.index("Read but not cited") < text.index("https://one.example")
    assert "https://one.example" in answer_html("No citation at all.", refs, "wiki")


def two_llms(make_settings, base_url: str = "http://127.0.0.1:9/v1", **sections):
    """[llm] on small-model, [llm_final_answer] on big-model (same server), plus other `sections`."""
    return make_settings({"llm": {"provider": "openai", "base_url": base_url, "model": "small-model"},
                          "llm_final_answer": {"model": "big-model"}, **sections})


def test_each_role_offers_the_llms_the_config_defines(make_settings):
    settings = two_llms(make_settings)
    assert wp.llm_choices(settings, "subquery") == [
        ("as configured — openai: small-model", wp.CONFIGURED), ("openai: big-model — [llm_final_answer]",
                                                                "llm_final_answer"),
        ("no LLM (extractive)", wp.NO_LLM)]
    assert wp.llm_choices(settings, "final_answer")[:2] == [("as configured — openai: big-model", wp.CONFIGURED),
                                                             ("openai: small-model — [llm]", "llm")]
    assert list(wp.llm_profiles(settings)) == ["llm", "llm_final_answer"]  # the same LLM is offered once
    assert wp.llm_choices(make_settings({}), "extraction") == [  # nothing configured: no other choice
        ("as configured — none configured (extractive)", wp.CONFIGURED), ("no LLM (extractive)", wp.NO_LLM)]


def test_the_llm_chosen_for_a_role_is_used_for_that_run_only(make_settings):
    settings = two_llms(make_settings)
    choices = form(settings, llm_extraction="llm_final_answer", llm_final_answer="llm", llm_relevance=wp.NO_LLM)
    params = wp.build_params(settings, choices)
    services = wp.build_services(settings, choices, params)
    models = {role: client and client.settings.model for role, client in services.llms.items()}
    assert models == {"subquery": "small-model", "relevance": None, "extraction": "big-model",
                      "final_answer": "small-model"}
    assert settings.llm_for("extraction").model == "small-model" and settings.llm_for("final_answer").model == \
        "big-model"
    again = wp.build_services(settings, form(settings), params)
    assert again.llms["extraction"].settings.model == "small-model"
    assert again.llms["final_answer"].settings.model == "big-model"
    with pytest.raises(ValueError, match=r"the LLM \[llm_subquery\] chosen for the report is not in the config"):
        wp.build_services(settings, form(settings, llm_final_answer="llm_subquery"), params)


def test_a_profile_chosen_for_a_role_does_its_work_in_the_pipeline(make_settings, world):
    from App_Function_Libraries.Gradio_UI.web_search_tab import run_search
    from App_Function_Libraries.LLM import prompts
    from Tests.support.mini_web import MiniWeb
    from Tests.support.openai_server import ScriptedLLM
    from Tests.support.research_llm import script_research
    web = MiniWeb(world, include_faults=False).install()
    llm = script_research(ScriptedLLM(models=["small-model", "big-model"]),
                          topic_words=("bee", "honey", "dance")).install(world)
    settings = two_llms(make_settings, world.url("/v1"), engines={"searxng_api_url": web.search_base},
                        research={"use_embeddings": "false"})
    values = form(settings, engines=["searxng"], subqueries=False, relevance=False, pages_max=3, exact_terms="",
                  exclude_terms="", blacklist="", llm_extraction="llm_final_answer", llm_final_answer="llm")
    final = list(run_search("How do honey bees communicate where flowers are?",
                            *[values[name] for name in OPTION_NAMES]))[-1]
    assert final[4]["mode"] == "llm"
    model_of = {prompt: body["model"] for prompt, body in zip(llm.prompts, llm.bodies)}
    extraction = {m for p, m in model_of.items() if prompts.EXTRACTION_SYSTEM[:60] in p}
    report = {m for p, m in model_of.items() if prompts.REPORT_RULES[:60] in p}
    assert extraction == {"big-model"} and report == {"small-model"}


def test_an_answer_with_no_relevant_passage_says_so_under_it():
    from App_Function_Libraries.Gradio_UI.wikipedia_tab import answer_view as wiki_view
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    from App_Function_Libraries.records import Answer
    none = WikiAsked("What is the capital of Mongolia?", Answer("The index has no passage that answers this.",
                                                                "not_answered", "none"), timings={"search": 0.01})
    assert "<em>Not answered · search 0.01 s</em>" in wiki_view(none)
    assert "<em>Extractive answer · search 0.01 s</em>" in wiki_view(WikiAsked("Q", Answer("A"),
                                                                               timings={"search": 0.01}))


# ---------------------------------------------------------------- issue 22 item 6: answer first

def carded_result() -> ResearchResult:
    from App_Function_Libraries.records import Citation
    paper = Paper(authors=["Ada Bee", "Karl Frisch"], year=1967)
    return ResearchResult(question="How do bees dance?", mode="extractive", report_markdown="Bees dance [2].", sources=[
        Source("Read <b>only</b>", "https://read.example/a", n=1, fetched=True, verdict="relevant"),
        Source("The waggle dance", "https://arxiv.org/abs/1", n=2, fetched=True, verdict="relevant", kind="paper",
               paper=paper),
        Source("Never read", "https://skip.example/", verdict="irrelevant")],
        citations=[Citation(2, "Bees dance [2].", "https://arxiv.org/abs/1", "Bees dance.", verdict="supported")])


def test_source_cards_list_cited_first_with_site_or_authors_kind_verdict_and_escaped_text():
    cards = view.source_cards_html(carded_result())
    assert cards.index("The waggle dance") < cards.index("Read &lt;b&gt;only&lt;/b&gt;")  # cited first, escaped
    assert "<b>only</b>" not in cards and "Never read" not in cards  # a result not read is in the table only
    assert "Ada Bee, Karl Frisch, 1967 · paper · relevance relevant" in cards and "cited: supported" in cards
    assert "read.example · web · relevance relevant" in cards and "read, not cited" in cards
    assert f'<a href="https://read.example/a"{EXTERNAL}>' in cards
    assert view.source_cards_html(ResearchResult(question="q")) == ""


def test_a_finished_report_folds_the_search_options_and_shows_its_cards(make_settings):
    from App_Function_Libraries.Gradio_UI import web_search_tab as tab
    make_settings({})
    values = tab.result_values(carded_result())
    assert len(values) == tab.RESULT_OUTPUTS
    cards, fold = values[-tab.TAIL:]
    assert "The waggle dance" in cards and fold == {"__type__": "update", "open": False}


def test_cancel_shows_only_while_a_run_is_running(make_settings):
    from App_Function_Libraries.Gradio_UI import web_search_tab as tab
    settings = make_settings({})

    def work(on_progress, cancel, on_delta):
        on_progress(event("search", 0, 1))
        cancel.wait(0.3)
        return carded_result()
    updates = list(tab.stream_outputs(work, settings))
    assert all(len(u) == 2 + tab.RESULT_OUTPUTS + 1 for u in updates)
    assert [u[-1]["visible"] for u in updates[:-1]] and all(u[-1]["visible"] for u in updates[:-1])
    assert updates[-1][-1]["visible"] is False

    def failing(on_progress, cancel, on_delta):
        on_progress(event("search", 0, 1))
        cancel.wait(0.3)
        raise RuntimeError("engine broke")
    shown = []
    with pytest.raises(RuntimeError):
        for update in tab.stream_outputs(failing, settings):
            shown.append(update[-1]["visible"])
    assert shown[0] is True and shown[-1] is False  # a failed run hides Cancel too


def test_the_report_does_not_list_its_sources_again_the_cards_do():
    """Issue 22 item 2: the sources show once, as cards (cited first), not also as a list under the report
    (before: the report listed them, "Read but not cited" included, above the same sources' cards)."""
    from App_Function_Libraries.records import Citation
    result = ResearchResult(question="q", report_markdown="Only the second [2].", sources=[
        Source("One", "https://one.example/", n=1, fetched=True), Source("Two", "https://two.example/", n=2,
                                                                          fetched=True)],
        citations=[Citation(2, "Only the second [2].", "https://two.example/", "Second.", verdict="supported")])
    report = view.report_html(result)
    assert "https://one.example/" not in report and "Read but not cited" not in report
    assert 'href="#web-evidence-0"' in report  # the [n] still opens its evidence
    cards = view.source_cards_html(result)
    assert cards.index('id="web-source-2"') < cards.index('id="web-source-1"')  # cited first
    assert [row[3] for row in view.source_rows(result)] == ["https://two.example/", "https://one.example/"]


@pytest.mark.parametrize("mode, label", [("none", "Not answered · 0 cited"), ("extractive", "Extractive report · 0"),
                                         ("llm", "LLM report · 0")])
def test_the_footer_says_how_the_report_was_made_and_a_report_answering_nothing_is_not_called_extractive(
        mode, label):
    result = ResearchResult(question="q", report_markdown="The sources read do not answer this question.",
                            mode=mode)
    assert label in view.report_html(result)
