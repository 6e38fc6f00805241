"""PDF and Word files made where a deadline can stop them: in a parse worker (parse_sandbox), killed at the
deadline, its memory capped. A document too large to print (a 1 MB report took 60 s and 514 MB; 50,000 `[1]`
ran for minutes) holds no worker of the UI for minutes and leaves nothing running; it gets one line saying so.

    render_limited(printable, "pdf")  # bytes, or ExportTooLarge / ExportRenderError
"""
from __future__ import annotations

from App_Function_Libraries.DB.export_print import ExportRenderError, Printable, html_to_pdf, print_html
from App_Function_Libraries.parse_sandbox import (ParseCrashed, ParseFailed, ParseLimits, ParseTimeout, ParseTooLarge,
                                                 run_limited)


class ExportTooLarge(ExportRenderError):
    """A PDF or Word document that could not be made within RENDER_LIMITS (or is longer than MAX_PRINT_CHARS)."""


RENDER_LIMITS = ParseLimits(seconds=60.0, memory_mb=1024)
MAX_PRINT_CHARS = 500_000  # a longer report or note is refused at once
FORMAT_NAMES = {"pdf": "PDF", "docx": "Word document"}


def render_limited(doc: Printable, fmt: str) -> bytes:
    """The PDF ("pdf") or Word ("docx") bytes of `doc`, made under RENDER_LIMITS; ExportTooLarge, with one
    line saying why, for a document that is too large to print."""
    name = FORMAT_NAMES[fmt]
    size = len(doc.body_markdown) + sum(len(value) for _, value in doc.fields)
    if size > MAX_PRINT_CHARS:
        raise ExportTooLarge(f"the {name} was not made: the document is too large to print ({size:,} characters; "
                             f"at most {MAX_PRINT_CHARS:,}); export it as Markdown or HTML")
    limits = RENDER_LIMITS
    try:
        return run_limited(render, doc, fmt, limits=limits)
    except ParseTimeout:
        raise ExportTooLarge(f"the {name} was not made: the document is too large to print (gave up after "
                             f"{limits.seconds:g} s); export it as Markdown or HTML") from None
    except ParseTooLarge:
        raise ExportTooLarge(f"the {name} was not made: the document is too large to print (it needed more than "
                             f"{limits.memory_mb} MB); export it as Markdown or HTML") from None
    except ParseCrashed:  # a renderer out of memory may abort (GLib) rather than raise MemoryError
        raise ExportTooLarge(f"the {name} was not made: its renderer died under the {limits.memory_mb} MB memory "
                             "cap; the document may be too large to print: export it as Markdown or HTML") from None
    except ParseFailed as exc:
        raise ExportRenderError(f"the {name} was not made: {exc}") from None


def render(doc: Printable, fmt: str) -> bytes:
    """The PDF or Word bytes of `doc`, made here (render_limited runs this in a worker)."""
    if fmt == "pdf":
        return html_to_pdf(print_html(doc))
    from App_Function_Libraries.DB.export_docx import docx_bytes
    return docx_bytes(doc)
