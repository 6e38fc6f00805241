"""URL normalization for de-duplicating search results, and site matching for blacklists.

normalize_url gives one key for the spellings of one page: the scheme (http and https alike), case of the
host, a leading `www.`, default ports, a trailing slash, the fragment, tracking parameters (utm_*, gclid,
fbclid, …) and the order of the remaining query parameters do not matter. It is a key, not a URL to fetch.
"""
from __future__ import annotations

from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

TRACKING_PARAMS = frozenset({
    "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
    "mc_cid", "mc_eid", "_ga", "_gl", "igshid", "si", "ref_src", "ref_url", "srsltid", "vero_id", "oly_enc_id",
    "oly_anon_id", "_hsenc", "_hsmi", "mkt_tok", "trk", "spm", "scid", "cvid", "ocid", "wt.mc_id", "wt_mc_id",
})
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_", "ga_", "__hs", "ns_")


def is_tracking_param(name: str) -> bool:
    low = name.lower()
    return low in TRACKING_PARAMS or low.startswith(TRACKING_PREFIXES)


def normalize_url(url: str) -> str:
    """The de-duplication key of a URL ('' for something that is not a URL)."""
    if not isinstance(url, str) or not url.strip():
        return ""
    text = url.strip()
    try:
        parts = urlsplit(text if "//" in text else "//" + text)
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port
    except ValueError:
        return text.lower()
    host = host.removeprefix("www.")
    scheme = (parts.scheme or "http").lower()
    if port and not (port == 80 and scheme == "http" or port == 443 and scheme == "https"):
        host = f"{host}:{port}"
    path = quote(unquote(parts.path), safe="/:@!$&'()*+,;=-._~%")
    path = path.rstrip("/")
    for index in ("/index.html", "/index.htm", "/index.php"):
        if path.lower().endswith(index):
            path = path[: -len(index)]
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not is_tracking_param(k)]
    query_text = urlencode(sorted(query))
    return f"{host}{path}" + (f"?{query_text}" if query_text else "")


def result_key(url: str) -> str:
    """The key that makes two search results one: normalize_url for a web address; a local result's address
    (file:///notes.pdf#p3, an index's own scheme) as it is, since its fragment names the page."""
    text = url.strip() if isinstance(url, str) else ""
    scheme = text.split(":", 1)[0].lower() if ":" in text else ""
    return text if scheme and scheme not in ("http", "https") and "." not in scheme else normalize_url(text)


def host_of(url: str) -> str:
    """The host of a URL, lower case, without `www.` ('' when there is none)."""
    try:
        host = urlsplit(url.strip() if "//" in url else "//" + url.strip()).hostname or ""
    except (ValueError, AttributeError):
        return ""
    return host.lower().rstrip(".").removeprefix("www.")


def matches_site(url: str, site: str) -> bool:
    """Whether url is on site or one of its subdomains (site 'example.org' matches 'news.example.org')."""
    host, site = host_of(url), site.lower().removeprefix("www.")
    return bool(host) and (host == site or host.endswith("." + site))
