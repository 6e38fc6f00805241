"""Every kind of source for one research on the test world: two honey-bee papers behind the scholarly APIs (one
with an open-access PDF the world serves, one abstract only), and the local sources (the demo Wikipedia index,
a document library of hive notes). Our own texts, written for these tests.

    apis = install_bee_papers(world, "/papers/recruitment.pdf")   # or "/papers/gone.pdf": a 404
    set_up_local_sources(settings, tmp_dir)                          # index + library, as configured
"""
from __future__ import annotations

from pathlib import Path

from Tests.support.make_pdf import pdf_bytes, write_pdf
from Tests.support.scholarly_apis import ScholarlyAPIs
from Tests.support.testworld import Response, TestWorld

PDF_PATH, BROKEN_PDF_PATH = "/papers/recruitment.pdf", "/papers/gone.pdf"
FULL_TEXT_TITLE = "Recruitment by dance in honey bee colonies"
ABSTRACT_ONLY_TITLE = "How honey bee scouts communicate the location of food"
PDF_LINES = [
    "Recruitment by dance in honey bee colonies. Full text.",
    "Honey bee foragers communicate the location of food to nest mates with the waggle dance;",
    "in our observation hives the duration of each waggle run grew by about one second for every",
    "kilometre between the hive and the feeder, and the angle of the run matched the feeder's bearing",
    "relative to the sun. Followers that attended six or more dance circuits found the feeder first.",
]
FULL_TEXT_ABSTRACT = "We observed honey bee recruitment to feeders at several distances."
ABSTRACT_ONLY = ("Honey bee scouts communicate the location of food sources by dancing; we recorded that dance "
                 "followers decode the direction from the waggle angle and reach the food within minutes.")
HIVE_NOTES = [f"Field log {day}: the scouts returned at noon and danced on the comb." for day in range(30)] + [
    "A honey bee forager communicates the location of food with a waggle dance: the angle of the waggle run "
    "gives the direction and its length gives the distance."]


def bee_paper(i: int, title: str, abstract: str, pdf_url: str | None) -> dict:
    return {"title": title, "doi": f"10.5555/bees.{i}", "abstract": abstract, "authors": [("Karl", "Frisch")],
            "year": 1967, "month": 5, "day": 1, "venue": "Journal of Bee Behaviour", "id": 7000 + i,
            "open": pdf_url is not None, "pdf_url": pdf_url}


def install_bee_papers(world: TestWorld, pdf_path: str = PDF_PATH) -> ScholarlyAPIs:
    """The scholarly APIs answering every query with the two bee papers; the first one's open-access PDF at
    pdf_path (PDF_PATH serves it; BROKEN_PDF_PATH answers 404)."""
    world.route("GET", PDF_PATH, lambda r: Response(200, pdf_bytes([PDF_LINES], FULL_TEXT_TITLE),
                                                    {"Content-Type": "application/pdf"}))
    world.route("GET", BROKEN_PDF_PATH, lambda r: Response.text("Not Found", 404))
    library = [bee_paper(1, FULL_TEXT_TITLE, FULL_TEXT_ABSTRACT, world.url(pdf_path)),
               bee_paper(2, ABSTRACT_ONLY_TITLE, ABSTRACT_ONLY, None)]
    return ScholarlyAPIs(world, library=lambda query: library if query.strip() else []).install()


def set_up_local_sources(settings, directory: Path) -> None:
    """The demo Wikipedia index (in [wikipedia] index_dir) and a library holding one PDF of hive notes."""
    from App_Function_Libraries.Documents.library import DocumentLibrary
    from App_Function_Libraries.Wikipedia.demo import build_demo_index
    from App_Function_Libraries.Wikipedia.index import forget_wiki_index
    forget_wiki_index()
    build_demo_index(progress=lambda done, total: None, settings=settings)
    files = directory / "files"
    files.mkdir(exist_ok=True)
    write_pdf(files / "hive.pdf", [HIVE_NOTES[:16], HIVE_NOTES[16:]])
    DocumentLibrary(settings).add([files])
