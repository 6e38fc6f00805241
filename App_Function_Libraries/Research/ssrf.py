"""The SSRF guard: a page Quarry fetches may only live on a public http(s) address.

Links in search results and redirects are chosen by strangers. Without this guard a hostile result could make
Quarry read the user's router page, a cloud metadata service (169.254.169.254) or a local admin port. Every
URL (and every redirect hop) is checked before it is fetched: the scheme must be http or https, and every
address its host resolves to must be a public one (not loopback, private, link-local, multicast, reserved,
unspecified, shared, deprecated site-local (fec0::/10), the 6to4 relay anycast block (192.88.99.0/24), or an
IPv4-mapped / 6to4 / NAT64 form of those) unless private addresses are allowed.

DNS rebinding: `check_url` returns the checked addresses, and the fetcher connects to one of them (keeping the
Host header and TLS server name), so a second lookup between the check and the connection cannot swap in a
private address.
"""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

from App_Function_Libraries.errors import QuarryError

ALLOWED_SCHEMES = ("http", "https")
# Blocks Python's ipaddress flags do not cover (it calls both global): fec0::/10, IPv6 site-local (deprecated by
# RFC 3879 but still routed inside some networks), 192.88.99.0/24, the 6to4 relay anycast (RFC 7526), and
# 3fff::/20, the IPv6 documentation range added by RFC 9637.
EXTRA_BLOCKED = ((ipaddress.IPv6Network("fec0::/10"), "site-local"),
                 (ipaddress.IPv4Network("192.88.99.0/24"), "6to4 relay anycast"),
                 (ipaddress.IPv6Network("3fff::/20"), "documentation"))

# (host, port) -> the addresses it resolves to, as strings. Injectable so tests need no DNS.
Resolver = Callable[[str, int], list[str]]


class SSRFBlocked(QuarryError):
    """A URL Quarry refuses to fetch; str() names the URL and the reason."""


@dataclass
class CheckedTarget:
    scheme: str
    host: str  # as written in the URL (lower case, IPv6 without brackets)
    port: int
    addresses: list[str]  # every resolved address, all checked


def system_resolver(host: str, port: int) -> list[str]:
    """All addresses the system resolver gives for host (IPv4 and IPv6), without duplicates."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for info in infos:
        addr = str(info[4][0]).split("%", 1)[0]  # drop an IPv6 zone id
        if addr not in seen:
            seen.append(addr)
    return seen


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried inside an IPv6 one (IPv4-mapped, IPv4-compatible, 6to4, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    packed = ip.packed
    if packed[:12] == bytes(12) and int(ip) > 1:  # deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(packed[12:])
    if ip in ipaddress.IPv6Network("64:ff9b::/96"):  # NAT64 well-known prefix
        return ipaddress.IPv4Address(packed[12:])
    return None


def forbidden_reason(address: str) -> str | None:
    """Why an address may not be fetched ('loopback', 'private', ...), or None for a public address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            reason = forbidden_reason(str(inner))
            return f"IPv6 form of a {reason} address" if reason else None
    checks = (("loopback", ip.is_loopback), ("link-local", ip.is_link_local), ("multicast", ip.is_multicast),
              ("unspecified", ip.is_unspecified), ("reserved", ip.is_reserved), ("private", ip.is_private))
    for name, hit in checks:
        if hit:
            return name
    for network, name in EXTRA_BLOCKED:
        if ip.version == network.version and ip in network:
            return name
    if isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.IPv4Network("100.64.0.0/10"):
        return "shared (carrier-grade NAT)"
    if not ip.is_global:
        return "non-public"
    return None


def _split(url: str) -> tuple[str, str, int]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise SSRFBlocked(f"{url}: not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise SSRFBlocked(f"{url}: only http and https pages are fetched, not {scheme or 'a URL without a scheme'}")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise SSRFBlocked(f"{url}: the URL has no host")
    return scheme, host, port or (443 if scheme == "https" else 80)


def check_url(url: str, allow_private: bool = False, resolver: Resolver | None = None) -> CheckedTarget:
    """Resolve the URL's host and check every address. Raises SSRFBlocked with the reason."""
    scheme, host, port = _split(url)
    try:
        ipaddress.ip_address(host)
        addresses = [host]
    except ValueError:
        try:
            addresses = (resolver or system_resolver)(host, port)
        except (OSError, UnicodeError) as exc:
            raise SSRFBlocked(f"{url}: cannot resolve {host} ({exc})") from None
        if not addresses:
            raise SSRFBlocked(f"{url}: {host} resolves to no address")
    if not allow_private:
        for address in addresses:
            reason = forbidden_reason(address)
            if reason:
                shown = host if host == address else f"{host} ({address})"
                raise SSRFBlocked(f"{url}: {shown} is a {reason} address; set [fetch] allow_private_addresses "
                                  f"= true to fetch from your own network")
    return CheckedTarget(scheme, host, port, addresses)
