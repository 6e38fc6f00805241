"""Strict parsing of LLM output that must be structured, with retries and a safe fallback."""
from __future__ import annotations

import json
import re
from typing import Any, Callable, TypeVar

from App_Function_Libraries.LLM.base import LLMClient, LLMError, Message

T = TypeVar("T")


class StructuredOutputError(ValueError):
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
    (unparseable answers or LLM errors) returns (fallback(last_error), False)."""
    last: Exception = StructuredOutputError("not asked")
    for _ in range(tries):
        try:
            text = client.chat(messages, temperature=temperature, json_mode=json_mode, max_tokens=max_tokens).text
            return parse(text), True
        except (StructuredOutputError, LLMError) as exc:
            last = exc
            if isinstance(exc, LLMError) and not exc.retryable and not isinstance(exc, StructuredOutputError):
                break
    return fallback(last), False
