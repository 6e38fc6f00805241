"""Ask about this report: a question about a finished report answered from that report's own sources, with
no new web search. Each numbered source offers its page as the page cache keeps it (when it is still the
page the report read: same content hash), re-ranked for the new question (Research/rank.py), plus the
passages stored with the report. It is answered by the cited-answer core (Retrieval/cited_answer.py), like
the report: when nothing those texts say clears the relevance floor the answer says the report's sources do not
answer the question, with the closest passages marked not used (no LLM is asked); otherwise the LLM writes when
one is configured, else the core's extractive writer quotes the texts. Either way every [n] is verified against
its source's text and given a verdict like the report's own citations; the answer (records.Answer) then
numbers the sources it cites 1..k, in order of first citation, each keeping the report's number for it
(`AnswerSource.report_n`). A question of several parts names the parts its sources do not answer.

    exchange = ask_saved_report(report_id, "How far away is the food?")   # answered and saved with it
"""
from __future__ import annotations

from dataclasses import dataclass, field

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval import numbering
from App_Function_Libraries.Retrieval.citations import CitableSource
from App_Function_Libraries.Research import coverage
from App_Function_Libraries.Research.errors import EmptyQuestion
from App_Function_Libraries.Research.page_stream import content_hash
from App_Function_Libraries.Research.rank import RankSettings, rank_pages
from App_Function_Libraries.records import Answer, ReportExchange, ResearchResult, Source

NOT_COVERED = ("The report's sources do not answer this question: nothing they say reaches the relevance floor. "
               "Research it as a new question to search the web")
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
    numbered = result.numbered_sources()
    pages = [cached_text(s, services.store) for s in numbered]
    present = [i for i, text in enumerate(pages) if text]
    ranked = rank_pages(question, [pages[i] for i in present], services.rank, services.embedder,
                        services.cross_encoder) if present else []
    fresh = {i: [p.text for p in ps] for i, ps in zip(present, ranked)}
    out = []
    for i, s in enumerate(numbered):
        kept = CitableSource.of(s)
        kept.passages = fresh.get(i, []) + [p for p in kept.passages if p and p not in fresh.get(i, [])]
        out.append(kept)
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
        raise EmptyQuestion("type a question about the report first")
    services = services or ChatServices()
    return ReportExchange(question, answer_about(result, question, services), result.id)


def answer_about(result: ResearchResult, question: str, services: ChatServices) -> Answer:
    """The answer record, its sources the report's cited ones numbered 1..k, each keeping its report number."""
    sources = report_sources(result, question, services)
    if not sources:
        return core.not_answered(NO_SOURCES, [])
    parts = coverage.question_parts(question)
    closest = core.nothing_clears(question, sources, services.embedder, parts or None)
    if closest is not None:
        return core.not_answered(f"{NOT_COVERED}.", closest)
    errors: list[str] = []
    answer = None
    if services.llm is not None:
        try:
            markdown = _llm_answer(question, result.report_markdown, sources, services.llm)
            answer = core.finish(markdown, sources, services.embedder, "llm")
        except LLMError as exc:
            errors.append(f"the LLM could not answer ({exc}); this answer is quoted from the sources")
    if answer is None:
        answer = core.extractive(question, sources, services.embedder, parts or None, max_sentences=MAX_SENTENCES,
                                 statement=NOT_COVERED)
    return _own_numbers(result, answer, errors)


def _llm_answer(question: str, report: str, sources: list[CitableSource], llm: LLMClient) -> str:
    tag = prompts.new_data_tag()
    pieces = [prompts.wrap_untrusted("\n\n".join(s.passages), tag, f"[{s.n}] {s.title}") for s in sources]
    messages, _trimmed = fit_evidence(llm, lambda kept: prompts.report_chat_messages(question, report, kept, tag),
                                      pieces)
    return llm.chat(messages).text.strip()


def _own_numbers(result: ResearchResult, answer: Answer, errors: list[str]) -> Answer:
    """The answer's own short source list: the report's sources it cites, numbered 1..k in order of first
    citation, each with its report number and kind."""
    if answer.invalid_citations_removed:
        errors.append(f"removed {answer.invalid_citations_removed} citation(s) naming no source of the report")
    if answer.unsupported_citations:
        errors.append(f"{answer.unsupported_citations} cited sentence(s) not supported by the source they cite "
                      f"(marked)")
    answer.errors = errors
    by_n = {s.n: s for s in result.numbered_sources()}
    for source in answer.sources:
        source.report_n = source.n
        source.kind = by_n[source.n].kind if source.n in by_n else source.kind
    numbering.number_gapless(answer, keep_uncited=False)
    return answer


def exchange_text(exchange: ReportExchange) -> str:
    """The answer as plain Markdown with the sources it cites listed under it (`[n] title: URL`, and the
    report's number for each)."""
    answer = exchange.answer
    lines = [answer.markdown]
    if answer.sources:
        lines += ["", "Sources:"]
        lines += [f"[{s.n}] {s.title or s.url}: {s.url}{report_number(s)}" for s in answer.sources]
    lines += [f"Note: {e}" for e in answer.errors]
    return "\n".join(lines)


def report_number(source) -> str:
    """" (the report's [n])" for a source the report numbered differently; '' when the numbers agree."""
    return f" (the report's [{source.report_n}])" if source.report_n not in (None, source.n) else ""


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
