"""Boilerplate that main-content extraction (trafilatura) lets through, removed by general rules.

Two steps around trafilatura in `reading.extract_html`:

* `prune_page_chrome(tree)`: before extraction, delete page parts whose id/class names them as chrome
  trafilatura's own lists miss or only apply all-or-nothing (newsletter/sign-up promos, author boxes,
  share/rating bars, "next post" teasers). Each match is guarded on its own: never an element holding the
  page's <h1>, an <article>/<main>, or a large share of the page's text.
* `unwrap_layout_tables(tree)`: before extraction, a table used to lay the page out becomes plain blocks, so
  its text keeps its lines: a post laid out in a table cell came out as one row, its lines run together ("…
  Update + Added Granite … + Added Slime Block + …"). A layout table, as Mozilla Readability tells them: one
  marked role="presentation", or one with no header cell, caption or summary that holds another table, or
  is a single row or column whose cells hold blocks (paragraphs, headings, lists). Any other table is data
  and stays a table.
* `drop_boilerplate_paragraphs(paragraphs)`: after extraction, drop paragraphs that read as page furniture:
  photo credits, copyright and "last modified" stamps, newsletter/sign-up calls, share/comment-count
  prompts, label-only lines ("Advertisement", "Related posts"), pipe-separated meta lines. Line-level rules
  are short-line only (a sentence of content is never this short and this formulaic), and the
  site-footer ones only at the end of the text.
"""
from __future__ import annotations

import re

# ---------------------------------------------------------------- raw-tree pruning

# id/class tokens of page chrome; matched case-insensitively against @id and @class.
CHROME_TOKENS = (
    r"newsletter", r"sign-?up", r"subscri(?:be|ption)-(?:box|form|promo|widget|cta)", r"promo(?:tion)?s?(?:\b|-|_)",
    r"author-?(?:bio|box|info|avatar|card|profile)", r"about-?the-?author", r"entry-author",
    r"share-?(?:bar|box|buttons|links|tools)", r"sharedaddy", r"social-?(?:share|links|buttons|icons)",
    r"jp-post-flair", r"post-?rating", r"rating-?(?:box|widget)",
    r"next-?(?:post|story|article)", r"nextstory", r"read-?next", r"up-?next", r"more-?stories",
    r"related-?(?:posts|articles|stories|content|links)", r"recommended", r"you-?may-?(?:also-?)?like",
)
CHROME_RE = re.compile("|".join(CHROME_TOKENS), re.IGNORECASE)
CHROME_TAGS = ("div", "section", "aside", "p", "ul", "ol", "span", "figure", "form", "nav")
MAX_CHROME_SHARE = 0.25  # an element with more than this share of the page's text is not pruned


def prune_page_chrome(tree) -> int:
    """Delete chrome elements (see CHROME_TOKENS) from an lxml HTML tree in place; returns how many."""
    body = tree.find(".//body")
    root = body if body is not None else tree
    total = len(" ".join(root.text_content().split())) or 1
    matches = []
    for el in root.iter(*CHROME_TAGS):
        names = f"{el.get('id') or ''} {el.get('class') or ''}"
        if names.strip() and CHROME_RE.search(names):
            matches.append(el)
    removed = 0
    for el in matches:
        if el.getparent() is None or any(a in matches for a in el.iterancestors()):
            continue
        if el.find(".//h1") is not None or el.find(".//article") is not None or el.find(".//main") is not None:
            continue
        if len(" ".join(el.text_content().split())) > MAX_CHROME_SHARE * total:
            continue
        _delete_keep_tail(el)
        removed += 1
    return removed


_TABLE_PARTS = ("tbody", "thead", "tfoot", "tr", "td", "th", "caption", "colgroup", "col")
_BLOCKS = ("p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "article", "section", "blockquote")
_BLOCK_IN_CELL = "|".join(f".//td//{tag}|.//th//{tag}" for tag in _BLOCKS)  # a cell holding a block


def unwrap_layout_tables(tree) -> int:
    """Turn each layout table (see the module docstring) and its own rows and cells into <div>s, in place;
    returns how many tables. A data table inside a layout table's cell stays a table."""
    tables = [t for t in tree.iter("table") if _lays_out(t)]
    own = [el for t in tables for el in [t, *t.iter(*_TABLE_PARTS)] if el is t or _table_of(el) is t]
    for el in own:  # each table's own parts found first: renaming one changes what encloses another's
        el.tag = "div"
    return len(tables)


def _lays_out(table) -> bool:
    """Whether the table lays the page out rather than holding data (see the module docstring)."""
    if (table.get("role") or "").lower() in ("presentation", "none"):
        return True
    if table.get("summary") or table.xpath("./caption|./thead") or any(_table_of(th) is table
                                                                         for th in table.iter("th")):
        return False
    if table.xpath(".//table"):
        return True
    rows = [r for r in table.iter("tr") if _table_of(r) is table]
    columns = max((sum(1 for c in r if c.tag in ("td", "th")) for r in rows), default=0)
    return (len(rows) == 1 or columns == 1) and bool(table.xpath(_BLOCK_IN_CELL))


def _table_of(el):
    """The nearest table around el, or None."""
    return next(el.iterancestors("table"), None)


def _delete_keep_tail(el) -> None:
    parent = el.getparent()
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


# ---------------------------------------------------------------- paragraph filter

LABEL_ONLY = re.compile(
    r"^(?:advertisement|anzeige|werbung|publicité|pubblicità|sponsored|read more|weiterlesen|lire la suite|"
    r"related|related posts|related articles|related stories|you might also like|you may also like|"
    r"more stories|more from [\w ]{1,30}|share this( article| story| post)?|share|teilen|teilen sie dies mit|"
    r"share this:|print|drucken|leave a reply|leave a comment|kommentar verfassen|write a comment|"
    r"comments|kommentare|(?:view|show|add) comments|\d+ (?:comments?|kommentare?|responses?|antworten)|"
    r"tags|tagged|getaggt mit|filed under|bewerten|rate this|like this|gefällt mir)\s*:?$",
    re.IGNORECASE)
CREDIT = re.compile(
    r"^\(?\s*(?:photo|foto|image|bild|picture|photograph|credit|crédit|crédits|bildnachweis|fotonachweis|"
    r"bildquelle|image source|photo credit|photos?)\s*(?:credit|by|nachweis|:|©)\s*:?.{0,80}\)?$",
    re.IGNORECASE)
COPYRIGHT = re.compile(
    r"^(?:©|\(c\)|copyright\b|copyleft\b)|all rights reserved|alle rechte vorbehalten|tous droits réservés|"
    r"tutti i diritti riservati|todos los derechos reservados", re.IGNORECASE)
MODIFIED = re.compile(
    r"(?:^|\s-\s)(?:last (?:modified|updated|edited|changed)|letzte änderung|"
    r"zuletzt (?:aktualisiert|geändert|bearbeitet)|"
    r"dernière (?:mise à jour|modification)|ultima modifica|última actualización|page (?:last )?updated)\b",
    re.IGNORECASE)
SITE_LICENSE = re.compile(
    r"(?:(?:content|contents|inhalte?|contenus?|material)\s+(?:(?:of|on|auf)\s+)?(?:this|dieser|diese|ce|cette)\s+"
    r"(?:site|website|webseite|blog|seite|page)|(?:this|dieses?|ce)\s+(?:site|website|blog|work|werk)\s+"
    r"(?:is|steht|est)\s+(?:licensed|unter|sous))",
    re.IGNORECASE)
SIGNUP = re.compile(r"\b(?:sign[ -]?up|subscribe|newsletter|abonnier\w*|anmelden|inscri\w+)\b", re.IGNORECASE)
SIGNUP_CONTEXT = re.compile(
    r"\b(?:e-?mail|inbox|daily|weekly|free|never miss|top stories|latest news|updates|kostenlos|gratis|"
    r"täglich|wöchentlich)\b", re.IGNORECASE)
PIPE_SPLIT = re.compile(r"\s\|\s")

MAX_SHORT_WORDS = 25  # rules on phrasing apply only to paragraphs at most this long
FOOTER_LINES = 3  # site-footer rules (licence, copyright) apply to the last lines only


def boilerplate_reason(paragraph: str, from_end: int) -> str:
    """Why a paragraph is boilerplate ('' when it is not). from_end: 0 for the last paragraph."""
    words = paragraph.split()
    n = len(words)
    if n == 0 or n > MAX_SHORT_WORDS:
        return ""
    text = paragraph.strip(" -–—|•·")
    if LABEL_ONLY.match(text):
        return "label"
    if n <= 15 and CREDIT.match(text):
        return "credit"
    if n <= 15 and MODIFIED.search(text) and re.search(r"\d", text):
        return "modified"
    if n <= 25 and SIGNUP.search(text) and SIGNUP_CONTEXT.search(text):
        return "signup"
    if not paragraph.startswith("|"):  # trafilatura renders table rows as | a | b |
        parts = [p for p in PIPE_SPLIT.split(paragraph) if p.strip()]
        if len(parts) >= 3 and all(len(p.split()) <= 6 for p in parts):
            return "meta-pipes"
    if from_end < FOOTER_LINES:
        if n <= 20 and COPYRIGHT.search(text):
            return "copyright"
        if SITE_LICENSE.search(text):
            return "site-licence"
    return ""


def drop_boilerplate_paragraphs(paragraphs: list[str]) -> list[str]:
    """The paragraphs without those `boilerplate_reason` flags; all of them if it would flag every one."""
    count = len(paragraphs)
    kept = [p for i, p in enumerate(paragraphs) if not boilerplate_reason(p, count - 1 - i)]
    return kept if kept else paragraphs


# ---------------------------------------------------------------- standfirst recovery

META_DESCRIPTION_XPATH = ("//meta[@property='og:description']/@content", "//meta[@name='description']/@content",
                          "//meta[@name='twitter:description']/@content")
MIN_STANDFIRST_WORDS = 8
STANDFIRST_TAGS = ("p", "div", "span", "h2", "h3", "strong", "em", "section", "header")
NOT_CONTENT_RE = re.compile(r"nav|menu|footer|sidebar|related|teaser-list|breadcrumb|cookie|consent", re.IGNORECASE)


def standfirst(tree) -> tuple[str, str]:
    """The page's standfirst (lead/teaser) when the page shows it: (meta description, text of the smallest
    body element holding it). The description is og:description, description or twitter:description of at
    least MIN_STANDFIRST_WORDS words; it must be visible text in the body outside navigation, footers and
    sidebars. ('', '') when there is none."""
    body = tree.find(".//body")
    if body is None:
        return "", ""
    for xpath in META_DESCRIPTION_XPATH:
        for value in tree.xpath(xpath):
            desc = " ".join(str(value).split())
            probe = desc.rstrip("…. ")[:120]  # a description is often cut short with an ellipsis
            if len(probe.split()) < MIN_STANDFIRST_WORDS:
                continue
            best = None
            for el in body.iter(*STANDFIRST_TAGS):
                text = " ".join(el.text_content().split())
                if probe in text and (best is None or len(text) < len(best[1])):
                    best = (el, text)
            if best is None:
                continue
            el, text = best
            if any(a.tag in ("nav", "footer", "aside", "script", "noscript", "template") or
                   NOT_CONTENT_RE.search(f"{a.get('id') or ''} {a.get('class') or ''}")
                   for a in [el, *el.iterancestors()]):
                continue
            return desc, text
    return "", ""


def with_standfirst(paragraphs: list[str], lead: tuple[str, str]) -> list[str]:
    """The paragraphs with the standfirst first, unless it is already there. The holding element's text is
    used when none of it is in the paragraphs already (no 60-character window of it), else the description."""
    desc, text = lead
    if not desc or not paragraphs:
        return paragraphs
    joined = " ".join(paragraphs)
    if desc.rstrip("…. ")[:60] in joined:
        return paragraphs
    if len(text) > 3 * len(desc) + 40 or any(text[i:i + 60] in joined for i in range(0, max(1, len(text) - 59), 20)):
        text = desc
    return [text, *paragraphs]
