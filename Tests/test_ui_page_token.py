"""Only the UI's own page runs its private events (issue 23, item 2): a local program that names one by fn_index
(`/gradio_api/queue/join`, `/gradio_api/run/<public name>`) or by name (`/gradio_api/call/<name>`,
`/gradio_api/call/v2/<name>`) is refused without the page token the page's cookie carries; the public endpoints
(Tests/test_api_gradio.py) and the page (with its cookie) still work. Uploads larger than the document library
reads are refused."""
from __future__ import annotations

import http.client
import json
import uuid

import pytest

from App_Function_Libraries.Gradio_UI.api_endpoints import PUBLIC
from App_Function_Libraries.Gradio_UI.page_token import body_fn_index, page_cookie, public_call, sent_token
from Tests.support.app_process import start_app, stop_app
from Tests.support.browser import write_app_config

NAMES, IDS = frozenset(PUBLIC), frozenset({7, 8})


def join(fn_index) -> bytes:
    return json.dumps({"data": [], "fn_index": fn_index, "session_hash": "abc"}).encode()


@pytest.mark.parametrize("path, body, public", [
    ("/gradio_api/queue/join", join(7), True), ("/gradio_api/queue/join", join(3), False),
    ("/gradio_api/queue/join", join(None), False), ("/gradio_api/queue/join", join("7"), False),
    ("/gradio_api/queue/join", join(7.0), False), ("/gradio_api/queue/join", join(True), False),
    ("/gradio_api/queue/join", b"not json", False), ("/gradio_api/queue/join", b"[7]", False),
    ("/gradio_api/queue/join", b'{"fn_index": 7, "fn_index": 3}', False),  # json.loads keeps the last, as gradio
    ("/gradio_api/call/research", b"", True), ("/gradio_api/call/research/", b"", True),
    ("/gradio_api/call/v2/docs_ask", b"", True), ("/gradio_api/call/save_settings", b"", False),
    ("/gradio_api/call/v2/add_documents", b"", False), ("/gradio_api/call/", b"", False),
    ("/gradio_api/run/research", b'{"data": []}', True), ("/gradio_api/run/research", join(3), False),
    ("/gradio_api/api/research", join(7), True), ("/gradio_api/run/save_settings", b'{"data": []}', False),
    ("/gradio_api/run/research", b"junk", False), ("/gradio_api/cancel", join(7), True),
    ("/gradio_api/cancel", join(3), False), ("/gradio_api/reset", b"", True), ("/login", b"", True),
    ("/gradio_api/upload", b"", False), ("/gradio_api/stream/x", b"", False),
    ("/gradio_api/queue/join/", join(7), False), ("/anything", b"", False)])
def test_only_calls_of_public_endpoints_pass_without_the_token(path, body, public):
    assert public_call(path, body, NAMES, IDS) == public


def test_the_body_is_read_as_gradio_reads_it():
    assert body_fn_index(join(7)) == (True, 7)
    assert body_fn_index(b'{"data": []}') == (True, None)
    assert body_fn_index(b'{"fn_index": "7"}') == (False, None)
    assert body_fn_index(b"\xff") == (False, None)


def test_the_cookie_is_per_port_http_only_and_same_site_strict():
    cookie = page_cookie(7860, "tok")
    assert cookie == b"quarry_page_7860=tok; Path=/; HttpOnly; SameSite=Strict"
    assert sent_token({"cookie": "a=1; quarry_page_7860=tok"}, 7860) == "tok"
    assert sent_token({"cookie": "quarry_page_7861=tok"}, 7860) == ""
    assert sent_token({"cookie": 'bad"cookie'}, 7860) == ""


# ---------------------------------------------------------------- the running app

@pytest.fixture(scope="module")
def app(tmp_path_factory):
    directory = tmp_path_factory.mktemp("page_token_app")
    config = write_app_config(directory)
    secret = directory / "private"
    secret.mkdir()
    (secret / "secret.md").write_text("The vault code is 4711. " * 20, encoding="utf-8")
    proc, url, _ = start_app(["--config", str(config)], env={"QUARRY_CONFIG": ""})
    try:
        yield {"port": int(url.rstrip("/").rsplit(":", 1)[1]), "config": config, "dir": directory,
               "secret": secret, "proc": proc}
    finally:
        stop_app(proc)


def request(app, method: str, path: str, body=None, cookie: str | None = None) -> tuple[int, bytes, list]:
    conn = http.client.HTTPConnection("127.0.0.1", app["port"], timeout=30)
    try:
        data = json.dumps(body).encode("utf-8") if body is not None else b""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if cookie:
            headers["Cookie"] = cookie
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read(), resp.getheaders()
    finally:
        conn.close()


def fn_index(app, name: str) -> int:
    status, body, _ = request(app, "GET", "/config")
    assert status == 200
    return next(d["id"] for d in json.loads(body)["dependencies"] if d.get("api_name") == name)


def page_token_cookie(app) -> str:
    """What the browser keeps from the page: its cookie."""
    status, _, headers = request(app, "GET", "/")
    assert status == 200
    cookies = [v for k, v in headers if k.lower() == "set-cookie" and v.startswith("quarry_page_")]
    assert len(cookies) == 1 and "HttpOnly" in cookies[0] and "SameSite=Strict" in cookies[0], cookies
    return cookies[0].split(";", 1)[0]


def queue_join(name_index: int, data: list) -> dict:
    return {"data": data, "fn_index": name_index, "session_hash": uuid.uuid4().hex[:11], "event_data": None,
            "trigger_id": None}


def test_a_local_program_cannot_index_a_folder_by_fn_index(app):
    index = fn_index(app, "add_documents")
    status, body, _ = request(app, "POST", "/gradio_api/queue/join", queue_join(index, [None, str(app["secret"])]))
    assert status == 403 and b"only the UI's own page may run this" in body, (status, body[:300])
    # the same event named by its fn_index through a public endpoint's path
    status, _, _ = request(app, "POST", "/gradio_api/run/docs_ask", {"data": [None, str(app["secret"])],
                                                                      "fn_index": index})
    assert status == 403
    assert not (app["dir"] / "docs").exists()  # no document library was made: nothing was indexed
    assert children(app["proc"].pid) == []  # and nothing runs for it (no parse worker, no indexing process)


def children(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux /proc)."""
    import os
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                if int(fh.read().rsplit(b")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return found


@pytest.mark.parametrize("path", ["/gradio_api/call/save_settings", "/gradio_api/call/v2/save_settings",
                                  "/gradio_api/run/save_settings", "/gradio_api/api/save_settings"])
def test_a_local_program_cannot_save_settings_by_name(app, path):
    before = app["config"].read_text(encoding="utf-8")
    status, body, _ = request(app, "POST", path, {"data": [False]})
    assert status == 403 and b"only the UI's own page may run this" in body, (path, status, body[:300])
    assert app["config"].read_text(encoding="utf-8") == before


def test_other_private_doors_need_the_token(app):
    for path in ("/gradio_api/call/export_all", "/gradio_api/call/import_files", "/gradio_api/upload",
                 "/gradio_api/call/remove_document"):
        assert request(app, "POST", path, {"data": []})[0] == 403, path


def test_the_page_with_its_cookie_runs_its_events(app):
    cookie = page_token_cookie(app)
    join = queue_join(fn_index(app, "list_history"), [""])
    assert request(app, "POST", "/gradio_api/queue/join", join)[0] == 403  # control: without the cookie
    assert request(app, "POST", "/gradio_api/queue/join", join, cookie="quarry_page_1=" + cookie.split("=")[1])[0] \
        == 403  # another port's cookie
    status, body, _ = request(app, "POST", "/gradio_api/queue/join", join, cookie=cookie)
    assert status == 200 and json.loads(body)["event_id"], body
    status, body, _ = request(app, "GET", f"/gradio_api/queue/data?session_hash={join['session_hash']}")
    assert status == 200 and b"process_completed" in body and b"saved report(s)" in body, body[-500:]


def test_a_public_endpoint_by_fn_index_needs_no_token(app):
    join = queue_join(fn_index(app, "notes_search"), ["bees", 5])
    status, body, _ = request(app, "POST", "/gradio_api/queue/join", join)
    assert status == 200, body
    status, body, _ = request(app, "GET", f"/gradio_api/queue/data?session_hash={join['session_hash']}")
    assert status == 200 and b"process_completed" in body and b'"notes"' in body, body[-500:]


def test_uploads_are_capped_and_the_documents_handler_checks_sizes(app, tmp_path, monkeypatch):
    status, body, _ = request(app, "GET", "/config")
    assert json.loads(body)["max_file_size"] == 200_000_000
    from App_Function_Libraries.Gradio_UI import documents_tab
    big = tmp_path / "big.pdf"
    with open(big, "wb") as fh:
        fh.truncate(300_000_000)  # sparse: 300 MB that take no disk
    monkeypatch.setattr(documents_tab, "current_settings", lambda: pytest.fail("must refuse before anything"))
    with pytest.raises(ValueError, match=r"too large to add \(at most 200 MB a file\): big.pdf \(300 MB\)"):
        documents_tab.check_upload_sizes([big])


def test_an_upload_over_200_mb_is_refused(app):
    """The page's own upload (with its cookie) of a 201 MB file: 413 (gradio's max_file_size)."""
    cookie = page_token_cookie(app)
    boundary = "quarryboundary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.txt\"\r\n"
            "Content-Type: text/plain\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    size, chunk = 201_000_000, b"a" * 1_000_000

    def body():
        yield head
        for _ in range(size // len(chunk)):
            yield chunk
        yield tail
    conn = http.client.HTTPConnection("127.0.0.1", app["port"], timeout=120)
    try:
        conn.putrequest("POST", "/gradio_api/upload")
        for name, value in {"Cookie": cookie, "Content-Type": f"multipart/form-data; boundary={boundary}",
                            "Content-Length": str(len(head) + size + len(tail))}.items():
            conn.putheader(name, value)
        conn.endheaders()
        try:
            for part in body():
                conn.send(part)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered before the whole body was sent
        resp = conn.getresponse()
        assert resp.status == 413 and b"maximum allowed size" in resp.read()
    finally:
        conn.close()
