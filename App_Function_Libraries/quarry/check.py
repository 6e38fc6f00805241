"""`check`'s verdicts on the local sources: the Wikipedia index and the document library, read without loading a
model (the LLM roles and search engines are status.status_lines)."""
from __future__ import annotations

from App_Function_Libraries.quarry._common import settings_or_current


def local_verdicts(settings=None) -> list:
    """[Verdict for the Wikipedia index, Verdict for the document library]: ok True, False (cannot be used, or
    none although the default sources name it) or None (none yet, and not asked for)."""
    from App_Function_Libraries.Documents.library import library_status
    from App_Function_Libraries.quarry import wiki
    from App_Function_Libraries.status import Verdict
    settings = settings_or_current(settings)
    index = wiki.status(settings)
    wiki_ok: bool | None = index.exists
    if not index.exists and not index.built:  # none built yet: a failure only when asked for
        wiki_ok = False if "wikipedia" in _default_sources(settings) else None
    docs_ok, docs_message = library_status(settings)
    if docs_ok is None and "documents" in _default_sources(settings):
        docs_ok = False
    return [Verdict("wikipedia index", wiki_ok, index.message), Verdict("document library", docs_ok, docs_message)]


def _default_sources(settings) -> list[str]:
    return [n.strip() for n in settings.search.search_provider_default.split(",")]
