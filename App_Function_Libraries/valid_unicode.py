"""Text from outside Quarry made valid Unicode once, where it is decoded: a lone UTF-16 surrogate (JSON may
write one as the escape \\ud800, a PDF's text map may name one) cannot be encoded as UTF-8, so one of them in a
search result, a page or an LLM answer would break saving, `--json` output, MCP answers and every export.
Each becomes U+FFFD (the replacement character); surrogate pairs that JSON writes as two escapes are joined by
the JSON decoder itself and kept.

    valid_unicode(text) -> str        valid_json(value) -> the value, every string in it made valid
    loads_json(text) -> Any           json.loads, then valid_json when the text holds a surrogate escape

Used where outside text enters: the search runner (API answers), the ddgs library's results, the LLM clients,
the PDF reader, note and Wikipedia dump imports.
"""
from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def valid_unicode(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def valid_json(value: Any) -> Any:
    """The value with every string (keys too) made valid; other values as they are."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, list):
        return [valid_json(item) for item in value]
    if isinstance(value, dict):
        return {valid_json(k): valid_json(v) for k, v in value.items()}
    return value


def loads_json(text: str) -> Any:
    """json.loads(text) with no lone surrogate in any string; raises what json.loads raises."""
    value = json.loads(text)
    return valid_json(value) if _SURROGATE_ESCAPE.search(text) or _SURROGATE.search(text) else value
