"""The SSRF guard: only public http(s) addresses are fetched, on the first request and on every redirect."""
from __future__ import annotations

import pytest

from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.Research import fetch as fetch_mod
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.ssrf import SSRFBlocked, check_url, forbidden_reason
from Tests.support.system_tools import require_tool
from Tests.support.testworld import Response

BLOCKED = {
    "127.0.0.1": "loopback", "127.8.9.10": "loopback", "10.0.0.1": "private", "10.255.255.254": "private",
    "172.16.0.1": "private", "172.31.255.254": "private", "192.168.1.1": "private",
    "169.254.169.254": "link-local", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
    "::ffff:10.1.2.3": "private", "::ffff:169.254.169.254": "link-local", "fe80::1": "link-local",
    "fc00::1": "private", "0.0.0.0": "unspecified", "224.0.0.1": "multicast", "240.0.0.1": "reserved",
    "100.64.0.1": "shared", "64:ff9b::7f00:1": "loopback", "2002:7f00:1::": "loopback",
    "fec0::1": "site-local", "feff:ffff::1": "site-local", "192.88.99.1": "6to4 relay",
    "192.88.99.255": "6to4 relay", "::ffff:192.88.99.1": "6to4 relay", "2002:c058:6301::": "6to4 relay",
    "3fff::1": "documentation", "3fff:fff:ffff::1": "documentation",
}


@pytest.mark.parametrize("address,kind", sorted(BLOCKED.items()))
def test_forbidden_addresses(address, kind):
    reason = forbidden_reason(address)
    assert reason is not None and kind in reason


@pytest.mark.parametrize("address", ["8.8.8.8", "172.32.0.1", "93.184.216.34", "2606:4700::1111",
                                     "::ffff:8.8.8.8", "192.88.98.1", "192.88.100.1", "3fff:1000::1"])
def test_public_addresses_pass(address):
    assert forbidden_reason(address) is None


@pytest.mark.parametrize("url", ["http://127.0.0.1/", "http://10.0.0.5:8080/admin", "http://172.16.3.4/",
                                 "http://192.168.0.1/", "http://169.254.169.254/latest/meta-data/",
                                 "http://[::1]:8000/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
                                 "http://[fec0::1]/", "http://192.88.99.1/"])
def test_private_urls_blocked_without_dns(url):
    with pytest.raises(SSRFBlocked):
        check_url(url, allow_private=False, resolver=lambda h, p: pytest.fail("an IP needs no lookup"))


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "gopher://example.org/",
                                 "javascript:alert(1)", "http:///nohost"])
def test_only_http_and_https(url):
    with pytest.raises(SSRFBlocked):
        check_url(url, allow_private=True, resolver=lambda h, p: ["93.184.216.34"])


def test_hostname_resolving_to_loopback_is_blocked():
    with pytest.raises(SSRFBlocked, match="loopback"):
        check_url("http://innocent.example/page", resolver=lambda h, p: ["93.184.216.34", "127.0.0.1"])


def test_hostname_resolving_to_loopback_is_never_contacted(world):
    world.route("GET", "/secret", lambda r: Response.text("router admin page"))
    fetcher = PageFetcher(FetchSettings(), resolver=lambda host, port: ["127.0.0.1"])
    page = fetcher.fetch(f"http://innocent.example:{world.port}/secret")
    assert page.error.startswith("blocked:") and "loopback" in page.error
    assert not world.requests_to("/secret")


def test_private_allowed_when_configured_and_the_checked_address_is_used(world):
    world.route("GET", "/page", lambda r: Response.text(f"host header: {r.header('host')}"))
    lookups = []

    def resolver(host, port):
        lookups.append(host)
        return ["127.0.0.1"]

    page = PageFetcher(FetchSettings(allow_private_addresses=True), resolver=resolver).fetch(
        f"http://pages.example:{world.port}/page")
    assert page.ok and page.body == f"host header: pages.example:{world.port}".encode()
    assert lookups == ["pages.example"]  # one lookup: the connection goes to the address that was checked


def test_redirect_to_loopback_is_blocked(world, monkeypatch):
    """The first hop is allowed (as if public); its redirect to a loopback address must be refused."""
    world.route("GET", "/start", lambda r: Response.redirect(f"http://127.0.0.1:{world.port}/secret"))
    world.route("GET", "/secret", lambda r: Response.text("metadata"))
    real_check = fetch_mod.check_url

    def check(url, allow_private=False, resolver=None):
        first_hop = url.startswith("http://public.example")
        return real_check(url, allow_private or first_hop, resolver)

    monkeypatch.setattr(fetch_mod, "check_url", check)
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=False), resolver=lambda h, p: ["127.0.0.1"])
    page = fetcher.fetch(f"http://public.example:{world.port}/start")
    assert len(world.requests_to("/start")) == 1
    assert page.error.startswith("blocked:") and "127.0.0.1" in page.error
    assert not world.requests_to("/secret")


@pytest.mark.parametrize("url", ["http://2130706433/", "http://0x7f000001/", "http://127.1/", "http://0177.0.0.1/"])
def test_numeric_host_spellings_of_loopback_are_blocked(url):
    with pytest.raises(SSRFBlocked, match="loopback"):
        check_url(url)  # the system resolver reads these spellings without any DNS query


def test_https_connects_to_the_checked_address_and_verifies_the_name(tmp_path):
    """TLS goes to the pinned address while the certificate is still checked against the URL's host."""
    import http.server
    import ssl
    import subprocess
    import threading

    import requests

    require_tool("openssl")  # makes the test certificate
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=pages.test", "-addext", "subjectAltName=DNS:pages.test"],
                   check=True, capture_output=True)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = f"host={self.headers['Host']}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        results = {}
        for name in ("pages.test", "other.test"):
            url = f"https://{name}:{server.server_address[1]}/x"
            target = check_url(url, allow_private=True, resolver=lambda h, p: ["127.0.0.1"])
            prepared = requests.Request("GET", url, headers={"Host": fetch_mod.host_header(url)}).prepare()
            try:
                results[name] = fetch_mod.pinned_adapter(target).send(prepared, verify=str(cert), timeout=5).text
            except requests.exceptions.SSLError as exc:
                results[name] = f"ssl error: {exc}"
    finally:
        server.shutdown()
        server.server_close()
    assert results["pages.test"] == f"host=pages.test:{server.server_address[1]}"
    assert results["other.test"].startswith("ssl error") and "other.test" in results["other.test"]


def test_next_checked_address_is_tried_when_the_first_refuses(world):
    world.route("GET", "/page", lambda r: Response.text("answered"))
    fetcher = PageFetcher(FetchSettings(allow_private_addresses=True),
                          resolver=lambda host, port: ["127.0.0.2", "127.0.0.1"])  # nothing listens on .2
    page = fetcher.fetch(f"http://two.example:{world.port}/page")
    assert page.ok and page.body == b"answered"
