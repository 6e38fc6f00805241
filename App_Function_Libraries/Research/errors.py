"""What a person asked of the research that cannot be done as asked: each str() is one line they can act on.

Each is a QuarryError (the front doors show its message as it is) and a ValueError (callers that caught the
ValueError these once were still catch them)."""
from __future__ import annotations

from App_Function_Libraries.errors import QuarryError


class ResearchInputError(QuarryError, ValueError):
    """A research request (question, budget, schedule, dig-deeper) that cannot be carried out as asked."""


class EmptyQuestion(ResearchInputError):
    """No question was typed (research, a plan, a question about a report)."""


class NoReport(ResearchInputError):
    """Dig deeper was asked of a run that has no report."""


class BadBudget(ResearchInputError):
    """A run's budget with a value or field Quarry does not know."""


class BadSchedule(ResearchInputError):
    """A watch's schedule (--every) that is not understood or too short."""
