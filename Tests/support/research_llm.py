"""A scripted research model for the test world's OpenAI-compatible server: it answers the pipeline's four
kinds of prompt (sub-queries, relevance batches, page notes, the report) by reading the prompt it receives,
the way a small obedient model would. Nothing is hard-coded per page: verdicts come from topic words in each
result, notes quote the page's own sentences, and the report cites the numbered sources it was given.

    llm = ScriptedLLM(); script_research(llm, topic_words=("bee", "honey")); llm.install(world)
"""
from __future__ import annotations

import json
import re

from App_Function_Libraries.LLM import prompts
from Tests.support.openai_server import ScriptedLLM

DATA_BLOCK = re.compile(r"^<<<DATA-(\w+) ?([^\n]*)\n(.*?)\nDATA-\1>>>", re.DOTALL | re.MULTILINE)


def data_blocks(prompt: str) -> list[tuple[str, str]]:
    """(label, text) of every data block in a prompt."""
    return [(m.group(2), m.group(3)) for m in DATA_BLOCK.finditer(prompt)]


def outside_data(prompt: str) -> str:
    """The prompt with every data block removed: what the model is told outside the delimiters."""
    return DATA_BLOCK.sub("", prompt)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if len(s.split()) >= 6]


DEFAULT_FOLLOW_UPS = ["Which findings are still disputed?", "How were these measurements made?",
                      "Who first described this?"]


def script_research(llm: ScriptedLLM, topic_words: tuple[str, ...], sub_queries: list[str] | None = None,
                    invalid_citation: int | None = 99, follow_ups: list[str] | None = None,
                    gap_queries: list[list[str]] | None = None, missing: str = "") -> ScriptedLLM:
    """Add rules answering the research prompts; verdicts and notes follow `topic_words`.

    follow_ups: the follow-up questions suggested after a report; gap_queries: what each successive
    dig-deeper round is told to search (then: no gap left); missing: a sentence the report ends with,
    saying what the sources leave out."""
    words = tuple(w.lower() for w in topic_words)
    rounds = list(gap_queries or [])

    def on_topic(text: str) -> bool:
        low = text.lower()
        return any(w in low for w in words)

    def subqueries(prompt: str) -> str:
        question = prompt.split("Question:", 1)[1].split("\n", 1)[0].strip()
        return json.dumps(sub_queries or [question + " overview", question + " evidence"])

    def relevance(prompt: str) -> str:
        verdicts = []
        for label, text in data_blocks(prompt):
            if label.startswith("result "):
                rid = int(label.split()[1])
                hit = on_topic(text)
                verdicts.append({"id": rid, "relevant": hit,
                                 "reason": "about the topic" if hit else "a different subject"})
        return json.dumps({"verdicts": verdicts})

    def notes(prompt: str) -> str:
        page = next((text for label, text in data_blocks(prompt) if label == "page"), "")
        picked = [s for s in _sentences(page) if on_topic(s) and not s.startswith(("Title:", "Search snippet:"))]
        if not picked:
            return prompts.NOTHING_RELEVANT
        return " ".join(f'The page says: "{s}"' for s in picked[:2])

    def report(prompt: str) -> str:
        lines = ["## Findings"]
        numbers = []
        for label, text in data_blocks(prompt):
            if label.startswith("source "):
                n = int(label.split()[1])
                quoted = re.findall(r'"([^"]{20,})"', text)
                claim = quoted[0] if quoted else (_sentences(text) or [text])[0]
                lines.append(f"- {claim.rstrip('.')} [{n}].")
                numbers.append(n)
        if not numbers:
            return "The sources hold nothing on this question."
        extra = f", {invalid_citation}" if invalid_citation else ""
        lines += ["", f"In short, the sources agree on the main points [{numbers[0]}{extra}]."]
        if len(numbers) > 1:
            lines.append(f"Several sources describe it [{numbers[0]}-{numbers[1]}].")
        if missing:
            lines += ["", missing]
        return "\n".join(lines)

    def gaps(prompt: str) -> str:
        queries = rounds.pop(0) if rounds else []
        return json.dumps({"gaps": [f"more on {q}" for q in queries], "queries": queries})

    llm.when(prompts.SUBQUERY_SYSTEM[:60], subqueries)
    llm.when(prompts.RELEVANCE_SYSTEM[:60], relevance)
    llm.when(prompts.EXTRACTION_SYSTEM[:60], notes)
    llm.when(prompts.REPORT_RULES[:60], report)
    llm.when(prompts.FOLLOW_UP_SYSTEM[:60], json.dumps(follow_ups or DEFAULT_FOLLOW_UPS))
    llm.when(prompts.GAP_SYSTEM[:60], gaps)
    return llm
