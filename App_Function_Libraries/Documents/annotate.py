"""Context prepended to chunks before indexing: from the file's path (a pattern file) and from the LLM.

Path context: a YAML mapping of glob → text (e.g. `"*/grants/*": "Grant proposals of the lab."`); every
pattern that matches a document's path (or its file name) adds its text.

LLM context: for each chunk of an annotated group, the model gets the whole document (or, when that does not
fit its window, the document's opening and the text around the chunk) plus the chunk, and answers with a
short context. A context is kept only when it is 30-750 characters long; kept contexts are cached by the
hash of the document, the chunk and the model, so indexing the same text again costs no calls. A server
that stops answering is given up for the annotator's lifetime (one `add`): the remaining chunks are indexed
without LLM context, and each document says so once.
"""
from __future__ import annotations

import fnmatch
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from App_Function_Libraries.Documents.doc_types import PatternFileError
from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError, LLMUnavailable
from App_Function_Libraries.LLM.breaker import LLMHealth, RunClient
from App_Function_Libraries.LLM.context import fit_evidence

CONTEXT_MIN_CHARS = 30
CONTEXT_MAX_CHARS = 750
CONTEXT_MAX_TOKENS = 200
HEAD_WORDS = 600  # opening of a long document kept for orientation
AROUND_WORDS = 1500  # text around the chunk kept when the document does not fit


# ---------------------------------------------------------------- path context

@dataclass(frozen=True)
class PathPatterns:
    rules: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, path: Path) -> "PathPatterns":
        """Rules from a YAML file; a missing file gives no rules, a malformed one raises PatternFileError."""
        if not path.exists():
            return cls()
        import yaml
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError, OSError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise PatternFileError(f"{path}: not readable YAML: {first}") from None
        if data is None:
            return cls()
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise PatternFileError(f"{path}: expected a mapping of glob pattern to context text, "
                                   f'e.g.  "*/papers/*": "Published papers of the lab."')
        return cls(tuple((k.strip(), " ".join(v.split())) for k, v in data.items() if k.strip() and v.strip()))

    def context_for(self, path: Path) -> str:
        """The texts of every rule matching the path (POSIX form) or the file name, in file order."""
        full, name = path.as_posix(), path.name
        texts = [text for pattern, text in self.rules
                 if fnmatch.fnmatch(full, pattern) or fnmatch.fnmatch(name, pattern)]
        return " ".join(dict.fromkeys(texts))

    def fingerprint(self) -> str:
        return hashlib.sha1(repr(self.rules).encode("utf-8")).hexdigest()[:12]


# ---------------------------------------------------------------- LLM context

def clean_context(text: str) -> str | None:
    """The model's context made one line, or None when it breaks the length rule (30-750 characters)."""
    text = re.sub(r"^\s*(context|here is the context)\s*:\s*", "", text.strip(), flags=re.IGNORECASE)
    text = " ".join(text.split()).strip().strip("\"'“”").strip()
    if not CONTEXT_MIN_CHARS <= len(text) <= CONTEXT_MAX_CHARS:
        return None
    return text


def cache_key(doc_hash: str, chunk: str, model: str) -> str:
    digest = hashlib.sha256()
    for part in (doc_hash, chunk, model):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


@dataclass
class AnnotationOutcome:
    contexts: list[str | None]  # one per chunk (None: no usable context)
    calls: int = 0
    cached: int = 0
    rejected: int = 0  # answers outside the length rule
    errors: list[str] | None = None


class ChunkAnnotator:
    """Writes LLM contexts for chunks, through a cache (get(key) -> str | None, put(key, text))."""

    def __init__(self, client: LLMClient, cache_get: Callable[[str], str | None],
                 cache_put: Callable[[str, str], None]):
        self._health = getattr(client, "health", None) or LLMHealth()
        self.client = RunClient(client, self._health) if isinstance(client, LLMClient) and client.health is None \
            else client
        self._get, self._put = cache_get, cache_put

    @property
    def model_label(self) -> str:
        return self.client.describe()

    def annotate(self, document: str, doc_hash: str, chunks: list[str],
                 word_starts: list[int] | None = None) -> AnnotationOutcome:
        outcome = AnnotationOutcome(contexts=[], errors=[])
        fits = self._document_fits(document)
        doc_words = None if fits else document.split()
        for i, chunk in enumerate(chunks):
            key = cache_key(doc_hash, chunk, self.model_label)
            cached = self._get(key)
            if cached:
                outcome.contexts.append(cached)
                outcome.cached += 1
                continue
            excerpt = document if fits else _excerpt(doc_words, (word_starts or [0] * len(chunks))[i])
            context = self._ask(excerpt, chunk, outcome)
            if context:
                self._put(key, context)
            outcome.contexts.append(context)
        return outcome

    def _ask(self, document: str, chunk: str, outcome: AnnotationOutcome) -> str | None:
        tag = prompts.new_data_tag()
        if self._health.is_down(self.client):
            self._given_up(outcome)
            return None
        try:
            messages, _ = fit_evidence(
                self.client, lambda pieces: prompts.doc_chunk_context_messages(
                    pieces[0] if pieces else "", chunk, tag), [document], max_tokens=CONTEXT_MAX_TOKENS)
            outcome.calls += 1
            answer = self.client.chat(messages, temperature=0.0, max_tokens=CONTEXT_MAX_TOKENS).text
        except LLMUnavailable:
            self._given_up(outcome)
            return None
        except LLMError as exc:
            outcome.errors.append(f"contextual annotation failed: {exc}")
            return None
        context = clean_context(answer)
        if context is None:
            outcome.rejected += 1
        return context

    def _given_up(self, outcome: AnnotationOutcome) -> None:
        for note in self._health.notes("so the rest of the chunks are indexed without LLM context"):
            if f"contextual annotation failed: {note}" not in outcome.errors:
                outcome.errors.append(f"contextual annotation failed: {note}")

    def _document_fits(self, document: str) -> bool:
        budget = self.client.context_window - CONTEXT_MAX_TOKENS - 1200  # instructions and a chunk
        return self.client.count_tokens(document) <= budget


def _excerpt(doc_words: list[str], word_start: int) -> str:
    """The opening of a long document and the text around one of its chunks."""
    head = " ".join(doc_words[:HEAD_WORDS])
    lo = max(HEAD_WORDS, word_start - AROUND_WORDS // 2)
    around = " ".join(doc_words[lo:lo + AROUND_WORDS])
    return head + ("\n\n[…]\n\n" + around if around else "")
