"""Replaying captured scholarly answers (../shared/data/search_api, read in place, never copied) on the test
world, each where its engine will ask for it, byte for byte, with the HTTP status its file name records
(`…_error_400_…`; 200 otherwise).

PubMed takes two requests: a captured esearch answer is served at esearch.fcgi (efetch then gets an empty
PubmedArticleSet, as NCBI gives for ids it has no record of), and a captured efetch/esummary/error answer at the
second request's address, after an esearch answer listing that capture's own PMIDs.

    for sample in scholarly_samples(folder): replay(world, sample); … expected_count(sample)
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from Tests.support.scholarly_apis import ENGINES, PATHS
from Tests.support.testworld import Response, TestWorld

CONTENT_TYPES = {".xml": "application/xml; charset=utf-8", ".json": "application/json",
                 ".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8"}


@dataclass(frozen=True)
class Sample:
    engine: str
    path: Path
    status: int

    @property
    def is_error(self) -> bool:
        return self.status >= 400 or "_error_" in self.path.name


def scholarly_samples(folder: Path) -> list[Sample]:
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.iterdir()):
        engine = path.name.split("_", 1)[0]
        if engine in ENGINES and path.suffix in CONTENT_TYPES:
            status = re.search(r"_error_(\d{3})_", path.name)
            out.append(Sample(engine, path, int(status.group(1)) if status else 200))
    return out


def engine_url(world: TestWorld, engine: str) -> str:
    return world.url(PATHS[engine])


def replay(world: TestWorld, sample: Sample) -> None:
    body = sample.path.read_bytes()
    answer = Response(sample.status, body, {"Content-Type": CONTENT_TYPES[sample.path.suffix]})
    if sample.engine != "pubmed":
        world.route("GET", PATHS[sample.engine], lambda req: answer)
        return
    root = ET.fromstring(body)
    if root.tag == "eSearchResult":
        world.route("GET", PATHS["pubmed"] + "/esearch.fcgi", lambda req: answer)
        world.route("GET", PATHS["pubmed"] + "/efetch.fcgi", lambda req: _xml(200, "<PubmedArticleSet/>"))
        return
    ids = pubmed_ids(root) or ["1"]
    listing = "".join(f"<Id>{i}</Id>" for i in ids)
    world.route("GET", PATHS["pubmed"] + "/esearch.fcgi", lambda req: _xml(
        200, f"<eSearchResult><Count>{len(ids)}</Count><RetMax>{len(ids)}</RetMax><RetStart>0</RetStart>"
             f"<IdList>{listing}</IdList></eSearchResult>"))
    world.route("GET", PATHS["pubmed"] + "/efetch.fcgi", lambda req: answer)


def _xml(status: int, text: str) -> Response:
    return Response(status, ('<?xml version="1.0" encoding="UTF-8" ?>\n' + text).encode(), {"Content-Type": "text/xml"})


def pubmed_ids(root: ET.Element) -> list[str]:
    found = [e.text or "" for e in root.findall("PubmedArticle/MedlineCitation/PMID")]
    found += [e.text or "" for e in root.findall("DocSum/Id")]
    return [i.strip() for i in found if i.strip()]


def expected_count(sample: Sample) -> int:
    """How many papers the capture holds (0 for an error or an esearch id list)."""
    if sample.is_error:
        return 0
    body = sample.path.read_bytes()
    if sample.path.suffix == ".xml":
        root = ET.fromstring(body)
        if sample.engine == "arxiv":
            return len(root.findall("{http://www.w3.org/2005/Atom}entry"))
        return 0 if root.tag == "eSearchResult" else len(pubmed_ids(root))
    data = json.loads(body.decode("utf-8-sig"))
    items = {"semanticscholar": lambda d: d.get("data", []), "openalex": lambda d: d.get("results", []),
             "crossref": lambda d: d.get("message", {}).get("items", [])}[sample.engine](data)
    return len(items)
