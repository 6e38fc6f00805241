"""Watchlists: a watched research run over a test world whose pages change reports exactly the new page and the
changed finding, each cited, under "New since <date>", and notifies once (Apprise json:// to the test world); a
run with no change says "nothing new" and does not notify. The runs of the watch are linked in history."""
from __future__ import annotations

import json
import re
from dataclasses import replace

from App_Function_Libraries.CLI.main import main
from Tests.support.mini_web import WAGGLE, MiniWeb, Page, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in
from Tests.support.testworld import Response

QUESTION = "How do honey bees communicate the location of food?"
CHANGE = ("A study published in 2026 found that honey bees also communicate the location of food with a short "
          "buzzing run that younger foragers follow closely around the comb.")
NEW = Page("bees/buzz-run", "The buzzing run of honey bees",
           "Honey bees communicate the location of food with a buzzing run as well as the dance.", "bees", [
    "Besides the waggle dance, a honey bee returning with food may perform a buzzing run: she runs through the "
    "colony vibrating her wings in short bursts, and nest mates that meet her leave the hive to forage. The run "
    "tells them that food is available and worth the flight.",
    "Unlike the dance, the buzzing run carries no direction or distance. Researchers think it starts foraging "
    "quickly when a good source is found, while the dance afterwards tells the recruits where the food lies."])


def change_the_web(world, web: MiniWeb) -> None:
    """A new page on the topic, and the waggle-dance page with a new finding in its first paragraph."""
    changed = replace(WAGGLE, paragraphs=[WAGGLE.paragraphs[0] + " " + CHANGE] + WAGGLE.paragraphs[1:])
    web.pages = [changed if p.path == WAGGLE.path else p for p in web.pages] + [NEW]
    for page in (changed, NEW):
        world.route("GET", "/web/" + page.path, web._handler(page))


def test_a_watch_reports_only_what_is_new_and_notifies_once(world, make_settings, capsys):
    web = MiniWeb(world, include_faults=False).install()
    world.route("POST", "/notify", lambda req: Response.json({"ok": True}))
    values = research_config(web)
    values["watch"] = {"notify_urls": f"json://127.0.0.1:{world.port}/notify"}
    settings = make_settings(values)
    cli = ["--config", str(settings.path)]

    assert main(cli + ["research", QUESTION, "--no-llm", "--json"]) == 0
    report_id = json.loads(capsys.readouterr().out)["id"]
    assert main(cli + ["watch", "add", report_id[:8], "--every", "1d"]) == 0
    watch_id = re.search(r"watch (\w{8}):", capsys.readouterr().out).group(1)

    assert main(cli + ["watch", "run", watch_id]) == 0
    assert "nothing new" in capsys.readouterr().out
    assert not world.requests_to("/notify")

    change_the_web(world, web)
    assert main(cli + ["watch", "run", watch_id]) == 0
    said = capsys.readouterr().out
    assert "1 new, 1 changed source(s); notified" in said
    run_id = re.search(r"run (\w{8}): 1 new", said).group(1)
    assert main(cli + ["history", "show", run_id]) == 0
    report = capsys.readouterr().out
    head, _, rest = report.partition("New or changed findings:")
    assert "## New since " in head
    new_sources = head.split("New sources:")[1].split("Changed since then:")
    assert [line for line in new_sources[0].splitlines() if line.startswith("- ")] == \
           [f"- {NEW.title} — {web.url(NEW.path)} (source {_n(head, NEW.title)})"]
    assert [line for line in new_sources[1].splitlines() if line.startswith("- ")] == \
           [f"- {WAGGLE.title} — {web.url(WAGGLE.path)} (source {_n(head, WAGGLE.title)})"]
    findings = rest.split("---")[0]
    assert f"- {CHANGE} [{_n(head, WAGGLE.title)}]" in findings  # the changed finding, cited
    assert f"[{_n(head, NEW.title)}]" in findings  # the new page's finding, cited
    assert len([line for line in findings.splitlines() if line.startswith("- ")
                and f"[{_n(head, WAGGLE.title)}]" in line]) == 1  # nothing old passed off as changed
    cited_urls = set(re.findall(r"^\d+\. \[[^\]]*\]\(([^)\s]+)\)", report.split("## Sources")[1],
                                re.MULTILINE))  # each entry's own link, not its evidence link
    assert cited_urls == {web.url(NEW.path), web.url(WAGGLE.path)}  # only the new and the changed sources
    assert "## Watch " in report and report.count(" run ") >= 3  # the runs of the watch, linked

    notices = world.requests_to("/notify")
    assert len(notices) == 1
    body = notices[0].json()
    assert CHANGE[:60] in body["message"] and f"history show {run_id}" in body["message"]

    assert main(cli + ["watch", "run", watch_id]) == 0
    assert "nothing new" in capsys.readouterr().out
    assert len(world.requests_to("/notify")) == 1  # no second notification
    assert main(cli + ["watch", "list"]) == 0
    listed = capsys.readouterr().out
    assert listed.count("    ") >= 4 and "1 new, 1 changed  notified" in listed


def _n(text: str, title: str) -> int:
    return int(re.search(re.escape(title) + r" — \S+ \(source (\d+)\)", text).group(1))


def test_every_is_checked(make_settings, capsys):
    settings = make_settings()
    assert main(["--config", str(settings.path), "watch", "add", "abc", "--every", "soon"]) == 1
    assert "not understood" in capsys.readouterr().err


def test_a_failed_notification_is_one_line_without_the_url(world, make_settings, caplog):
    """The Apprise URL holds a password: a failure names neither (the test world answers 500)."""
    import logging

    from App_Function_Libraries.Research import notify
    world.route("POST", "/notify", lambda req: Response.text("no", 500))
    settings = make_settings({"watch": {"notify_urls": f"json://me:pw-7f3a9c1e@127.0.0.1:{world.port}/notify"}})
    caplog.set_level(logging.DEBUG)
    said = notify.send(notify.compose("Q?", "2026-11-25", ["A finding [1]"], 1, 0, "abcdef12-0000"), settings)
    assert said == "notify: sending to [watch] notify_urls failed (of 1 URL(s))"
    assert len(world.requests_to("/notify")) == 1 and "pw-7f3a9c1e" not in caplog.text
    body = world.requests_to("/notify")[0].json()
    assert "- A finding [1]" in body["message"] and "history show abcdef12" in body["message"]
