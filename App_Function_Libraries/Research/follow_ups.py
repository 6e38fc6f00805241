"""Follow-up questions after a report, and the parameters of a research that follows up on an earlier one.

With an LLM: up to 5 short questions about what the report leaves open (a JSON array, parsed strictly,
asked up to 3 times when the answer cannot be parsed). Without one, or when that fails: the sub-questions
(or parts of the question) whose passages scored lowest (see coverage.py), written as questions, less the parts
an extractive answer answered under their own heading; a single question that the passages cover gets none (a
bag of its missing words reads as noise, not as a question worth asking).

A follow-up research carries the earlier run's queries and answer (`follow_up_params`), so its sub-query
step searches for what the earlier answer lacked instead of repeating it.
"""
from __future__ import annotations

import dataclasses

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMUnavailable
from App_Function_Libraries.LLM.structured import StructuredOutputError, after_tries, ask_structured, parse_string_list
from App_Function_Libraries.Research import coverage
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.records import ResearchResult
from App_Function_Libraries.Research.subqueries import dedupe_queries, normalize_query

MAX_FOLLOW_UPS = 5
MAX_CHARS = 200
TRIES = 3
FULL_SCORE = 0.999
MAX_ANSWER_CHARS = 8000  # an earlier report shown to the model is cut here (small context windows)


def shown_report(markdown: str) -> str:
    """A report as it is shown to a model that plans searches: cut at MAX_ANSWER_CHARS, at a line end."""
    if len(markdown) <= MAX_ANSWER_CHARS:
        return markdown
    cut = markdown[:MAX_ANSWER_CHARS]
    return cut[:cut.rfind("\n")] if "\n" in cut else cut


def searched_queries(result: ResearchResult) -> list[str]:
    """Every query a run searched: its question, its sub-queries and each dig-deeper round's queries."""
    rounds = [q for r in result.rounds for q in r.queries]
    return dedupe_queries([result.question] + list(result.sub_queries) + rounds)


def follow_up_params(previous: ResearchResult, params: ResearchParams | None = None) -> ResearchParams:
    """Parameters for researching a follow-up of `previous`: its options (or `params`), plus what it
    searched and what it answered, for the sub-query step to build on."""
    base = params or ResearchParams.from_dict(previous.params)
    return dataclasses.replace(base, previous_queries=searched_queries(previous),
                               previous_answer=shown_report(previous.report_markdown), follow_up_of=previous.id)


def derived_follow_ups(result: ResearchResult, count: int = MAX_FOLLOW_UPS) -> list[str]:
    """Follow-ups without an LLM: the sub-questions (or parts of the question) the passages cover least, less
    those the extractive answer answered under their own heading."""
    subs = list(result.sub_queries) + [q for r in result.rounds for q in r.queries]
    aspects = coverage.score_aspects(result.question, subs, result.sources)
    answered = answered_parts(result, [a.text for a in aspects])
    weak = [as_question(a.text) for a in aspects if (a.score < FULL_SCORE or a.missing) and a.text not in answered]
    return dedupe_queries(weak, exclude=[result.question])[:count]


def answered_parts(result: ResearchResult, parts: list[str]) -> set[str]:
    """The parts an extractive answer of several parts answered (each under its heading: every part it does
    not name as not answered); none for any other answer, which does not say part by part."""
    if result.mode != "extractive" or len(parts) < 2:
        return set()
    return set(parts) - set(result.unanswered_parts)


QUESTION_WORDS = ("how", "what", "why", "when", "where", "who", "whom", "whose", "which", "is", "are", "was",
                  "were", "do", "does", "did", "can", "could", "should", "would", "will", "has", "have")


def as_question(text: str) -> str:
    """'how do ants find sugar' -> 'How do ants find sugar?'; a search phrase keeps its words as they are; a
    question with words after its question mark ("how do ants find sugar? overview") ends at the mark."""
    text = normalize_query(text).rstrip(" .!")
    text = text[:text.rindex("?") + 1] if "?" in text else text
    if not text:
        return text
    text = text[0].upper() + text[1:]
    asks = text.split()[0].lower() in QUESTION_WORDS
    return text + "?" if asks and not text.endswith("?") else text


def _parse_questions(text: str) -> list[str]:
    items = [normalize_query(q)[:MAX_CHARS] for q in parse_string_list(text, key_names=("questions", "items"))]
    items = [q for q in items if len(q.split()) >= 2]
    if not items:
        raise StructuredOutputError("no usable question in the array")
    return items


def suggest_follow_ups(result: ResearchResult, llm: LLMClient | None,
                       count: int = MAX_FOLLOW_UPS) -> tuple[list[str], str]:
    """(up to `count` follow-up questions, problem); problem says why the LLM's were not used ('' if fine)."""
    count = max(0, min(count, MAX_FOLLOW_UPS))
    if count == 0:
        return [], ""
    if llm is None or not result.report_markdown.strip():
        return derived_follow_ups(result, count), ""
    failure: list[str] = []

    def fallback(exc: Exception) -> list[str]:
        failure.append(f"follow-ups: the LLM gave no usable list{after_tries(exc, TRIES)} ({exc}); "
                       "suggested the least covered sub-questions instead")
        return derived_follow_ups(result, count)

    messages = prompts.follow_up_messages(result.question, shown_report(result.report_markdown), count,
                                          prompts.new_data_tag())
    try:
        questions, _ok = ask_structured(llm, messages, _parse_questions, tries=TRIES, fallback=fallback,
                                        temperature=llm.settings.temperature, json_mode=False)
    except LLMUnavailable:  # the run gave up on the server and says so once
        return derived_follow_ups(result, count), ""
    return dedupe_queries(questions, exclude=[result.question])[:count], (failure[0] if failure else "")
