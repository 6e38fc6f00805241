"""The UI refuses requests a web page could make through DNS rebinding or a cross-site post (issue 13, item 6):
the guard's rules, then real HTTP requests to `python app.py` (pages, /config, /gradio_api/info, the queue's
join and data stream, uploads) with the Host and Origin a rebinding page would send."""
from __future__ import annotations

import asyncio
import http.client
import json
import uuid

import pytest

from App_Function_Libraries.Gradio_UI.host_guard import HostGuard, allowed_names, host_name, refusal
from Tests.support.app_process import start_app, stop_app
from Tests.support.browser import write_app_config

CONFIGURED = "quarry.lan"  # the [ui] host setting of the test app (it is bound to 127.0.0.1 by --host)
NAMES = allowed_names("127.0.0.1", CONFIGURED)


@pytest.mark.parametrize("host, name", [("127.0.0.1:7860", "127.0.0.1"), ("[::1]:7860", "::1"), ("::1", "::1"),
                                        ("LocalHost.:80", "localhost"), ("evil.example", "evil.example"),
                                        ("", ""), (None, "")])
def test_host_names_are_read_without_port_brackets_case_or_final_dot(host, name):
    assert host_name(host) == name


@pytest.mark.parametrize("host", ["127.0.0.1:7860", "localhost:7860", "[::1]:7860", "quarry.lan:7860",
                                  "192.168.1.20:7860", "[fe80::1]:7860"])
def test_own_names_and_ip_addresses_are_served(host):
    assert refusal("GET", host, None, NAMES) is None
    assert refusal("POST", host, None, NAMES) is None  # gradio_client, curl: no Origin


@pytest.mark.parametrize("host", ["evil.example", "evil.example:7860", "localhost.evil.example:7860",
                                  "127.0.0.1.nip.io:7860", "", None])
def test_other_names_are_refused(host):
    assert refusal("GET", host, None, NAMES) is not None


@pytest.mark.parametrize("origin, allowed", [
    ("http://127.0.0.1:7860", True), ("http://localhost:7860", True), ("http://[::1]:7860", True),
    ("http://quarry.lan:7860", True), ("http://localhost:3000", True),
    ("http://evil.example", False), ("http://evil.example:7860", False), ("https://127.0.0.1.evil.example", False),
    ("null", False), ("file://", False), ("http://192.168.1.20:7860", False)])
def test_a_post_from_another_site_is_refused(origin, allowed):
    assert (refusal("POST", "127.0.0.1:7860", origin, NAMES) is None) == allowed
    assert refusal("GET", "127.0.0.1:7860", origin, NAMES) is None  # reading is guarded by Host (and CORS)
    assert (refusal("GET", "127.0.0.1:7860", origin, NAMES, websocket=True) is None) == allowed


def test_the_ui_own_page_on_a_lan_address_may_post():
    assert refusal("POST", "192.168.1.20:7860", "http://192.168.1.20:7860", NAMES) is None


def run_guard(scope: dict) -> list:
    """What the guard sends for this ASGI scope ("app" when it lets the request through)."""
    sent: list = []

    async def app(scope, receive, send):
        sent.append("app")

    async def receive():
        return {"type": "websocket.connect"}

    async def send(message):
        sent.append(message)
    asyncio.run(HostGuard(app, allowed=["127.0.0.1", CONFIGURED])(scope, receive, send))
    return sent


def test_websockets_are_guarded_and_lifespan_passes():
    def ws(host, origin):
        return {"type": "websocket", "path": "/", "headers": [(b"host", host), (b"origin", origin)]}
    assert run_guard(ws(b"evil.example:7860", b"http://evil.example:7860"))[0]["code"] == 1008
    assert run_guard(ws(b"127.0.0.1:7860", b"http://evil.example"))[0]["type"] == "websocket.close"
    assert run_guard(ws(b"127.0.0.1:7860", b"http://127.0.0.1:7860")) == ["app"]
    assert run_guard({"type": "lifespan"}) == ["app"]


# ---------------------------------------------------------------- the running app

@pytest.fixture(scope="module")
def app(tmp_path_factory):
    directory = tmp_path_factory.mktemp("guard_app")
    config = write_app_config(directory, {"ui": {"host": CONFIGURED}})
    proc, url, _ = start_app(["--config", str(config), "--host", "127.0.0.1"], env={"QUARRY_CONFIG": ""})
    try:
        yield {"port": int(url.rstrip("/").rsplit(":", 1)[1]), "config": config}
    finally:
        stop_app(proc)


def request(app, method: str, path: str, host: str, origin: str | None = None, body=None,
            headers: dict | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", app["port"], timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host.format(port=app["port"]))
        if origin:
            conn.putheader("Origin", origin.format(port=app["port"]))
        data = json.dumps(body).encode("utf-8") if isinstance(body, (dict, list)) else (body or b"")
        for name, value in {**({"Content-Type": "application/json"} if isinstance(body, (dict, list)) else {}),
                            **(headers or {}), "Content-Length": str(len(data))}.items():
            conn.putheader(name, value)
        conn.endheaders(data)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def history_join(app) -> dict:
    """A queue join that lists the History (a harmless event), as the UI's page sends it."""
    status, body = request(app, "GET", "/config", "127.0.0.1:{port}")
    assert status == 200
    fn = next(d["id"] for d in json.loads(body)["dependencies"] if d.get("api_name") == "list_history")
    return {"data": [""], "fn_index": fn, "session_hash": uuid.uuid4().hex[:11], "event_data": None,
            "trigger_id": None}


def page_cookie(app) -> str:
    """The page token cookie the page is served with, as the browser sends it back."""
    conn = http.client.HTTPConnection("127.0.0.1", app["port"], timeout=30)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        resp.read()
        return resp.getheader("set-cookie").split(";", 1)[0]
    finally:
        conn.close()


EVIL = "evil.example:{port}"
GOOD_HOSTS = ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", CONFIGURED + ":{port}"]


@pytest.mark.parametrize("path", ["/", "/config", "/gradio_api/info", "/gradio_api/queue/data?session_hash=x",
                                  "/gradio_api/file=/etc/hostname", "/theme.css"])
def test_a_rebound_name_gets_nothing(app, path):
    status, body = request(app, "GET", path, EVIL)
    assert status == 403 and b"DNS rebinding" in body, (path, status, body[:200])


@pytest.mark.parametrize("host", GOOD_HOSTS)
def test_the_ui_own_names_are_served(app, host):
    for path in ("/", "/config", "/gradio_api/info"):
        assert request(app, "GET", path, host)[0] == 200, (host, path)


def test_queue_join_and_results_need_the_ui_own_host_and_origin(app):
    join = history_join(app)
    assert request(app, "POST", "/gradio_api/queue/join", EVIL, body=join)[0] == 403
    assert request(app, "POST", "/gradio_api/queue/join", EVIL, "http://" + EVIL, body=join)[0] == 403
    for origin in ("http://evil.example", "null"):
        status, body = request(app, "POST", "/gradio_api/queue/join", "127.0.0.1:{port}", origin, body=join)
        assert status == 403 and b"may not change anything" in body, (origin, status, body[:200])
    status, body = request(app, "POST", "/gradio_api/upload", "127.0.0.1:{port}", "http://evil.example",
                           body=b"--x--\r\n", headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert status == 403

    page = {"Cookie": page_cookie(app)}  # the page's own requests carry its page token (test_ui_page_token.py)
    status, body = request(app, "POST", "/gradio_api/queue/join", "127.0.0.1:{port}", "http://127.0.0.1:{port}",
                           body=join, headers=page)
    assert status == 200 and json.loads(body)["event_id"], body
    stream = f"/gradio_api/queue/data?session_hash={join['session_hash']}"
    assert request(app, "GET", stream, EVIL)[0] == 403
    status, body = request(app, "GET", stream, "127.0.0.1:{port}")
    assert status == 200 and b"process_completed" in body and b"saved report(s)" in body, body[-500:]

    join = history_join(app)  # gradio_client and scripts send no Origin
    assert request(app, "POST", "/gradio_api/queue/join", "localhost:{port}", body=join, headers=page)[0] == 200


def test_a_refused_settings_save_changes_nothing(app):
    status, body = request(app, "GET", "/config", "127.0.0.1:{port}")
    fn = next(d["id"] for d in json.loads(body)["dependencies"] if d.get("api_name") == "save_settings")
    before = app["config"].read_text(encoding="utf-8")
    join = {"data": [False], "fn_index": fn, "session_hash": uuid.uuid4().hex[:11], "event_data": None,
            "trigger_id": None}
    assert request(app, "POST", "/gradio_api/queue/join", "127.0.0.1:{port}", "http://evil.example:{port}",
                   body=join)[0] == 403
    assert request(app, "POST", "/gradio_api/queue/join", EVIL, "http://" + EVIL, body=join)[0] == 403
    assert app["config"].read_text(encoding="utf-8") == before
