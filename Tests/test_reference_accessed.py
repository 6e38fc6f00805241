"""The access date of BibTeX, RIS and CSL-JSON: whatever string comes in (an imported run may hold anything),
it is read within bounds; a date that is not YYYY-MM-DD drops the field, never a crash or a slow parse."""
from __future__ import annotations

import json
import time

import pytest

from App_Function_Libraries.DB import reference_formats as refs
from App_Function_Libraries.records import Source

LISTED = [(1, Source(url="https://example.org/a", title="A page", n=1))]
HOSTILE = ["9" * 100_000 + "-01-01", "2024-" + "1" * 50_000 + "-01", "1" * 5000, "2024-13-40",
           "}, title = {evil", "2024-01-01\nER  - \nTY  - JOUR", ""]


@pytest.mark.parametrize("accessed", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_access_date_is_dropped_quickly_in_every_format(accessed):
    start = time.monotonic()
    item = json.loads(refs.csl_json(LISTED, accessed))[0]
    bib = refs.bibtex(LISTED, accessed)
    ris = refs.ris(LISTED, accessed)
    assert time.monotonic() - start < 1.0
    assert "accessed" not in item and item["URL"] == "https://example.org/a"
    assert "urldate" not in bib and "evil" not in bib and bib.count("@misc{") == 1
    assert "Y2  -" not in ris and ris.count("TY  - ") == 1


def test_a_good_access_date_is_kept_in_every_format():  # the control: the field is there when the date is
    item = json.loads(refs.csl_json(LISTED, "2026-11-23"))[0]
    assert item["accessed"] == {"date-parts": [[2026, 11, 23]]}
    assert "urldate = {2026-11-23}" in refs.bibtex(LISTED, "2026-11-23")
    assert "Y2  - 2026/11/23\n" in refs.ris(LISTED, "2026-11-23")
