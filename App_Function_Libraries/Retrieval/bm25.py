"""Okapi BM25 over an in-memory list of texts (for ranking a page's passages or a small candidate set).
Large collections use SQLite FTS5's bm25() instead (see the document and Wikipedia stores)."""
from __future__ import annotations

import math
import re
from collections import Counter

_TOKEN_RE = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset("""a an and are as at be by for from has have how in is it its of on or that the this to
was were what when where which who why will with does do did can""".split())


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without common English stop words."""
    return [t for t in _TOKEN_RE.findall(text.lower()) if t not in STOPWORDS]


class BM25:
    def __init__(self, texts: list[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [Counter(tokenize(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg_len = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = tokenize(query)
        out = []
        for doc, length in zip(self.docs, self.lengths):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avg_len) if self.avg_len else self.k1
            for t in terms:
                tf = doc.get(t)
                if tf:
                    s += self.idf[t] * tf * (self.k1 + 1) / (tf + norm)
            out.append(s)
        return out

    def ranking(self, query: str) -> list[int]:
        """Indexes of the texts, best first (texts sharing no term with the query come last)."""
        scores = self.scores(query)
        return sorted(range(len(scores)), key=lambda i: -scores[i])
