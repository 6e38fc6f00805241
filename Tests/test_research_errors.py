"""What a person asks the research to do, and it cannot, is a QuarryError (one line for the front doors to
show as it is), still a ValueError for the callers that caught one before."""
from __future__ import annotations

import pytest

from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.records import ResearchResult
from App_Function_Libraries.Research import budget, durable, pipeline, report_chat, watch
from App_Function_Libraries.Research.dig_deeper import dig_deeper
from App_Function_Libraries.Research.params import ResearchParams

CASES = {
    "empty question": lambda: pipeline.process_question("   "),
    "empty question (durable run)": lambda: durable.execute(" \n ", ResearchParams()),
    "no report to dig into": lambda: dig_deeper(ResearchResult(question="q")),
    "negative budget": lambda: budget.Budget(seconds=-1),
    "unknown budget field": lambda: budget.Budget.from_dict({"minutes": 3}),
    "schedule not understood": lambda: watch.parse_every("every tuesday"),
    "schedule too short": lambda: watch.parse_every("5s"),
    "empty question about a report": lambda: report_chat.ask_report(ResearchResult(question="q"), "  "),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_request_that_cannot_be_done_is_a_quarry_error_with_one_line(name):
    with pytest.raises(QuarryError) as caught:
        CASES[name]()
    assert isinstance(caught.value, ValueError)  # callers that caught ValueError still catch it
    message = str(caught.value)
    assert message and "\n" not in message


def test_control_a_valid_budget_and_schedule_raise_nothing():
    assert budget.Budget(seconds=10, pages=2).limited
    assert watch.parse_every("1d") == 86400
