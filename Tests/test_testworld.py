"""The test world itself: routes, request log, and every kind of injected fault behave as documented."""
import time

import pytest
import requests

from Tests.support.testworld import Response


@pytest.fixture
def hello(world):
    world.route("GET", "/hello", lambda req: Response.json({"hi": req.arg("name")}))
    return world


def test_route_and_request_log(hello):
    r = requests.get(hello.url("/hello?name=ada"), headers={"X-Test": "1"}, timeout=5)
    assert r.json() == {"hi": "ada"}
    req = hello.requests_to("/hello")[0]
    assert req.arg("name") == "ada" and req.header("x-test") == "1"


def test_unknown_route_is_404(world):
    assert requests.get(world.url("/nothing"), timeout=5).status_code == 404


def test_fault_status_with_headers_applies_times_then_clears(hello):
    hello.fault("/hello", status=429, headers={"Retry-After": "3"}, times=1)
    r1 = requests.get(hello.url("/hello"), timeout=5)
    r2 = requests.get(hello.url("/hello"), timeout=5)
    assert (r1.status_code, r1.headers["Retry-After"]) == (429, "3")
    assert r2.status_code == 200


def test_fault_delay(hello):
    hello.fault("/hello", delay=0.4)
    t = time.time()
    requests.get(hello.url("/hello"), timeout=5)
    assert time.time() - t >= 0.4


def test_fault_reset_connection(hello):
    hello.fault("/hello", reset=True)
    with pytest.raises(requests.ConnectionError):
        requests.get(hello.url("/hello"), timeout=5)


def test_fault_malformed_json_and_content_type(hello):
    hello.fault("/hello", malformed_json=True, times=1)
    with pytest.raises(ValueError):
        requests.get(hello.url("/hello"), timeout=5).json()
    hello.fault("/hello", content_type="text/html", times=1)
    assert requests.get(hello.url("/hello"), timeout=5).headers["Content-Type"] == "text/html"


def test_chunked_slow_body(world):
    world.route("GET", "/slow", lambda req: Response(200, (b"x" * 10 for _ in range(3)), chunk_delay=0.1))
    t = time.time()
    assert requests.get(world.url("/slow"), timeout=5).content == b"x" * 30
    assert time.time() - t >= 0.2


def test_the_mini_web_command_shows_its_help_and_writes_no_config(tmp_path, monkeypatch, capsys):
    from Tests.support import mini_web
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        mini_web.main(["--help"])
    assert ended.value.code == 0 and "--no-llm" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []  # it once wrote its config to a file named "--help"
