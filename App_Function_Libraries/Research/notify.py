"""Notifications for watched researches, through Apprise (one library for e-mail, ntfy, Matrix, Slack, desktop
and more): `[watch] notify_urls` lists Apprise URLs. The message carries the first lines of what is new and how to
open the report. The URLs hold credentials: they are never logged or shown; a failure is one line without them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_FINDINGS = 5
MAX_LINE_CHARS = 200


@dataclass
class Notice:
    title: str
    body: str


def notify_urls(settings) -> list[str]:
    return [u for u in re.split(r"[,\s]+", settings.watch.notify_urls or "") if u]


def compose(question: str, since: str, findings: list[str], new_sources: int, changed_sources: int,
            report_id: str) -> Notice:
    """The notice of a watched run that found something new."""
    lines = [f"New since {since}: {new_sources} new source(s), {changed_sources} changed."]
    lines += [f"- {_first_line(f)}" for f in findings[:MAX_FINDINGS]]
    if len(findings) > MAX_FINDINGS:
        lines.append(f"… and {len(findings) - MAX_FINDINGS} more")
    lines += ["", f"Open the report: python app.py history show {report_id[:8]} (or History in the UI, id "
                  f"{report_id[:8]})"]
    return Notice(title=f"Quarry watch: {_first_line(question)}", body="\n".join(lines))


def _first_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS - 1].rstrip() + "…"


def send(notice: Notice, settings) -> str:
    """Send the notice to every configured URL; "" when all went (or none is configured), else one line saying
    how many failed (never the URLs: they hold credentials)."""
    urls = notify_urls(settings)
    if not urls:
        return ""
    import apprise
    apobj = apprise.Apprise(asset=apprise.AppriseAsset(async_mode=False))
    bad = [u for u in urls if not apobj.add(u)]
    if bad:
        return f"notify: {len(bad)} of {len(urls)} [watch] notify_urls are not Apprise URLs Quarry can use"
    for server in apobj:
        server.socket_connect_timeout = server.socket_read_timeout = settings.watch.notify_timeout_seconds
    ok = apobj.notify(title=notice.title, body=notice.body)
    return "" if ok else f"notify: sending to [watch] notify_urls failed (of {len(urls)} URL(s))"
