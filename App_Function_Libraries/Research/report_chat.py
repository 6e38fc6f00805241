"""Ask about this report: a question about a finished report answered from that report's own sources, with
no new web search. Each numbered source offers its page as the page cache keeps it (when it is still the
page the report read: same content hash), re-ranked for the new question (Research/rank.py), plus the
passages stored with the report. The answer is written by the LLM when one is configured, else quoted from
those texts (Retrieval/citations.extractive_answer, the sentence ranking the extractive report uses: by the
question's words, by meaning only when no sentence shares one); either
way every [n] is the report's number for that source and is verified against that source's text like the
report's own citations (Retrieval/citations.verify_citations). When no source covers the question the
answer says so instead of quoting something unrelated.

    exchange = ask_saved_report(report_id, "How far away is the food?")   # answered and saved with it
"""
from __future__ import annotations

from dataclasses import dataclass, field

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval.citations import (CITATION_GROUP_RE, CitableSource, extractive_answer,
                                                        verify_citations)
from App_Function_Libraries.Research.page_stream import content_hash
from App_Function_Libraries.Research.rank import RankSettings, rank_pages
from App_Function_Libraries.records import ReportExchange, ResearchResult, Source

NOT_COVERED = ("The report's sources do not answer this question: nothing they say relates to it. Research it "
               "as a new question to search the web.")
NO_SOURCES = "This report has no numbered sources to answer from."
ANY_AGE = 100 * 365 * 86400.0  # a report's pages are read from the cache however long ago they were fetched
MAX_SENTENCES = 4


@dataclass
class ChatServices:
    """What answering needs; every part optional (no LLM: extractive; no store: stored passages only)."""
    llm: LLMClient | None = None
    embedder: object = None
    store: object = None  # research_store.ResearchStore (get_page) for the cached pages
    rank: RankSettings = field(default_factory=RankSettings)
    cross_encoder: object = None


def report_sources(result: ResearchResult, question: str, services: ChatServices) -> list[CitableSource]:
    """The report's numbered sources as texts to answer from: the cached page's best passages for this
    question first, then the passages the report kept (or its snippet), numbered as in the report."""
    numbered = result.cited_sources()
    pages = [cached_text(s, services.store) for s in numbered]
    present = [i for i, text in enumerate(pages) if text]
    ranked = rank_pages(question, [pages[i] for i in present], services.rank, services.embedder,
                        services.cross_encoder) if present else []
    fresh = {i: [p.text for p in ps] for i, ps in zip(present, ranked)}
    out = []
    for i, s in enumerate(numbered):
        stored = [p.text for p in s.passages] or ([s.snippet] if s.snippet else [s.notes])
        passages = fresh.get(i, []) + [p for p in stored if p and p not in fresh.get(i, [])]
        out.append(CitableSource(s.n, s.final_url or s.url, s.title, passages, s.content_hash))
    return out


def cached_text(source: Source, store) -> str:
    """The page text the page cache keeps for this source, '' when none, or when the cached page is no longer
    the one the report read (its content hash differs)."""
    if store is None:
        return ""
    for url in dict.fromkeys(u for u in (source.url, source.final_url) if u):
        try:
            page = store.get_page(url, ANY_AGE)
        except Exception:  # noqa: BLE001 - a broken cache leaves the stored passages to answer from
            return ""
        if page is not None and page.text:
            same = not source.content_hash or source.content_hash in (page.content_hash, content_hash(page.text))
            return page.text if same else ""
    return ""


def ask_report(result: ResearchResult, question: str, services: ChatServices | None = None) -> ReportExchange:
    """A cited answer to `question` from `result`'s own sources (see the module docstring)."""
    question = " ".join((question or "").split())
    if not question:
        raise ValueError("type a question about the report first")
    services = services or ChatServices()
    sources = report_sources(result, question, services)
    if not sources:
        return ReportExchange(question, NO_SOURCES, mode="none")
    errors: list[str] = []
    if services.llm is not None:
        try:
            return _checked(question, _llm_answer(question, result.report_markdown, sources, services.llm),
                            sources, services.embedder, "llm", errors)
        except LLMError as exc:
            errors.append(f"the LLM could not answer ({exc}); this answer is quoted from the sources")
    markdown = extractive_quotes(question, sources, services.embedder)
    if not CITATION_GROUP_RE.search(markdown):  # no sentence of any source relates to the question
        return ReportExchange(question, NOT_COVERED, mode="none", errors=errors)
    return _checked(question, markdown, sources, services.embedder, "extractive", errors)


def extractive_quotes(question: str, sources: list[CitableSource], embedder) -> str:
    """The sentences that share a word with the question; only when none does, those close to it in meaning
    (a follow-up question is narrow: a sentence merely near the topic would dilute the answer)."""
    markdown = extractive_answer(question, sources, None, MAX_SENTENCES)
    if embedder is not None and not CITATION_GROUP_RE.search(markdown):
        markdown = extractive_answer(question, sources, embedder, MAX_SENTENCES)
    return markdown


def _llm_answer(question: str, report: str, sources: list[CitableSource], llm: LLMClient) -> str:
    tag = prompts.new_data_tag()
    pieces = [prompts.wrap_untrusted("\n\n".join(s.passages), tag, f"[{s.n}] {s.title}") for s in sources]
    messages, _trimmed = fit_evidence(llm, lambda kept: prompts.report_chat_messages(question, report, kept, tag),
                                      pieces)
    return llm.chat(messages).text.strip()


def _checked(question: str, markdown: str, sources: list[CitableSource], embedder, mode: str,
             errors: list[str]) -> ReportExchange:
    check = verify_citations(markdown, sources, embedder)
    if check.invalid_removed:
        errors.append(f"removed {check.invalid_removed} citation(s) naming no source of the report")
    return ReportExchange(question, check.markdown, check.citations, mode, errors, check.invalid_removed)


def cited_refs(result: ResearchResult, exchange: ReportExchange) -> list[Source]:
    """The report's sources the answer cites, in number order."""
    cited = {c.n for c in exchange.citations}
    return [s for s in result.cited_sources() if s.n in cited]


def exchange_text(result: ResearchResult, exchange: ReportExchange) -> str:
    """The answer as plain Markdown with the sources it cites listed under it (`[n] title: URL`)."""
    lines = [exchange.answer_markdown]
    refs = cited_refs(result, exchange)
    if refs:
        lines += ["", "Sources (the report's numbers):"]
        lines += [f"[{s.n}] {s.title or s.url}: {s.final_url or s.url}" for s in refs]
    lines += [f"Note: {e}" for e in exchange.errors]
    return "\n".join(lines)


# ---------------------------------------------------------------- with the configured services, saved

def services_for(result: ResearchResult, settings) -> ChatServices:
    """The configured LLM (when the report's run allowed one), embedder, cross-encoder and page cache."""
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.LLM.registry import get_llm
    llm = get_llm("final_answer", settings) if result.params.get("use_llm", True) else None
    embedder = None
    if settings.research.use_embeddings:
        from App_Function_Libraries.Retrieval.embeddings import get_embedder
        embedder = get_embedder(settings)
    cross = None
    if settings.embeddings.cross_encoder:
        from App_Function_Libraries.Retrieval.rerank import get_cross_encoder
        try:
            cross = get_cross_encoder(settings.embeddings.cross_encoder)
        except Exception:  # noqa: BLE001 - a missing re-ranker degrades ranking, never the answer
            cross = None
    rank = RankSettings(int(result.params.get("passages_per_page") or settings.research.passages_per_page),
                        settings.research.passage_words_min, settings.research.passage_words_max)
    return ChatServices(llm, embedder, get_research_store(settings), rank, cross)


def ask_and_save(result: ResearchResult, question: str, settings=None) -> ReportExchange:
    """Answer with the configured services and save the exchange with the report (which must be saved)."""
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.config import get_settings
    settings = settings or get_settings()
    exchange = ask_report(result, question, services_for(result, settings))
    get_research_store(settings).save_exchange(result.id, exchange)
    return exchange


def ask_saved_report(report_id: str, question: str, settings=None) -> tuple[ResearchResult, ReportExchange]:
    """Load saved report `report_id` (its first characters are enough), answer, save; (report, exchange)."""
    from App_Function_Libraries.DB.research_store import get_research_store
    store = get_research_store(settings)
    result = store.load_report(store.resolve_id(report_id))
    return result, ask_and_save(result, question, settings)
