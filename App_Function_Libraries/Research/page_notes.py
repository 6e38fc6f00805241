"""Stage 6, page notes: each page condensed to what answers the question (`write_notes`).

With an LLM the page's title, search snippet and top passages (all untrusted, inside data delimiters) are
condensed into short notes that keep verbatim quotes. Without an LLM (or when the call fails, or the run has
given up on the server) the notes are the top passages themselves.
"""
from __future__ import annotations

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError, LLMUnavailable
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.records import Source

NOTES_MAX_TOKENS = 400


def page_document(source: Source) -> str:
    """What is known of the page: title, search snippet and its top passages, best first."""
    parts = [f"Title: {source.title}"] if source.title else []
    if source.snippet:
        parts.append(f"Search snippet: {source.snippet}")
    parts += [p.text for p in source.passages]
    return "\n\n".join(parts)


def passages_as_notes(source: Source) -> str:
    """The extractive notes: the top passages ('' for a page that could not be read: it is not cited)."""
    return "\n\n".join(p.text for p in source.passages)


def write_notes(llm: LLMClient, question: str, source: Source) -> tuple[str, str]:
    """(notes, problem). Notes are empty when the model found nothing relevant; on an LLM failure the notes
    are the top passages and problem says what went wrong."""
    tag = prompts.new_data_tag()

    def build(pieces: list[str]):
        return prompts.extraction_messages(question, "\n\n".join(pieces), tag)

    try:
        messages, _trimmed = fit_evidence(llm, build, [page_document(source)], max_tokens=NOTES_MAX_TOKENS)
        text = llm.chat(messages, max_tokens=NOTES_MAX_TOKENS).text.strip()
    except LLMUnavailable:  # the run gave up on the server and says so once
        return passages_as_notes(source), ""
    except LLMError as exc:
        return passages_as_notes(source), f"{source.url}: page notes fell back to its passages ({exc})"
    if not text:
        return passages_as_notes(source), f"{source.url}: the LLM wrote no notes; used its passages"
    if prompts.NOTHING_RELEVANT.lower() in text.lower() and len(text) < len(prompts.NOTHING_RELEVANT) + 40:
        return "", ""
    return text, ""
