"""Keeping API keys out of everything Quarry stores or exports.

Two guards, applied to plain data (dicts, lists, strings) before it is written or exported:
- a field whose name says it holds a credential (`api_key`, `token`, `secret`, `password`, `authorization`,
  ...) is dropped; counters such as `max_tokens` or `prompt_tokens` are not credentials and stay;
- every configured key value (settings and QUARRY_*_KEY environment variables) is replaced in messages, and
  so are `key=`/`token=` query parameters and bearer tokens; in content (titles, snippets, URLs, report text)
  only values that look like credentials are replaced: a local server's placeholder key such as `ollama` or
  `lm-studio` is no secret, and blanking it would corrupt every URL and sentence that names the product.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from typing import Any, Iterable

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 6  # shorter values would blank out ordinary words
CREDENTIAL_LENGTH = 24  # this long, any key value is taken for a credential ...
CREDENTIAL_MIN_LENGTH = 12  # ... from this long, one that mixes letters and digits is too

_SECRET_WORDS = {"key", "apikey", "secret", "secrets", "password", "passwd", "token", "authorization",
                 "credential", "credentials", "cookie", "bearer", "auth", "sig", "signature"}
_SECRET_PHRASES = ("api_key", "apikey", "access_key", "secret", "password", "auth_token", "access_token")
_QUERY_SECRET = re.compile(
    r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|auth|secret|password|sig|signature)=)[^&\s\"'<>]+")
_BEARER = re.compile(r"(?i)\b(bearer|bot|token)\s+[A-Za-z0-9._~+/=-]{12,}")


def is_secret_name(name: str) -> bool:
    """Whether a field called `name` holds a credential (`google_api_key` yes, `max_tokens` no)."""
    low = name.lower()
    if any(phrase in low for phrase in _SECRET_PHRASES):
        return True
    words = re.split(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower())
    return any(word in _SECRET_WORDS for word in words)


def configured_secrets(settings: Any = None, env: dict[str, str] | None = None) -> set[str]:
    """Every key value Quarry knows of: secret fields of the settings (all sections and LLM roles) and
    environment variables named QUARRY_*KEY / *TOKEN / *SECRET."""
    found: set[str] = set()
    if settings is None:
        try:
            from App_Function_Libraries.config import get_settings
            settings = get_settings()
        except Exception:  # a broken config must not stop a save: the environment still counts
            settings = None
    if settings is not None:
        sections = [getattr(settings, f.name) for f in dataclasses.fields(settings)]
        sections += list((getattr(settings, "roles", None) or {}).values())
        for section in sections:
            if dataclasses.is_dataclass(section):
                for f in dataclasses.fields(section):
                    if f.metadata.get("secret") and getattr(section, f.name):
                        found.add(str(getattr(section, f.name)))
    env = os.environ if env is None else env
    for name, value in env.items():
        if name.upper().startswith("QUARRY_") and is_secret_name(name) and value:
            found.add(value)
    return {s for s in found if len(s) >= MIN_SECRET_LENGTH}


def looks_like_credential(value: str) -> bool:
    """Real API keys are long random strings (`sk-…`, `BSA…`, 32 hex digits); placeholders that local servers
    accept (`ollama`, `lm-studio`, `sk-no-key-required`) are words."""
    if len(value) >= CREDENTIAL_LENGTH:
        return True
    return len(value) >= CREDENTIAL_MIN_LENGTH and any(c.isdigit() for c in value) and \
        any(c.isalpha() for c in value)


def content_secrets(secrets: Iterable[str]) -> tuple[str, ...]:
    """The secrets to replace in content (see the module's docstring); messages get them all."""
    return tuple(s for s in secrets if looks_like_credential(s))


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret value replaced."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def scrub_message(text: str, secrets: Iterable[str]) -> str:
    """An error or log message: secret values, key-like query parameters and bearer tokens replaced."""
    text = scrub_text(text, secrets)
    text = _QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, text)
    return _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)


def scrub(data: Any, secrets: Iterable[str]) -> Any:
    """A copy of plain data without credential-named fields and without credential values in any string."""
    secrets = content_secrets(secrets)
    if isinstance(data, dict):
        return {k: scrub(v, secrets) for k, v in data.items() if not (isinstance(k, str) and is_secret_name(k))}
    if isinstance(data, (list, tuple)):
        return [scrub(v, secrets) for v in data]
    if isinstance(data, str):
        return scrub_text(data, secrets) if secrets else data
    return data


def to_plain(data: Any) -> Any:
    """JSON-shaped data: tuples become lists, numpy scalars Python numbers, other objects their str()."""
    return json.loads(json.dumps(data, ensure_ascii=False, default=_plain_value))


def _plain_value(value: Any) -> Any:
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def scrub_result_dict(data: dict[str, Any], secrets: Iterable[str]) -> dict[str, Any]:
    """A ResearchResult dict made plain and safe to store or export: scrubbed throughout, and its params and
    error messages also cleared of key-like query parameters and bearer tokens."""
    secrets = tuple(secrets)
    clean = scrub(to_plain(data), secrets)
    clean["params"] = _scrub_messages(clean.get("params") or {}, secrets)
    errors = clean.get("errors") or []
    errors = errors if isinstance(errors, list) else [errors]  # an imported run may hold anything
    clean["errors"] = [scrub_message(str(e), secrets) for e in errors]
    return clean


def _scrub_messages(data: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(data, dict):
        return {k: _scrub_messages(v, secrets) for k, v in data.items()}
    if isinstance(data, list):
        return [_scrub_messages(v, secrets) for v in data]
    if isinstance(data, str):
        return scrub_message(data, secrets)
    return data
