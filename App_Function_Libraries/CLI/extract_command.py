"""`python app.py extract PATH_OR_URL… [--json]`: the main text of saved pages or live URLs, through the same
fetch and extraction code the research pipeline uses (so extraction quality can be measured on any pages),
under the same [fetch] limits: a parse worker killed at extract_timeout_seconds or extract_memory_mb."""
from __future__ import annotations

import sys

from App_Function_Libraries.CLI.terminal import clean, json_text, one_line


def register(sub) -> None:
    p = sub.add_parser("extract", help="print the main text of web pages (files or URLs) as research reads them")
    p.add_argument("locations", nargs="+", metavar="PATH_OR_URL", help="saved page files or http(s) URLs")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per line: source, title, text (and error when it failed)")
    p.set_defaults(func=run_extract)


def is_url(location: str) -> bool:
    return location.lower().startswith(("http://", "https://"))


def extract_location(location: str, settings, fetcher=None) -> tuple[str, str]:
    """(title, text) of one file or URL under these [fetch] settings; raises ExtractionFailed / OSError with a
    readable message."""
    import mimetypes

    from App_Function_Libraries.Research.extract import ExtractionFailed, read_page_text
    if is_url(location):
        page = fetcher.fetch(location)
        if page.error:
            raise ExtractionFailed(page.error)
        extracted = read_page_text(page.body, page.content_type, page.header_charset, page.final_url, settings)
    else:
        with open(location, "rb") as fh:
            body = fh.read()
        content_type = mimetypes.guess_type(location)[0] or ""
        extracted = read_page_text(body, content_type, "", None, settings)
    return extracted.title, extracted.text


def run_extract(args) -> int:
    """Every input in turn: its text on stdout; a failure is one line on stderr naming the input (and, with
    --json, a record with "error"), then the next input. Exit code 1 when any input failed."""
    from App_Function_Libraries.config import get_settings
    from App_Function_Libraries.Research.extract import warm_extractor
    from App_Function_Libraries.Research.fetch import PageFetcher
    settings = get_settings().fetch
    fetcher = PageFetcher(settings) if any(is_url(x) for x in args.locations) else None
    warm_extractor()
    failures = 0
    for location in args.locations:
        title, text, error = _extract_one(location, settings, fetcher)
        failures += bool(error)
        _print_result(location, title, text, error, args.json)
    return 1 if failures else 0


def _extract_one(location: str, settings, fetcher) -> tuple[str, str, str]:
    """(title, text, error): error is '' on success, else one readable line."""
    from App_Function_Libraries.Research.extract import ExtractionFailed
    try:
        return *extract_location(location, settings, fetcher), ""
    except ExtractionFailed as exc:
        return "", "", str(exc)
    except OSError as exc:
        return "", "", exc.strerror or str(exc)
    except Exception as exc:  # noqa: BLE001 - one bad input is reported and the next one is read
        detail = " ".join(str(exc).split())[:200]
        return "", "", f"unexpected {type(exc).__name__}" + (f": {detail}" if detail else "")


def _print_result(location: str, title: str, text: str, error: str, as_json: bool) -> None:
    if error:
        print(f"{location}: {clean(error)}", file=sys.stderr, flush=True)  # the page's words cleaned, not yours
    if as_json:
        record = {"source": location, "title": title, "text": text, **({"error": error} if error else {})}
        print(json_text(record), flush=True)
    elif not error:
        print(f"==> {location} <==\n# {one_line(title)}\n\n{clean(text)}\n", flush=True)
