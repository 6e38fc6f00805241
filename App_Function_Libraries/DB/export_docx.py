"""A report or note as a Word document (.docx, python-docx): the header (title, question, date, options), the
body with the headings, lists, tables, quotes, code, bold and italic its Markdown has, every `[n]` a real
hyperlink to its source, the sources list in its citation style (cited, then read but not cited; each cited
entry linking to its quotes), and the Evidence section the HTML and PDF exports have: each quote once, in its
passage with the quoted words bold and highlighted, its verdict, and a link opening the source at that text.

The Markdown is read with markdown-it (raw HTML off, as everywhere): text goes into Word runs as text, so
nothing in a report can become markup; a link is made only to an http(s) address.
"""
from __future__ import annotations

import io
import re
from typing import Any

from App_Function_Libraries.DB.citation_styles import Reference, web_address
from App_Function_Libraries.DB.export_print import Evidence, Printable, evidence_id, evidence_links
from App_Function_Libraries.DB.markdown_html import quote_span
from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE, parse_group

_BOOKMARK = re.compile(r"#((?:source|evidence)-\d+)")
_EVIDENCE_BOOKMARKS = 2_000_000  # bookmark ids of the evidence items start after any source number
_XML_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML


def _xml_text(text: str) -> str:
    return _XML_BAD.sub("", text)


def _xml_target(url: str) -> str:
    """A link target XML can hold: a control character percent-encoded (as a browser sends it), any other
    character XML forbids left out. A stored report whose source URL or DOI has one still exports."""
    return _XML_BAD.sub(lambda m: f"%{ord(m.group(0)):02X}" if m.group(0) < " " else "", url)


def docx_bytes(doc: Printable) -> bytes:
    from docx import Document
    word = Document()
    word.core_properties.title = _xml_text(doc.title)[:255]
    word.add_heading(_xml_text(doc.title), level=0)
    for label, value in doc.fields:
        para = word.add_paragraph()
        para.add_run(_xml_text(f"{label}: ")).bold = True
        para.add_run(_xml_text(value))
    _Body(word, doc.cite).render(doc.body_markdown)
    if doc.references:
        _references(word, doc.references, doc.cited, evidence_links(doc.evidence))
    if doc.evidence:
        _evidence(word, doc.evidence)
    if doc.footer:
        word.add_paragraph().add_run(_xml_text(doc.footer)).italic = True
    out = io.BytesIO()
    word.save(out)
    return out.getvalue()


def _references(word, entries: list[Reference], cited: int, links: dict[int, list[int]]) -> None:
    word.add_heading("Sources", level=1)
    _entries(word, entries[:cited], links)
    if not cited:
        word.add_paragraph("None cited.")
    if entries[cited:]:
        word.add_heading("Read but not cited", level=2)
        _entries(word, entries[cited:], links)


def _entries(word, entries: list[Reference], links: dict[int, list[int]]) -> None:
    for ref in entries:
        para = word.add_paragraph()
        _bookmark(para, f"source-{ref.n}", ref.n)
        para.add_run(f"{ref.n}. ")
        for span in ref.spans:
            if span.link and web_address(span.link):
                add_hyperlink(para, span.link, span.text, italic=span.italic)
            else:
                para.add_run(_xml_text(span.text)).italic = span.italic or None
        if ref.url and ref.url not in ref.text():
            para.add_run(_xml_text(f" — {ref.url}"))
        if links.get(ref.n):
            para.add_run(" (evidence ")
            for k, i in enumerate(links[ref.n]):
                para.add_run(", ") if k else None
                add_hyperlink(para, f"#{evidence_id(i)}", str(i))
            para.add_run(")")


def _evidence(word, items: list[Evidence]) -> None:
    """Each quote once: [n], its source's title and verdict; the cited sentence where it is not the quote;
    the passage with the quoted words bold and highlighted and its line breaks kept (none where the source
    supports nothing); a link opening the source at the quoted text."""
    from docx.enum.text import WD_COLOR_INDEX
    word.add_heading("Evidence", level=1)
    for i, item in enumerate(items, 1):
        head = word.add_paragraph()
        _bookmark(head, evidence_id(i), _EVIDENCE_BOOKMARKS + i)
        head.add_run(f"{i}. [{'' if item.n is None else item.n}] ").bold = True
        head.add_run(_xml_text(" · ".join(p for p in (item.title, item.verdict()) if p)))
        for claim in item.claims:
            word.add_paragraph().add_run(_xml_text(f"Cited for: {claim}")).italic = True
        quote = word.add_paragraph(style="Quote")
        before, quoted, after = quote_span(item.passage or item.quote, item.quote)
        if not item.supported:
            before, quoted, after = before + quoted + after, "", ""
        _add_lines(quote, before)
        for marked in _add_lines(quote, quoted):
            marked.bold, marked.font.highlight_color = True, WD_COLOR_INDEX.YELLOW
        _add_lines(quote, after)
        if item.link():
            add_hyperlink(word.add_paragraph(), item.link(), f"Open [{item.n}] at this text")


def _add_lines(para, text: str) -> list:
    """`text` added to `para` as runs, a line break where it has one (a passage's heading stays on its own
    line); the runs holding its words."""
    runs = []
    for i, line in enumerate(text.split("\n")):
        if i:
            para.add_run().add_break()
        if line:
            runs.append(para.add_run(_xml_text(line)))
    return runs


def _bookmark(para, name: str, bookmark_id: int) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
    start.set(qn("w:id"), str(bookmark_id))
    start.set(qn("w:name"), name)
    end.set(qn("w:id"), str(bookmark_id))
    para._p.append(start)
    para._p.append(end)


def add_hyperlink(para, target: str, text: str, bold: bool = False, italic: bool = False) -> None:
    """A run of `text` in `para` linking to `target`: an http(s) address (an external relationship) or
    `#source-n` (the bookmark on that entry of the sources list)."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    link = OxmlElement("w:hyperlink")
    internal = _BOOKMARK.fullmatch(target)
    if internal:
        link.set(qn("w:anchor"), internal.group(1))
    else:
        link.set(qn("r:id"), para.part.relate_to(_xml_target(target), RT.HYPERLINK, is_external=True))
    run = OxmlElement("w:r")
    props = OxmlElement("w:rPr")
    style = OxmlElement("w:rStyle")
    style.set(qn("w:val"), "Hyperlink")
    props.append(style)
    for on, tag in ((bold, "w:b"), (italic, "w:i")):
        if on:
            props.append(OxmlElement(tag))
    color, underline = OxmlElement("w:color"), OxmlElement("w:u")
    color.set(qn("w:val"), "2A5DB0")
    underline.set(qn("w:val"), "single")
    props.extend([color, underline])
    run.append(props)
    text_el = OxmlElement("w:t")
    text_el.text = _xml_text(text)
    text_el.set(qn("xml:space"), "preserve")
    run.append(text_el)
    link.append(run)
    para._p.append(link)


class _Body:
    """Markdown tokens (markdown-it) into Word paragraphs, runs and tables."""

    def __init__(self, word, cite: dict[int, str]):
        self.word, self.cite = word, cite
        self.lists: list[str] = []  # "bullet" / "number", innermost last
        self.quote = 0
        self.para = None
        self.table: list[list[list[Any]]] | None = None  # rows of cells of inline tokens

    def render(self, text: str) -> None:
        from markdown_it import MarkdownIt
        md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
        md.core.ruler.disable("text_join")
        for token in md.parse(text or ""):
            self._block(token)

    def _block(self, token) -> None:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            self.lists.append("bullet" if kind.startswith("bullet") else "number")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "blockquote_open":
            self.quote += 1
        elif kind == "blockquote_close":
            self.quote -= 1
        elif kind == "heading_open":
            self.para = self.word.add_heading(level=min(int(token.tag[1]), 9))
        elif kind == "paragraph_open" and self.table is None:
            self.para = self.word.add_paragraph(style=self._paragraph_style())
        elif kind in ("fence", "code_block"):
            para = self.word.add_paragraph(style="No Spacing")
            run = para.add_run(_xml_text(token.content.rstrip("\n")))
            run.font.name = "DejaVu Sans Mono"
        elif kind == "hr":
            self.word.add_paragraph("—" * 12)
        elif kind == "table_open":
            self.table = []
        elif kind == "tr_open" and self.table is not None:
            self.table.append([])
        elif kind == "inline":
            if self.table is not None and self.table:
                self.table[-1].append(token.children or [])
            elif self.para is not None:
                self._inline(self.para, token.children or [])
        elif kind == "table_close":
            self._flush_table()

    def _paragraph_style(self) -> str | None:
        if self.lists:
            depth = len(self.lists)
            base = "List Bullet" if self.lists[-1] == "bullet" else "List Number"
            return base if depth == 1 else f"{base} {min(depth, 3)}"
        return "Quote" if self.quote else None

    def _flush_table(self) -> None:
        rows, self.table = self.table or [], None
        width = max((len(r) for r in rows), default=0)
        if not width:
            return
        grid = self.word.add_table(rows=len(rows), cols=width)
        grid.style = "Table Grid"
        # row by row: grid.cell(r, c) lays out the whole table on every call (quadratic in cells)
        for r, (grid_row, row) in enumerate(zip(grid.rows, rows)):
            for cell, children in zip(grid_row.cells, row):
                self._inline(cell.paragraphs[0], children, bold=r == 0)

    def _inline(self, para, children, bold: bool = False) -> None:
        state = {"bold": bold, "italic": False, "strike": False, "code": False}
        links: list[str] = []
        for child in children:
            kind = child.type
            if kind in ("strong_open", "strong_close"):
                state["bold"] = kind == "strong_open" or bold
            elif kind in ("em_open", "em_close"):
                state["italic"] = kind == "em_open"
            elif kind in ("s_open", "s_close"):
                state["strike"] = kind == "s_open"
            elif kind == "link_open":
                href = str(child.attrGet("href") or "")
                links.append(href if web_address(href) else "")
            elif kind == "link_close":
                links.pop() if links else None
            elif kind in ("text", "text_special", "code_inline"):
                code = kind == "code_inline"
                self._text(para, child.content, links[-1] if links else None, state, code,
                           cite=kind == "text" and not links)
            elif kind == "image":
                self._run(para, f"[image: {child.content or 'image'}]", state)
            elif kind in ("softbreak", "hardbreak"):
                self._run(para, " " if kind == "softbreak" else "\n", state)

    def _text(self, para, text: str, link: str | None, state: dict, code: bool, cite: bool) -> None:
        if link:
            add_hyperlink(para, link, text, bold=state["bold"], italic=state["italic"])
            return
        if not cite or code:
            self._run(para, text, state, code)
            return
        pos = 0
        for match in CITATION_GROUP_RE.finditer(text):
            numbers = list(dict.fromkeys(parse_group(match.group(1))))
            if not any(n in self.cite for n in numbers):
                continue
            self._run(para, text[pos:match.start()], state)
            self._citation(para, numbers, state)
            pos = match.end()
        self._run(para, text[pos:], state)

    def _citation(self, para, numbers: list[int], state: dict) -> None:
        """`[n]` as one link; a group `[1, 3]` one link per number (as the HTML export does)."""
        if len(numbers) == 1:
            add_hyperlink(para, self.cite[numbers[0]], f"[{numbers[0]}]", state["bold"], state["italic"])
            return
        self._run(para, "[", state)
        for i, n in enumerate(numbers):
            if i:
                self._run(para, ", ", state)
            if n in self.cite:
                add_hyperlink(para, self.cite[n], str(n), state["bold"], state["italic"])
            else:
                self._run(para, str(n), state)
        self._run(para, "]", state)

    @staticmethod
    def _run(para, text: str, state: dict, code: bool = False) -> None:
        if not text:
            return
        run = para.add_run(_xml_text(text))
        run.bold, run.italic = state["bold"] or None, state["italic"] or None
        run.font.strike = state["strike"] or None
        if code:
            run.font.name = "DejaVu Sans Mono"
