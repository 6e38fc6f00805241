"""Strict parsing of LLM output that must be structured: asked again when the answer cannot be parsed, with a
safe fallback. A failed call is not asked again here: the client has already retried it."""
from __future__ import annotations

import json
import re
from typing import Any, Callable, TypeVar

from App_Function_Libraries.LLM.base import LLMClient, LLMError, LLMUnavailable, Message
from App_Function_Libraries.errors import QuarryError

T = TypeVar("T")


class StructuredOutputError(QuarryError, ValueError):
    """The model's answer did not have the required structure."""


def extract_json(text: str) -> Any:
    """The first complete JSON value in text (plain, fenced in ```json, or after some prose)."""
    text = text.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    candidates = [fence.group(1).strip()] if fence else []
    candidates.append(text)
    decoder = json.JSONDecoder()
    for cand in candidates:
        for i, ch in enumerate(cand):
            if ch in "[{":
                try:
                    value, _ = decoder.raw_decode(cand[i:])
                    return value
                except json.JSONDecodeError:
                    continue
    raise StructuredOutputError("no JSON value found in the model's answer")


def parse_string_list(text: str, key_names: tuple[str, ...] = ("queries", "items")) -> list[str]:
    """A JSON array of strings (or an object holding one under a known key); anything else is refused."""
    value = extract_json(text)
    if isinstance(value, dict):
        for key in key_names:
            if isinstance(value.get(key), list):
                value = value[key]
                break
    if not isinstance(value, list) or not value:
        raise StructuredOutputError("expected a non-empty JSON array")
    if not all(isinstance(v, str) for v in value):
        raise StructuredOutputError("expected an array of strings")
    out = [v.strip() for v in value if v.strip()]
    if not out:
        raise StructuredOutputError("the array holds only empty strings")
    return out


def ask_structured(client: LLMClient, messages: list[Message], parse: Callable[[str], T], *,
                   tries: int = 3, fallback: Callable[[Exception], T], temperature: float | None = None,
                   json_mode: bool = True, max_tokens: int | None = None) -> tuple[T, bool]:
    """Ask up to `tries` times until `parse` accepts the answer. Returns (value, parsed_ok); on failure
    (unparseable answers, or a call that failed after the client's own retries) returns
    (fallback(last_error), False). LLMUnavailable (the run gave up on the server) is raised: the caller
    takes its path without an LLM."""
    last: Exception = StructuredOutputError("not asked")
    for _ in range(tries):
        try:
            text = client.chat(messages, temperature=temperature, json_mode=json_mode, max_tokens=max_tokens).text
            return parse(text), True
        except StructuredOutputError as exc:
            last = exc
        except LLMUnavailable:
            raise
        except LLMError as exc:
            last = exc
            break
    return fallback(last), False


def after_tries(exc: Exception, tries: int) -> str:
    """' after 3 tries' when the answers could not be parsed; '' when the call itself failed (asked once)."""
    return f" after {tries} tries" if isinstance(exc, StructuredOutputError) else ""
