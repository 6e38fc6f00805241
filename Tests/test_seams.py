"""The Protocols on the pipeline's seams (Research/pipeline.Services, Research/page_stream.StreamConfig) describe
what the real parts are called with: each real implementation accepts every call its Protocol allows."""
from __future__ import annotations

import inspect

import pytest

from App_Function_Libraries.DB.research_store import ResearchStore
from App_Function_Libraries.Research.page_stream import PageCache
from App_Function_Libraries.Research.pipeline import SearchFn
from App_Function_Libraries.Research.rank import MemoEmbedder
from App_Function_Libraries.Retrieval.embeddings import Embedder, TextEncoder
from App_Function_Libraries.Retrieval.rerank import PairScorer
from App_Function_Libraries.Search.many import search_many

P = inspect.Parameter


def call_gaps(impl, proto) -> list[str]:
    """Ways a call the Protocol method allows would fail on `impl` (empty: every such call fits)."""
    want = [p for p in inspect.signature(proto).parameters.values() if p.name != "self"]
    have = [p for p in inspect.signature(impl).parameters.values() if p.name != "self"]
    by_name = {p.name: p for p in have}
    positional = [p for p in have if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    var_kw = any(p.kind is P.VAR_KEYWORD for p in have)
    gaps, used = [], set()
    for i, p in enumerate(want):
        if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            if i >= len(positional) or (p.kind is P.POSITIONAL_OR_KEYWORD and positional[i].name != p.name):
                gaps.append(f"positional {i} {p.name!r}")
            else:
                used.add(positional[i].name)
        elif p.kind is P.KEYWORD_ONLY:
            if p.name in by_name and by_name[p.name].kind in (P.KEYWORD_ONLY, P.POSITIONAL_OR_KEYWORD):
                used.add(p.name)
            elif not var_kw:
                gaps.append(f"keyword {p.name!r}")
        elif p.kind is P.VAR_KEYWORD and not var_kw:
            gaps.append("**options")
    gaps += [f"{p.name!r} has no default" for p in have if p.name not in used and p.default is P.empty
             and p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD)]
    return gaps


def methods(proto) -> list[str]:
    return ["__call__"] if "__call__" in vars(proto) else [n for n in vars(proto) if not n.startswith("_")]


@pytest.mark.parametrize("impl, proto", [
    (search_many, SearchFn), (ResearchStore, PageCache), (Embedder, TextEncoder), (MemoEmbedder, TextEncoder)])
def test_the_real_part_accepts_every_call_its_protocol_allows(impl, proto):
    names = methods(proto)
    assert names
    for name in names:
        target = impl if name == "__call__" else getattr(impl, name)
        assert call_gaps(target, getattr(proto, name)) == [], f"{impl.__name__}.{name} vs {proto.__name__}"


def test_the_cross_encoder_accepts_the_calls_ranking_makes():
    st = pytest.importorskip("sentence_transformers")
    assert call_gaps(st.CrossEncoder.predict, PairScorer.predict) == []


def test_a_stand_in_that_does_not_fit_is_found():
    """Control: a page cache whose get_page lost its max_age_seconds, and a search without settings=."""
    class StaleCache:
        def get_page(self, url): ...

        def put_page(self, page, flush): ...

    def search(engines, query, content_country=None):
        ...

    assert call_gaps(StaleCache.get_page, PageCache.get_page) == ["positional 1 'max_age_seconds'"]
    assert call_gaps(StaleCache.put_page, PageCache.put_page) == ["'flush' has no default"]
    assert "keyword 'settings'" in call_gaps(search, SearchFn.__call__)
