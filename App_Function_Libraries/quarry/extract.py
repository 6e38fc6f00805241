"""The main text of saved pages or live URLs, through the fetch and extraction code research uses (so extraction
quality can be measured on any page), under the same [fetch] limits: a parse worker killed at
extract_timeout_seconds or extract_memory_mb."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from App_Function_Libraries.quarry._common import settings_or_current


@dataclass(frozen=True)
class Extracted:
    """One input read: its title and main text, or (error, one readable line) why it could not be."""
    location: str
    title: str = ""
    text: str = ""
    error: str = ""


def is_url(location: str) -> bool:
    return location.lower().startswith(("http://", "https://"))


def pages(locations: list[str], settings=None) -> Iterator[Extracted]:
    """Each file or http(s) URL in turn, read as research reads it; a failure is that input's error, and the next
    one is read."""
    from App_Function_Libraries.Research.extract import warm_extractor
    from App_Function_Libraries.Research.fetch import PageFetcher
    fetch = settings_or_current(settings).fetch
    fetcher = PageFetcher(fetch) if any(is_url(x) for x in locations) else None
    warm_extractor()
    for location in locations:
        yield _extract_one(location, fetch, fetcher)


def _extract_one(location: str, fetch, fetcher) -> Extracted:
    from App_Function_Libraries.Research.extract import ExtractionFailed
    try:
        return Extracted(location, *_read(location, fetch, fetcher))
    except ExtractionFailed as exc:
        return Extracted(location, error=str(exc))
    except OSError as exc:
        return Extracted(location, error=exc.strerror or str(exc))
    except Exception as exc:  # noqa: BLE001 - one bad input is reported and the next one is read
        detail = " ".join(str(exc).split())[:200]
        return Extracted(location, error=f"unexpected {type(exc).__name__}" + (f": {detail}" if detail else ""))


def _read(location: str, fetch, fetcher) -> tuple[str, str]:
    """(title, text) of one file or URL under these [fetch] settings; ExtractionFailed / OSError otherwise."""
    import mimetypes

    from App_Function_Libraries.Research.extract import ExtractionFailed, read_page_text
    if is_url(location):
        page = fetcher.fetch(location)
        if page.error:
            raise ExtractionFailed(page.error)
        extracted = read_page_text(page.body, page.content_type, page.header_charset, page.final_url, fetch)
    else:
        with open(location, "rb") as fh:
            body = fh.read()
        content_type = mimetypes.guess_type(location)[0] or ""
        extracted = read_page_text(body, content_type, "", None, fetch)
    return extracted.title, extracted.text
