"""A frozen web with known answers, for bench/research_qa.py: SQuAD v1.1 dev articles (real Wikipedia text,
../shared/data/wiki_qa/) cut into pages of a few paragraphs, each wrapped in the boilerplate real pages carry
(navigation, cookie banner, sidebars, related links, newsletter box, footer), served on loopback by the test
world, and a search server answering in SearXNG's JSON format.

The search server ranks pages by BM25 over what a real engine shows, not the page text: the page's title, its
section heading and a snippet-sized excerpt of each paragraph (its first 30 words). A result's `content` is the
excerpt that shares most words with the query. A fixed share of each answer (positions 3 and 7 of ten) is a
distractor: a page of another article, chosen by a hash of the query, so runs repeat exactly.
"""
from __future__ import annotations

import hashlib
import html
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "wiki_qa"
SQUAD_FILES = ("squad_v1.1_dev_half_A_bloomsburyai_dev-v1.1.json", "squad_v1.1_dev_half_B_bloomsburyai_test-v1.1.json")
EXCERPT_WORDS = 30
DISTRACTOR_POSITIONS = (2, 6)  # zero-based: results 3 and 7 of ten
RESULTS_PER_PAGE = 10


@dataclass
class Question:
    id: str
    text: str
    answers: list[str]
    page: str  # the path of the page holding the gold paragraph


@dataclass
class QAPage:
    path: str
    article: str
    heading: str
    paragraphs: list[str]
    host: str
    excerpts: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.article}: {self.heading}"


def load_squad() -> list[dict]:
    """The 48 dev articles (both halves), or [] when the shared data is absent."""
    articles: list[dict] = []
    for name in SQUAD_FILES:
        path = DATA / name
        if not path.is_file():
            return []
        articles += json.loads(path.read_text(encoding="utf-8"))["data"]
    return articles


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "page"


def build_pages(articles: list[dict], paragraphs_per_page: int = 3) -> tuple[list[QAPage], list[Question]]:
    """Pages of `paragraphs_per_page` paragraphs (one host per article), and every question tied to its page."""
    pages: list[QAPage] = []
    questions: list[Question] = []
    for k, article in enumerate(articles):
        title = article["title"].replace("_", " ")
        paras = article["paragraphs"]
        for start in range(0, len(paras), paragraphs_per_page):
            chunk = paras[start:start + paragraphs_per_page]
            part = start // paragraphs_per_page + 1
            heading = _heading(chunk[0]["context"], part)
            page = QAPage(path=f"wiki/{slug(title)}/part-{part}.html", article=title, heading=heading,
                          paragraphs=[p["context"] for p in chunk], host=f"{slug(title)}.test")
            page.excerpts = [" ".join(p.split()[:EXCERPT_WORDS]) for p in page.paragraphs]
            pages.append(page)
            for p in chunk:
                for qa in p["qas"]:
                    answers = [a["text"] for a in qa["answers"] if a["text"].strip()]
                    if answers:
                        questions.append(Question(qa["id"], qa["question"].strip(), answers, page.path))
    return pages, questions


def _heading(context: str, part: int) -> str:
    words = re.findall(r"[A-Z][a-z]+", context)
    return f"Part {part}" + (f" ({' '.join(words[1:3])})" if len(words) > 2 else "")


# ---------------------------------------------------------------- page HTML with real-looking boilerplate

_NAV = ["Home", "News", "Topics", "Science", "History", "Culture", "About us", "Contact", "Donate"]
_COOKIE = ("We use cookies and similar technologies to personalise content, measure traffic and improve your "
           "experience. By clicking Accept all you consent to our use of cookies. You can change your "
           "preferences at any time in Privacy settings.")
_NEWSLETTER = ("Get the best stories delivered to your inbox every week. Sign up for our free newsletter and "
               "never miss an update. Unsubscribe at any time.")
_FOOTER = ["Privacy policy", "Terms of use", "Cookie settings", "Accessibility", "Careers", "Advertise",
           "Site map", "Help centre"]
_TRENDING = ["Ten facts you did not know", "The week in pictures", "Readers' questions answered",
             "Editor's picks this month", "Most shared this week"]


def page_html(page: QAPage, related: list[QAPage], rng: random.Random) -> str:
    esc = html.escape
    nav = "".join(f'<li><a href="/{slug(n)}">{esc(n)}</a></li>' for n in rng.sample(_NAV, 6))
    rel = "".join(f'<li><a href="http://{p.host}/{p.path}">{esc(p.title)}</a></li>' for p in related)
    trending = "".join(f"<li><a href='/trending/{i}'>{esc(t)}</a></li>" for i, t in enumerate(rng.sample(_TRENDING, 3)))
    body = "".join(f"<p>{esc(p)}</p>" for p in page.paragraphs)
    footer = " | ".join(f'<a href="/{slug(f)}">{esc(f)}</a>' for f in _FOOTER)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(page.title)} | The Open Reference</title>
<meta name="description" content="{esc(page.excerpts[0][:150])}"></head>
<body>
<div id="cookie-banner" class="cookie-consent"><p>{_COOKIE}</p><button>Accept all</button>
<button>Manage preferences</button></div>
<header class="site-header"><a class="logo" href="/">The Open Reference</a><nav><ul>{nav}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search the site"></form></header>
<div class="breadcrumbs"><a href="/">Home</a> &rsaquo; <a href="/topics">Topics</a> &rsaquo; {esc(page.article)}</div>
<main><article><h1>{esc(page.article)}</h1><h2>{esc(page.heading)}</h2>
<div class="byline">By the editorial team. Updated {rng.randint(1, 28)} March 20{rng.randint(10, 24)}.</div>
{body}
<div class="share">Share this article: <a href="/share/fb">Facebook</a> <a href="/share/x">X</a>
<a href="/share/mail">Email</a></div></article></main>
<aside class="sidebar"><h3>Related articles</h3><ul>{rel}</ul><h3>Trending now</h3><ul>{trending}</ul>
<div class="newsletter"><h3>Newsletter</h3><p>{_NEWSLETTER}</p><input placeholder="Your email"><button>Subscribe</button>
</div></aside>
<footer><p>{footer}</p><p>&copy; 2024 The Open Reference. All rights reserved. Text available under a
Creative Commons licence; additional terms may apply.</p></footer>
</body></html>"""


# ---------------------------------------------------------------- the search server (SearXNG JSON)

class QASearch:
    """BM25 over title + heading + paragraph excerpts; SearXNG-shaped answers with fixed distractors."""

    def __init__(self, pages: list[QAPage], port: int):
        from App_Function_Libraries.Retrieval.bm25 import BM25
        self.pages, self.port = pages, port
        self.index = BM25([f"{p.title} {' '.join(p.excerpts)}" for p in pages])
        self.requests = 0
        self.hidden: set[str] = set()  # page paths the search never returns (unanswerable questions)

    def url_of(self, page: QAPage) -> str:
        return f"http://{page.host}:{self.port}/{page.path}"

    def url_of_path(self, path: str) -> str:
        return next(self.url_of(p) for p in self.pages if p.path == path)

    def results(self, query: str, pageno: int = 1) -> list[dict]:
        import numpy as np
        scores = np.asarray(self.index.scores(query))
        order = [int(i) for i in np.argsort(-scores, kind="stable")
                 if scores[i] > 0 and self.pages[i].path not in self.hidden]
        seed = int(hashlib.sha256(query.encode("utf-8")).hexdigest()[:8], 16)
        rng = random.Random(seed)
        top = order[(pageno - 1) * RESULTS_PER_PAGE:pageno * RESULTS_PER_PAGE]
        articles = {self.pages[i].article for i in top[:3]}
        others = [i for i in range(len(self.pages))
                  if self.pages[i].article not in articles and self.pages[i].path not in self.hidden]
        for pos in DISTRACTOR_POSITIONS:
            if pos < len(top) and others:
                top[pos] = rng.choice(others)
        return [self._result(self.pages[i], query, rank) for rank, i in enumerate(top, 1)]

    def _result(self, page: QAPage, query: str, rank: int) -> dict:
        from App_Function_Libraries.Retrieval.bm25 import tokenize
        words = set(tokenize(query))
        best = max(page.excerpts, key=lambda e: len(words & set(tokenize(e))))
        return {"url": self.url_of(page), "title": page.title, "content": best + " …", "engine": "qa",
                "engines": ["qa"], "positions": [rank], "score": round(1.0 / rank, 4), "category": "general"}


def install(world, pages: list[QAPage], seed: int = 0) -> QASearch:
    """Serve every page (on its article's virtual host) and /searxng/search on the test world."""
    from Tests.support.testworld import Response
    rng = random.Random(seed)
    by_article: dict[str, list[QAPage]] = {}
    for p in pages:
        by_article.setdefault(p.article, []).append(p)
    search = QASearch(pages, world.port)
    for page in pages:
        related = [p for p in by_article[page.article] if p is not page][:3] + rng.sample(pages, 2)
        body = page_html(page, related, rng)
        world.route("GET", "/" + page.path, lambda req, body=body: Response.html(body))

    def searxng(req):
        search.requests += 1
        if req.arg("format") != "json":
            return Response.html("<html><body>format=json only</body></html>", status=403)
        q = req.arg("q", "") or ""
        results = search.results(q, int(req.arg("pageno", "1") or 1))
        return Response.json({"query": q, "number_of_results": len(results), "results": results, "answers": [],
                              "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []})
    world.route("GET", "/searxng/search", searxng)
    return search


def resolver(host: str, port: int) -> list[str]:
    """Every *.test host is the test world on this machine."""
    if not host.endswith(".test"):
        raise OSError(f"{host}: not a QA web host")
    return ["127.0.0.1"]
