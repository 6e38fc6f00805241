"""Stage 1: the question split into diverse search queries by the LLM (`analyze_question`).

The answer must be a JSON array of strings; it is parsed strictly and asked for up to 3 times, then the
question itself is used. Queries are de-duplicated (case and spacing ignored) and capped.
"""
from __future__ import annotations

import re

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient
from App_Function_Libraries.LLM.structured import StructuredOutputError, after_tries, ask_structured, parse_string_list

TRIES = 3
MAX_QUERY_CHARS = 300


def normalize_query(query: str) -> str:
    return re.sub(r"\s+", " ", query).strip().strip("\"'").strip()


def dedupe_queries(queries: list[str], exclude: list[str] | None = None) -> list[str]:
    """Queries in order without repeats (case, spacing and end punctuation ignored) or excluded ones."""
    seen = {normalize_query(q).lower().rstrip("?.!") for q in (exclude or [])}
    out: list[str] = []
    for q in queries:
        q = normalize_query(q)[:MAX_QUERY_CHARS]
        key = q.lower().rstrip("?.!")
        if key and key not in seen:
            seen.add(key)
            out.append(q)
    return out


def run_queries(question: str, sub_queries: list[str], most: int) -> list[str]:
    """What a run searches: the question and its sub-queries, without repeats, at most `most` (max_queries)."""
    return dedupe_queries([question] + list(sub_queries))[:most]


def _parse_queries(text: str) -> list[str]:
    queries = parse_string_list(text, key_names=("queries", "items", "search_queries"))
    if not dedupe_queries(queries):
        raise StructuredOutputError("no usable query in the array")
    return queries


def analyze_question(question: str, llm: LLMClient | None, max_count: int,
                     previous_queries: list[str] | None = None, previous_answer: str = "") -> tuple[list[str], str]:
    """(sub-queries, problem). Without an LLM, or when every try fails, the sub-queries are [question] and
    problem says why (empty when all went well)."""
    question = normalize_query(question)
    if llm is None:
        return [question], ""
    messages = prompts.subquery_messages(question, max_count, previous_queries, previous_answer)
    failure: list[str] = []

    def fallback(exc: Exception) -> list[str]:
        failure.append(f"sub-queries: the LLM gave no usable list{after_tries(exc, TRIES)} ({exc}); "
                       "searched the question itself")
        return [question]

    queries, _ok = ask_structured(llm, messages, _parse_queries, tries=TRIES, fallback=fallback,
                                  temperature=llm.settings.temperature, json_mode=False)
    queries = dedupe_queries(queries, exclude=previous_queries)[:max_count] or [question]
    return queries, (failure[0] if failure else "")
