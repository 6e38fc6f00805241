"""Plain JSON views of the facade's records, as every front door that answers data (MCP tools, the HTTP API)
shows them; secrets scrubbed (API keys and tokens never leave in output, even one a server echoed into an error
message)."""

from __future__ import annotations

from typing import Any


def safe(data: Any, settings) -> Any:
    """Plain JSON data with every configured secret value and credential-named field removed."""
    from App_Function_Libraries.DB.redact import configured_secrets, scrub, to_plain
    return scrub(to_plain(data), configured_secrets(settings))


def safe_message(text: str, settings) -> str:
    from App_Function_Libraries.DB.redact import configured_secrets, scrub_message
    return scrub_message(" ".join(str(text).split()), configured_secrets(settings))


def research_out(result, saved: bool) -> dict[str, Any]:
    """The report, its listed sources (ResearchResult.listed_sources: cited first, then read but not cited;
    export.listed_plain), its citations with their supporting quotes, passages and verdicts, the closest passages
    (not used) of a report that does not answer, the search options it ran with."""
    from App_Function_Libraries.DB.export import listed_plain
    sources = listed_plain(result)
    return {"question": result.question, "report_markdown": result.report_markdown, "mode": result.mode,
            "answer_status": result.answer_status, "unanswered_parts": list(result.unanswered_parts),
            "closest": closest_out(result.closest), "unsupported_citations": result.unsupported_citations,
            "sources": sources, "citations": citations_out(result.citations), "errors": list(result.errors),
            "follow_up_questions": list(result.follow_ups or []), "search_options": _search_options(result),
            "id": result.id if saved else None}


def _search_options(result) -> dict[str, Any]:
    """The web search options the run used that differ from the engines' own defaults, under their labels."""
    from App_Function_Libraries.Research.params import ResearchParams
    return ResearchParams.from_dict(result.params or {}).search_options()


def search_out(merged) -> dict[str, Any]:
    results = [{"n": r.rank, "title": r.title, "url": r.url, "snippet": r.content, "engines": list(r.engines),
                "date": (r.metadata or {}).get("date_published")} for r in merged.results]
    errors = [f"{label.split('|')[0]}: {message}" for label, message in merged.errors.items()]
    return {"query": merged.queries[0] if merged.queries else "", "results": results, "errors": errors}


def wiki_hits_out(hits) -> list[dict[str, Any]]:
    return [{"n": i, "title": h.title, "url": h.url, "text": h.text, "score": round(float(h.score), 4)}
            for i, h in enumerate(hits, start=1)]


def answer_out(asked) -> dict[str, Any]:
    """A Wikipedia or documents answer (WikiAsked, DocsAsked): markdown citing [n], the numbered sources,
    citations with quote, passage and verdict, errors, whether it answers and, when not, the closest passages."""
    answer = asked.answer
    sources = [{"n": s.n, "title": s.title, "url": s.url, "kind": s.kind} for s in answer.sources]
    return {"question": asked.question, "answer_markdown": answer.markdown, "mode": answer.mode,
            "answer_status": answer.status, "unanswered_parts": list(answer.unanswered),
            "closest": closest_out(answer.closest), "sources": sources, "citations": citations_out(answer.citations),
            "errors": list(answer.errors)}


def citations_out(citations) -> list[dict[str, Any]]:
    """Each citation with its supporting quote, the passage around it and its verdict (every answer alike)."""
    return [{"n": c.n, "sentence": c.sentence, "url": c.url, "quote": c.quote, "passage": c.passage,
             "verdict": c.verdict} for c in citations]


def closest_out(closest) -> list[dict[str, Any]]:
    """The closest passages (not used) of an answer that does not answer: where each is, its relevance, its text."""
    return [{"where": c.where, "score": c.score, "text": c.text} for c in closest]


def docs_hits_out(hits) -> list[dict[str, Any]]:
    return [{"n": i, "source": h.citation_target, "location": h.location, "text": h.text,
             "score": round(float(h.score), 4)} for i, h in enumerate(hits, start=1)]


def note_out(note, content: bool = True) -> dict[str, Any]:
    out = {"id": note.id, "title": note.title, "keywords": list(note.keywords), "version": note.version,
           "updated_at": note.updated_at}
    if content:
        out["content"] = note.content
    return out


def note_hits_out(hits) -> list[dict[str, Any]]:
    from App_Function_Libraries.DB.snippets import plain
    return [{"id": h.note.id, "title": h.note.title, "snippet": plain(h.snippet)[0]} for h in hits]


def history_out(reports) -> list[dict[str, Any]]:
    return [{"id": r.id, "question": r.question, "created_at": r.created_at, "sources": r.source_count,
             "citations": r.citation_count, "mode": r.mode} for r in reports]


def keep_out(kept) -> dict[str, Any]:
    """What keeping a report's sources did: the summary line, the titles added and kept before, and each
    source not kept with why."""
    return {"summary": kept.summary(), "added": list(kept.added), "kept_before": list(kept.already),
            "not_kept": list(kept.skipped)}


def run_out(run) -> dict[str, Any]:
    """A run that did not finish (run_store.RunRecord): resume it with its id."""
    return {"id": run.id, "question": run.question, "status": run.status, "last_stage": run.stage,
            "updated_at": run.updated_at}


def watch_out(watch, runs) -> dict[str, Any]:
    return {"id": watch.id, "question": watch.question, "report_id": watch.report_id,
            "every_seconds": watch.every_seconds, "next_due": watch.next_due, "plan": watch.plan,
            "runs": [{"run_id": r.run_id, "ran_at": r.ran_at, "new_sources": r.new_sources,
                      "changed_sources": r.changed_sources, "notified": r.notified} for r in runs]}


def watch_outcome_out(outcome) -> dict[str, Any]:
    return {"watch_id": outcome.watch_id, "run_id": outcome.run_id or None, "nothing_new": outcome.nothing_new,
            "new_sources": outcome.new_sources, "changed_sources": outcome.changed_sources,
            "findings": list(outcome.findings), "notified": outcome.notified, "problem": outcome.problem,
            "report_markdown": outcome.report_markdown}
