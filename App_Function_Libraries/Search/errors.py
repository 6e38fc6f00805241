"""Typed search failures. Each carries a one-line message a person can act on (str(exc)); `kind` names the
outcome for the health record and the UI. Messages never contain an API key."""
from __future__ import annotations

from App_Function_Libraries.errors import QuarryError


class SearchError(QuarryError):
    """A search that did not produce results. str() is the message shown to the user."""
    kind = "error"
    retryable = False
    #: failures of this kind suspend the engine for longer (the service is refusing us, not flaking)
    long_suspension = False

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class NotConfigured(SearchError):
    kind = "not_configured"


class NotSetUp(SearchError):
    """A local engine whose index or library is not there yet (no Wikipedia index built, an empty document
    library); str() says what to build or add."""
    kind = "not_set_up"


class InvalidOption(SearchError):
    kind = "invalid_option"


class BadKey(SearchError):
    kind = "bad_key"
    long_suspension = True


class QuotaExceeded(SearchError):
    kind = "quota"
    long_suspension = True


class RateLimited(SearchError):
    kind = "rate_limited"
    retryable = True
    long_suspension = True


class Blocked(SearchError):
    """Refused by the service or a bot wall: 403, CAPTCHA page, JSON output disabled."""
    kind = "blocked"
    long_suspension = True


class BadResponse(SearchError):
    """An answer that is not what the API returns: HTML instead of JSON, broken JSON, a wrong shape."""
    kind = "bad_response"


class ServerError(SearchError):
    kind = "server_error"
    retryable = True


class Unreachable(SearchError):
    kind = "unreachable"


class TimedOut(Unreachable):
    kind = "timeout"
    retryable = True


class Cancelled(SearchError):
    """The caller cancelled the search (a research run's Cancel): not the engine's fault, not retried, not
    recorded in its health."""
    kind = "cancelled"
