"""A report's sources in the formats reference managers import (Zotero, Mendeley, JabRef, EndNote):
BibTeX, RIS and CSL-JSON.

A paper is cited as a paper (BibTeX `@article`, RIS `TY  - JOUR`, CSL `article-journal`) with its authors,
year, venue and DOI; a web page as a web page (`@misc`, `ELEC`, `webpage`) with its address and the day the
report was made as the access date; a Wikipedia article as an encyclopedia entry; a local document as a
generic document. Each takes the listed sources (ResearchResult.listed_sources) and returns text.

    bibtex(listed, accessed="2026-11-23", question="…")
"""
from __future__ import annotations

import datetime
import json
import re
from typing import Any

from App_Function_Libraries.DB.citation_styles import Facts, one_line, source_facts, split_name, web_address
from App_Function_Libraries.records import Source

Listed = list[tuple[int, Source]]


def _access_date(accessed: Any) -> datetime.date | None:
    """The report's day from `accessed` when it is exactly YYYY-MM-DD and a real day; None otherwise (an imported
    run may hold anything: the field is then left out, read in time linear in its length, never int() on a
    run of digits of any length)."""
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", accessed) if isinstance(accessed, str) else None
    try:
        return datetime.date(*(int(part) for part in match.groups())) if match else None
    except ValueError:  # a month or day out of range
        return None


def _note(n: int, question: str) -> str:
    return f"Source [{n}] for: {question}" if question else f"Source [{n}]"


# ---------------------------------------------------------------- BibTeX

_BIB_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
                "#": r"\#", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def _bib_escape(text: Any) -> str:
    return "".join(_BIB_SPECIAL.get(c, c) for c in one_line(text))


def _bib_url(url: Any) -> str:
    return "".join({"{": "%7B", "}": "%7D", "\\": "%5C", " ": "%20"}.get(c, c) for c in one_line(url))


def bibtex(listed: Listed, accessed: str, question: str = "") -> str:
    """@article for a paper, @misc for anything else, one per numbered source."""
    if not listed:
        return "% No sources.\n"
    keys: set[str] = set()
    day = _access_date(accessed)
    entries = [_bib_entry(n, source_facts(source), day, _bib_escape(question), keys) for n, source in listed]
    return "\n\n".join(entries) + "\n"


def _bib_entry(n: int, f: Facts, accessed: datetime.date | None, question: str, keys: set[str]) -> str:
    paper = f.kind == "paper"
    fields = [("title", "{" + _bib_escape(f.title) + "}")]
    if f.authors:
        fields.append(("author", " and ".join(_bib_author(a) for a in f.authors)))
    if paper and f.venue:
        fields.append(("journal", _bib_escape(f.venue)))
    if f.kind == "wikipedia":
        fields.append(("organization", "Wikipedia"))
    if f.year:
        fields.append(("year", str(f.year)))
    if f.doi:
        fields.append(("doi", _bib_url(f.doi)))
    if web_address(f.url):
        if not paper:
            fields.append(("howpublished", r"\url{" + _bib_url(f.url) + "}"))
        fields.append(("url", _bib_url(f.url)))
        if accessed:
            fields.append(("urldate", accessed.isoformat()))
    elif f.url:
        fields.append(("howpublished", _bib_escape(f.url)))
    fields.append(("note", _note(n, question)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{'article' if paper else 'misc'}{{{_bib_key(f, n, keys)},\n{body}\n}}"


def _bib_author(name: str) -> str:
    given, family = split_name(name)
    return f"{{{_bib_escape(family)}}}, {_bib_escape(given)}" if given else "{" + _bib_escape(family) + "}"


def _bib_key(f: Facts, n: int, taken: set[str]) -> str:
    if f.kind == "paper" and f.authors:
        base = split_name(f.authors[0])[1] + str(f.year or "")
    else:
        base = f.site or "source"
    base = re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_") or "source"
    key, i = f"{base}_{n}", 2
    while key in taken:
        key, i = f"{base}_{n}_{i}", i + 1
    taken.add(key)
    return key


# ---------------------------------------------------------------- RIS

_RIS_TYPES = {"paper": "JOUR", "web": "ELEC", "wikipedia": "ENCYC", "document": "GEN"}


def ris(listed: Listed, accessed: str, question: str = "") -> str:
    """RIS records (TY … ER), one per numbered source."""
    day = _access_date(accessed)
    return "".join(_ris_record(n, source_facts(source), day, question) for n, source in listed)


def _ris_record(n: int, f: Facts, accessed: datetime.date | None, question: str) -> str:
    tags = [("TY", _RIS_TYPES.get(f.kind, "ELEC")), ("TI", f.title)]
    tags += [("AU", "{1}, {0}".format(*split_name(a)).strip(", ")) for a in f.authors]
    if f.kind == "paper" and f.venue:
        tags.append(("JO", f.venue))
    elif f.kind == "wikipedia":
        tags.append(("T2", "Wikipedia"))
    if f.year:
        tags.append(("PY", str(f.year)))
        if f.month:
            tags.append(("DA", f"{f.year}/{f.month:02d}/{f.day:02d}" if f.day else f"{f.year}/{f.month:02d}"))
    if f.doi:
        tags.append(("DO", f.doi))
    if f.url:
        tags.append(("UR", f.url))
    if accessed:
        tags.append(("Y2", accessed.strftime("%Y/%m/%d")))
    tags += [("N1", _note(n, one_line(question))), ("ER", "")]
    return "".join(f"{tag}  - {one_line(value)}\n" for tag, value in tags) + "\n"


# ---------------------------------------------------------------- CSL-JSON

_CSL_TYPES = {"paper": "article-journal", "web": "webpage", "wikipedia": "entry-encyclopedia",
              "document": "document"}


def csl_json(listed: Listed, accessed: str, question: str = "") -> str:
    """CSL-JSON (the citeproc item format), a list with one item per numbered source."""
    day = _access_date(accessed)
    return json.dumps([_csl_item(n, source_facts(source), day, question) for n, source in listed],
                      indent=2, ensure_ascii=False) + "\n"


def _csl_item(n: int, f: Facts, accessed: datetime.date | None, question: str) -> dict[str, Any]:
    item: dict[str, Any] = {"id": f"source-{n}", "type": _CSL_TYPES.get(f.kind, "webpage"), "title": f.title,
                            "citation-number": n}
    if f.authors:
        item["author"] = [_csl_name(a) for a in f.authors]
    if f.year:
        item["issued"] = {"date-parts": [[v for v in (f.year, f.month, f.day) if v]]}
    container = f.venue if f.kind == "paper" else ("Wikipedia" if f.kind == "wikipedia" else f.site)
    if container:
        item["container-title"] = container
    if f.doi:
        item["DOI"] = f.doi
    if web_address(f.url):
        item["URL"] = f.url
        if accessed:
            item["accessed"] = {"date-parts": [[accessed.year, accessed.month, accessed.day]]}
    elif f.url:
        item["source"] = f.url
    item["note"] = _note(n, one_line(question))
    return item


def _csl_name(name: str) -> dict[str, str]:
    given, family = split_name(name)
    return {"family": family, "given": given} if given else {"literal": family}
