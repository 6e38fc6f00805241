"""Small, valid PDFs written by hand for tests: text pages (Helvetica), image-only pages, and encryption
through pypdf's writer."""
from __future__ import annotations

import io
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _text_stream(lines: list[str]) -> bytes:
    ops = ["BT", "/F1 11 Tf", "14 TL", "56 780 Td"]
    for line in lines:
        ops.append(f"({_escape(line)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def _image_stream() -> bytes:
    """An 8x8 grey inline image and no text at all (like a scanned page)."""
    pixels = bytes((x * 16 + y * 8) % 256 for y in range(8) for x in range(8))
    return (b"q 200 0 0 200 100 500 cm\nBI /W 8 /H 8 /CS /G /BPC 8 ID\n" + pixels + b"\nEI\nQ")


def pdf_bytes(pages: list[list[str] | None], title: str = "") -> bytes:
    """A PDF with one page per item: a list of text lines, or None for an image-only page."""
    objects: list[bytes] = []
    n_pages = len(pages)
    page_ids = [4 + 2 * i for i in range(n_pages)]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for i, lines in enumerate(pages):
        content = _image_stream() if lines is None else _text_stream(lines)
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents {page_ids[i] + 1} 0 R "
                       f"/Resources << /Font << /F1 3 0 R >> >> >>".encode())
        objects.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
    info_id = None
    if title:
        objects.append(f"<< /Title ({_escape(title)}) >>".encode())
        info_id = len(objects)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for num, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{num} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R" + (f" /Info {info_id} 0 R" if info_id else "") + " >>"
    out.write(f"trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def write_pdf(path: Path, pages: list[list[str] | None], title: str = "") -> Path:
    path.write_bytes(pdf_bytes(pages, title))
    return path


def write_encrypted_pdf(path: Path, pages: list[list[str] | None], password: str = "s3cret") -> Path:
    """The same PDF encrypted with a user password (RC4-128: needs no extra crypto library)."""
    from pypdf import PdfReader, PdfWriter
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    with open(path, "wb") as fh:
        writer.write(fh)
    return path
