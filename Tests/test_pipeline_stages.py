"""The pipeline's stages one by one: sub-queries, relevance parsing, passage ranking, numbering, citation
verification and the extractive brief, the report prompt's options, and the research command's arguments."""
from __future__ import annotations


import pytest

from App_Function_Libraries.config import LLMSettings
from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.registry import make_client
from App_Function_Libraries.LLM.structured import StructuredOutputError
from App_Function_Libraries.Research.report import (NO_EVIDENCE, extractive_brief, number_sources,
                                                         verify_report)
from App_Function_Libraries.Research.rank import RankSettings, passages_of, rank_pages
from App_Function_Libraries.Research.relevance import parse_verdicts
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.records import Passage, Source
from App_Function_Libraries.Research.subqueries import analyze_question, dedupe_queries
from Tests.support.deadline import finishes_within
from Tests.support.openai_server import ScriptedLLM


def client_for(world, llm: ScriptedLLM):
    llm.install(world)
    return make_client(LLMSettings(provider="openai", base_url=world.url("/v1"), model="test-model",
                                   max_retries=0, timeout_seconds=5), "subquery")


# ---------------------------------------------------------------- stage 1

def test_subqueries_deduplicated_and_capped(world):
    llm = ScriptedLLM(default='["Bee dance", "bee  dance?", "waggle run", "How do bees talk?", "hive", "scent"]')
    queries, problem = analyze_question("How do bees talk?", client_for(world, llm), max_count=3)
    assert queries == ["Bee dance", "waggle run", "How do bees talk?"] and problem == ""


def test_subqueries_accept_an_object_and_skip_previous_queries(world):
    llm = ScriptedLLM(default='{"queries": ["bee dance", "pollen"]}')
    queries, _ = analyze_question("bees", client_for(world, llm), 5, previous_queries=["Bee dance"],
                                  previous_answer="Bees dance [1].")
    assert queries == ["pollen"]
    assert "do not repeat" in llm.prompts[0] and "<<<DATA-" in llm.prompts[0]


def test_subqueries_without_llm_are_the_question():
    assert analyze_question("  What is  a waggle dance? ", None, 5) == (["What is a waggle dance?"], "")


def test_dedupe_queries_ignores_case_space_and_end_punctuation():
    assert dedupe_queries(["A b", "a  B?", " ", "c"], exclude=["C."]) == ["A b"]


# ---------------------------------------------------------------- stage 3

def test_parse_verdicts_strictly():
    ok = parse_verdicts('{"verdicts": [{"id": 1, "relevant": true, "reason": "yes"}, '
                        '{"id": "2", "relevant": "no", "reason": "off topic"}]}', [1, 2])
    assert ok[1].relevant is True and ok[2].relevant is False and ok[2].reason == "off topic"
    assert parse_verdicts('[{"id": 1, "relevant": false}]', [1])[1].relevant is False
    for bad in ('{"verdicts": [{"id": 1, "relevant": true}]}',  # id 2 missing
                '{"verdicts": [{"id": 3, "relevant": true}, {"id": 1, "relevant": true}]}',  # unknown id
                '{"verdicts": [{"id": 1, "relevant": "maybe"}, {"id": 2, "relevant": true}]}',
                'Relevant: yes'):
        with pytest.raises(StructuredOutputError):
            parse_verdicts(bad, [1, 2])


# ---------------------------------------------------------------- stages 4-6 as one stream

def test_an_unexpected_failure_on_one_page_is_its_error_and_the_stream_goes_on(world):
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.page_stream import StreamConfig, read_pages
    from Tests.support.mini_web import MiniWeb

    def resolver(host: str, port: int) -> list[str]:  # a DNS library failing in a way nobody planned for
        if host == "broken.test":
            raise RuntimeError("resolver crashed")
        return ["127.0.0.1"]

    web = MiniWeb(world, include_faults=False).install()
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, total_timeout_seconds=3), resolver=resolver)
    good = Source("Waggle", web.url("bees/waggle-dance"))
    broken = Source("Round", f"http://broken.test:{world.port}/web/bees/round-dance")
    cfg = StreamConfig("How do bees point to food?", fetcher, RankSettings(3, 20, 80))
    finishes_within(10, lambda: read_pages([broken, good], cfg))
    assert not broken.fetched and broken.error == ("could not read the page: unexpected RuntimeError "
                                                   "(resolver crashed)")
    assert good.fetched and good.passages and "waggle" in good.notes


def test_a_page_whose_text_extraction_never_ends_is_given_up_at_its_deadline(world, monkeypatch):
    """Anything stuck in one page's loading (simulated: reading its text blocks in-process) costs that page,
    not the run: the stream's own deadline backs up the parse worker's."""
    import threading

    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research import page_stream
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.page_stream import StreamConfig, read_pages
    from Tests.support.mini_web import MiniWeb

    release = threading.Event()
    real_read = page_stream.read_page_text

    def read(body, content_type, charset, url, settings, on_start=None, cancel=None):
        if "round-dance" in url:
            on_start()
            release.wait(30)
        return real_read(body, content_type, charset, url, settings, on_start, cancel)

    monkeypatch.setattr(page_stream, "read_page_text", read)
    web = MiniWeb(world, include_faults=False).install()
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, total_timeout_seconds=1,
                                        extract_timeout_seconds=1))
    stuck, good = Source("Round", web.url("bees/round-dance")), Source("Waggle", web.url("bees/waggle-dance"))
    try:
        finishes_within(8, lambda: read_pages([stuck, good], StreamConfig("How do bees point to food?", fetcher,
                                                                         RankSettings(3, 20, 80))))
    finally:
        release.set()
    assert not stuck.fetched and stuck.error.startswith("gave up after 1 s reading the page's text")
    assert good.fetched and good.passages


def test_fetch_is_the_download_and_extract_the_text_each_counted_and_timed(world, monkeypatch):
    """"fetch" ends when the download does; reading the text out of it is "extract", then "rank" and the page
    "notes" (here without an LLM: its top passages)."""
    import time

    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research import page_stream
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.page_stream import StreamConfig, read_pages
    from Tests.support.mini_web import MiniWeb

    events, seen_at_extraction = [], []
    real_read = page_stream.read_page_text

    def read(*args, **kwargs):  # the text extraction, made to take a while
        seen_at_extraction.append(list(events))
        time.sleep(0.3)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(page_stream, "read_page_text", read)
    web = MiniWeb(world, include_faults=False).install()
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, total_timeout_seconds=3))
    page = Source("Waggle", web.url("bees/waggle-dance"))
    cfg = StreamConfig("How do bees point to food?", fetcher, RankSettings(3, 20, 80),
                       progress=lambda stage, done, total: events.append((stage, done, total)))
    report = finishes_within(10, lambda: read_pages([page], cfg))
    assert seen_at_extraction == [[("fetch", 1, 1)]]  # the download was done and counted before the text
    assert events == [("fetch", 1, 1), ("extract", 1, 1), ("rank", 1, 1), ("notes", 1, 1)]
    assert set(report.timings) == {"fetch", "extract", "rank"} and report.timings["extract"] >= 0.3
    assert page.fetched and page.notes == "\n\n".join(p.text for p in page.passages)


def test_pages_waiting_for_a_download_slot_are_not_given_up(world):
    """The extraction deadline starts when a download ends: four slow pages through one slot, each well
    within its own limits, all get read although the last waits 2.1 s for its turn."""
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.page_stream import StreamConfig, read_pages
    from Tests.support.mini_web import MiniWeb

    web = MiniWeb(world, include_faults=False).install()
    paths = ["bees/waggle-dance", "bees/round-dance", "bees/history", "bees/sun-compass"]
    for path in paths:
        world.fault("/web/" + path, delay=0.7)
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, total_timeout_seconds=1.5,
                                        extract_timeout_seconds=1, concurrency=1))
    pages = [Source(p, web.url(p)) for p in paths]
    finishes_within(15, lambda: read_pages(pages, StreamConfig("How do bees point to food?", fetcher,
                                                               RankSettings(3, 20, 80))))
    assert [(p.fetched, p.error) for p in pages] == [(True, "")] * 4


STUCK_PARSER_RUN = """
import sys, threading, time
from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.Research import page_stream
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.rank import RankSettings
from App_Function_Libraries.records import Source
from Tests.support.mini_web import MiniWeb
from Tests.support.testworld import TestWorld

world = TestWorld().start()
web = MiniWeb(world, include_faults=False).install()
real = page_stream.read_page_text
def read(body, content_type, charset, url, settings, on_start=None, cancel=None):
    if "round-dance" in url:
        on_start()
        threading.Event().wait()  # a page whose loading never returns
    return real(body, content_type, charset, url, settings, on_start, cancel)
page_stream.read_page_text = read
fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, extract_timeout_seconds=0.5))
pages = [Source("Round", web.url("bees/round-dance")), Source("Waggle", web.url("bees/waggle-dance"))]
page_stream.read_pages(pages, page_stream.StreamConfig("How do bees point to food?", fetcher,
                                                      RankSettings(3, 20, 80)))
print(pages[0].error[:13], pages[1].fetched, flush=True)
world.stop()
"""


def test_a_process_with_a_stuck_parser_still_exits():
    """The thread stuck in a parser cannot be stopped, but it must not keep `app.py research` from exiting."""
    import subprocess
    import sys
    from pathlib import Path
    out = subprocess.run([sys.executable, "-c", STUCK_PARSER_RUN], cwd=Path(__file__).resolve().parent.parent,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["gave", "up", "after", "True"]


class _BrokenEmbedder:
    """An embedding model that fails as a real one does when memory runs out."""

    def encode(self, texts):
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:116] DefaultCPUAllocator: not enough memory")

    def encode_query(self, text):
        return self.encode([text])[0]


def test_a_failing_embedding_model_falls_back_to_bm25_and_the_run_goes_on(world):
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.page_stream import StreamConfig, read_pages
    from Tests.support.mini_web import MiniWeb

    web = MiniWeb(world, include_faults=False).install()
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, total_timeout_seconds=3))
    pages = [Source("Waggle", web.url("bees/waggle-dance")), Source("Round", web.url("bees/round-dance"))]
    cfg = StreamConfig("How do bees point to food?", fetcher, RankSettings(3, 20, 80), embedder=_BrokenEmbedder())
    report = finishes_within(10, lambda: read_pages(pages, cfg))
    assert all(p.fetched and p.passages and p.notes for p in pages)
    assert any(p.startswith("passage ranking fell back to BM25 alone: RuntimeError") for p in report.problems)


# ---------------------------------------------------------------- stage 5

PAGE = ("Bee dances\n\nThe waggle dance tells other bees the direction of food relative to the sun. "
        "Its duration tells them the distance.\n\nHives are often painted white. Beekeepers wear veils and "
        "gloves when they open a hive.\n\nCookies help us improve this site. Accept all cookies to continue.")


def test_rank_pages_puts_the_answering_passage_first_and_keeps_top_k():
    settings = RankSettings(top_k=2, min_words=5, max_words=30)
    [ranked, empty] = rank_pages("how does the waggle dance show direction", [PAGE, ""], settings)
    assert len(ranked) == 2 and "direction of food" in ranked[0].text and ranked[0].score >= ranked[1].score
    assert empty == []


def test_a_heading_keeps_a_line_of_its_own_in_its_passage():
    rank = RankSettings(5, 10, 100)
    assert passages_of("Bee dances (summary)\n\nThe dance points.", rank) == ["Bee dances (summary)\nThe dance points."]
    assert passages_of("Why do bees dance?\n\nThey do.", rank) == ["Why do bees dance? They do."]


# ---------------------------------------------------------------- stage 7

def sources() -> list[Source]:
    a = Source("Waggle", "http://a.test/1", passages=[Passage("The waggle dance points the other bees of the hive to food."),
                                                     Passage("Dances last longer when the food is further away from the hive.")],
               notes="notes a", content_hash="ha", fetched=True)
    unread = Source("Broken", "http://b.test/2", failure="HTTP 500")
    b = Source("Scent", "http://c.test/3", passages=[Passage("Bees find nearby flowers mostly by the scent the dancer carries.")],
               notes="notes b", content_hash="hb", fetched=True)
    c = Source("Veils", "http://d.test/4", passages=[Passage("Beekeepers wear veils and gloves to avoid painful stings at the hive.")],
               notes="notes c", content_hash="hc", fetched=True)
    return [a, unread, b, c]


def test_sources_numbered_in_the_order_given_skipping_unread_ones():
    srcs = sources()
    number_sources(srcs)
    assert [s.n for s in srcs] == [1, None, 2, 3]


def test_verify_removes_invalid_collapses_repeats_and_expands_ranges():
    srcs = sources()
    number_sources(srcs)
    md = ("Bees dance to show food [1, 1]. Nearby flowers are found by scent [2, 7]. "
          "Both signals matter [1-2]. Veils are worn [9]. Dancing and scent [1, 2].")
    check = verify_report(md, srcs)
    assert check.invalid_removed == 2
    assert "[7]" not in check.markdown and "[9]" not in check.markdown and "[1, 1]" not in check.markdown
    assert "Veils are worn." in check.markdown
    pairs = [(c.sentence, c.n) for c in check.citations]
    assert ("Bees dance to show food.", 1) in pairs and pairs.count(("Both signals matter.", 2)) == 1
    assert ("Dancing and scent.", 1) in pairs and ("Dancing and scent.", 2) in pairs
    assert check.uncited == [3]
    first = next(c for c in check.citations if c.n == 1)
    assert first.quote == "The waggle dance points the other bees of the hive to food." and first.content_hash == "ha"


def test_extractive_brief_groups_cited_sentences_by_sub_question():
    srcs = sources()
    srcs[0].passages.append(Passage("Von Frisch first described how the waggle dance works in detail.[12]"))
    number_sources(srcs)
    brief = extractive_brief("How do bees find food?", ["waggle dance direction", "bee scent flowers"], srcs)
    assert "### waggle dance direction" in brief and "### bee scent flowers" in brief
    assert "[12]" not in brief  # the page's own footnote mark is not a citation
    check = verify_report(brief, srcs)
    assert check.invalid_removed == 0 and check.citations
    assert extractive_brief("q", ["q"], [Source("x", "http://x")]) == NO_EVIDENCE


def test_extractive_brief_without_sub_queries_is_grouped_by_the_parts_of_the_question():
    srcs = sources()
    number_sources(srcs)
    brief = extractive_brief("How do bees find food, and how do beekeepers avoid stings?", [], srcs)
    brief = brief[brief.index("###"):]  # issue 22: the lead answer comes first, then the parts' sections
    food, stings = brief.split("### how do beekeepers avoid stings")
    assert "### How do bees find food\n" in food and "food" in food.split("###", 2)[1]
    assert "Beekeepers wear veils" in stings and "Beekeepers wear veils" not in food
    single = extractive_brief("How do bees find food?", [], srcs)
    assert "###" not in single and "[1]" in single


def test_without_an_llm_each_part_of_the_question_is_searched_and_heads_the_brief(world, make_settings):
    from App_Function_Libraries.Research.pipeline import process_question
    from Tests.support.mini_web import MiniWeb, research_config
    web = MiniWeb(world, include_faults=False).install()
    make_settings(research_config(web))
    question = "How do honey bees communicate the location of food, and how do sourdough bakers feed a starter?"
    result = process_question(question, ResearchParams.from_settings(follow_up_count=0))
    parts = ["How do honey bees communicate the location of food", "how do sourdough bakers feed a starter"]
    assert result.mode == "extractive" and result.sub_queries == parts
    searched = [r.arg("q") for r in world.requests_to("/searxng/search")]
    assert question in searched and all(p in searched for p in parts)
    sections = result.report_markdown[result.report_markdown.index("###"):]  # after the lead answer (issue 22)
    bees, bread = sections.split(f"### {parts[1]}")
    assert f"### {parts[0]}" in bees and "starter" in bread.lower() and "starter" not in bees.lower()
    assert result.citations and result.invalid_citations_removed == 0


def test_extractive_brief_follows_format_and_length_and_says_it_cannot_translate():
    from App_Function_Libraries.Research.report import ReportOptions
    srcs = sources()
    number_sources(srcs)
    groups = ["waggle dance direction", "bee scent flowers"]
    table = extractive_brief("How do bees find food?", groups, srcs, options=ReportOptions(report_format="table"))
    assert "| Part of the question | Finding |" in table and "| waggle dance direction |" in table
    short = extractive_brief("How do bees find food?", groups, srcs,
                             options=ReportOptions(report_format="short", length_words=50))
    body = short.split("\n\n", 1)[1]
    assert "\n" not in body and "###" not in body and len(body.split()) < 80
    for brief in (table, short):
        check = verify_report(brief, srcs)
        assert check.invalid_removed == 0 and check.citations
    german = extractive_brief("How do bees find food?", groups, srcs, options=ReportOptions(report_language="de"))
    assert "without an LLM Quarry cannot translate them into German" in german and "(in English)" in german
    assert "translate" not in extractive_brief("How do bees find food?", groups, srcs)


def test_short_brief_answers_from_the_part_that_clears_and_names_the_part_that_does_not():
    from App_Function_Libraries.Research.report import ReportOptions, write_brief
    srcs = sources()
    number_sources(srcs)
    question = "How do bees find food, and how do sourdough bakers feed a starter?"
    short_md = extractive_brief(question, [], srcs, options=ReportOptions(report_format="short"))
    assert short_md != NO_EVIDENCE and "No source could be read" not in short_md  # the sources were read
    full = write_brief(question, [], srcs)
    _, unanswered, closest = write_brief(question, [], srcs, options=ReportOptions(report_format="short"))
    body = short_md.split("\n\n", 1)[1]
    assert "\n" not in body and "[2]" in body and "sourdough bakers feed a starter" in body
    assert unanswered == full[1] == ["how do sourdough bakers feed a starter"] and closest == []
    check = verify_report(short_md, srcs)
    assert check.invalid_removed == 0 and check.citations


@pytest.mark.parametrize("question,part", [
    ("How do bees find food, and how do sourdough bakers feed a starter?", "How do bees find food"),  # one clears
    ("How do bees find food, and how do beekeepers avoid stings?", "how do beekeepers avoid stings")])  # both
def test_bullets_table_and_short_say_the_lead_once_and_full_keeps_it_under_its_heading(question, part):
    from App_Function_Libraries.Research.report import ReportOptions
    srcs = sources()
    number_sources(srcs)
    briefs = {f: extractive_brief(question, [], srcs, options=ReportOptions(report_format=f))
              for f in ("full", "short", "bullets", "table")}
    lead = briefs["full"].split("\n\n")[1]  # the full layout: the lead on its own line, then the headed groups
    assert lead.endswith("]") and f"### {part}\n" in briefs["full"]
    sentence = lead.rsplit(" [", 1)[0]
    assert briefs["full"].count(sentence) == 2  # the lead, and again under the heading of the part it answers
    for f in ("short", "bullets", "table"):
        assert briefs[f].count(sentence) == 1, f
    rows = [r for r in briefs["table"].splitlines() if r.startswith("| ")][1:]
    assert len(rows) == len(set(rows)) and rows[0].startswith(f"| {part} | {sentence}")  # the part it answers
    items = [line for line in briefs["bullets"].splitlines() if line.startswith("- ")]
    assert len(items) == len(set(items)) >= 2 and items[0].startswith(f"- {sentence}")
    for f, brief in briefs.items():
        check = verify_report(brief, srcs)
        assert check.invalid_removed == 0 and check.citations, f


def test_a_brief_that_answers_nothing_hands_its_closest_passages_on_as_data_in_every_format():
    from App_Function_Libraries.Research.report import ReportOptions, not_answered_report, write_brief
    srcs = sources()
    number_sources(srcs)
    question = "Why do bees sting hive intruders at night?"
    said, closest = not_answered_report(question, srcs)
    assert said and len(closest) == 3
    for fmt in ("full", "short", "bullets", "table"):
        assert write_brief(question, [], srcs, options=ReportOptions(report_format=fmt)) == (said, [], closest)
    answered = write_brief("How do bees find food?", [], srcs, options=ReportOptions(report_format="short"))
    assert answered[0] != said and answered[2] == []  # control: an answer carries no closest passages


# ---------------------------------------------------------------- prompts and parameters

def test_report_prompt_options_and_the_template_keep_the_citation_rules():
    system = prompts.report_system("academic", "table", 300, prompts.language_instruction("German"))
    assert "Tone: academic." in system and prompts.REPORT_FORMATS["table"] in system and "300 words" in system
    assert "Write in German." in system and system.endswith(prompts.REPORT_RULES)
    template = "Write a limerick about {question} using {sources} and nothing else; {tone}/{length}."
    messages = prompts.report_messages("bees {sources}?", ["<<<DATA-T1 source 1\nhi\nDATA-T1>>>"], "T1",
                                       system, template, options={"tone": "academic", "length": "300 words"})
    user = messages[1].content
    assert user.startswith(prompts.untrusted_notice("T1"))
    assert "Write a limerick about bees {sources}? using <<<DATA-T1 source 1" in user  # one pass, not re-read
    assert "academic/300 words." in user and messages[0].content == system


def test_params_round_trip_and_search_options(make_settings):
    settings = make_settings({"search": {"search_provider_default": "brave", "search_result_max": 7}})
    params = ResearchParams.from_settings(settings, safesearch="strict", exact_terms=["waggle dance"])
    assert params.engines == ["brave"] and params.result_max == 7
    assert params.search_options() == {"safesearch": "strict", "exactTerms": ["waggle dance"]}
    assert ResearchParams.from_dict(params.to_dict()) == params


def test_research_command_rejects_an_unknown_engine(make_settings):
    from App_Function_Libraries.CLI.main import build_parser
    from App_Function_Libraries.CLI.research_command import build_params
    args = build_parser().parse_args(["research", "bees?", "--engine", "searxng,altavista"])
    with pytest.raises(ValueError, match="altavista"):
        build_params(args, make_settings())


def test_the_same_page_under_two_urls_is_numbered_once():
    srcs = sources()
    twin = Source("Waggle (short link)", "http://short.test/w", passages=list(srcs[0].passages),
                  notes="notes a", content_hash="ha", fetched=True, final_url="http://a.test/1")
    srcs.insert(1, twin)
    number_sources(srcs)
    assert [s.n for s in srcs] == [1, None, None, 2, 3]
    assert twin.error == "same page as source [1] (http://a.test/1)"
