"""Text from strangers (result and page titles, snippets, reports, imported notes, file names in a zip) made
safe to print on a terminal.

A terminal obeys control sequences in what it prints: ESC ] 0 ; title BEL renames the window, ESC [ 2 J clears
the screen, ESC ] 52 ; c ; … writes the clipboard, and U+009B is CSI by itself. So every CLI command prints
untrusted text through `clean` (or `say`), which removes:
- C0 control characters except newline and tab (ESC, BEL, CR, backspace, ...), and DEL;
- C1 control characters U+0080..U+009F (CSI U+009B, OSC U+009D, ...);
- bidirectional embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069), which make text show
  in another order than it is.
JSON printed by the CLI stays exact: `json_text` writes those characters as \\u escapes instead.
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_BUT_NEWLINE_AND_TAB = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # json.dumps escapes C0 itself


def clean(text: Any, keep: str = "\n\t") -> str:
    """`text` without terminal control characters; those in `keep` (by default newline and tab) stay."""
    if keep == "\n\t":
        return _BUT_NEWLINE_AND_TAB.sub("", str(text))
    return _CONTROLS.sub(lambda m: m.group() if m.group() in keep else "", str(text))


def one_line(text: Any) -> str:
    """`text` cleaned and on one line (a title with newlines in it would pass for several entries)."""
    return " ".join(clean(text).split())


def say(*parts: Any, file: TextIO | None = None, sep: str = " ", end: str = "\n", flush: bool = False) -> None:
    """print(), with the untrusted text cleaned (newlines and tabs kept)."""
    print(clean(sep.join(str(p) for p in parts)), file=file or sys.stdout, end=end, flush=flush)


def json_text(data: Any, **options: Any) -> str:
    """json.dumps(data, ensure_ascii=False, **options), with DEL, C1 and bidi controls escaped as \\uXXXX
    (only strings can hold them, so the JSON means exactly the same)."""
    return escape_json(json.dumps(data, ensure_ascii=False, **options))


def escape_json(text: str) -> str:
    """JSON text with the characters json.dumps(ensure_ascii=False) leaves raw but a terminal obeys escaped."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
