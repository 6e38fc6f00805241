"""Small files that make a parser spend minutes and gigabytes: the untrusted bytes a reader must be able to
give up on (tests and bench/hostile_inputs.py). Each is valid enough that the parser does not simply refuse it.

    attribute_bomb_html(100_000)   one tag with that many attributes (trafilatura is quadratic in them)
    nested_tags_html(1_000_000)    that many nested tags
    page_tree_bomb_pdf(310)        a 4.5 KB PDF whose page tree lists one page 310 x 310 = 96,100 times
"""
from __future__ import annotations

TEXT = ("Honey bees tell their nest mates where flowers are with the waggle dance: the angle of the run "
        "gives the direction and its length the distance.")


def attribute_bomb_html(attributes: int) -> bytes:
    attrs = " ".join(f'a{i}="x"' for i in range(attributes))
    return (f"<!DOCTYPE html><html><head><title>Bee dances</title></head><body><main><article>"
            f"<div {attrs}><p>{TEXT}</p></div></article></main></body></html>").encode()


def nested_tags_html(depth: int) -> bytes:
    return (b"<!DOCTYPE html><html><head><title>Bee dances</title></head><body>" + b"<div>" * depth +
            f"<p>{TEXT}</p>".encode() + b"</div>" * depth + b"</body></html>")


def page_tree_bomb_pdf(fanout: int = 310) -> bytes:
    """Two levels of /Pages nodes, each listing the next one `fanout` times: fanout**2 pages, one page
    object in the file."""
    content = f"BT /F1 11 Tf 56 780 Td ({TEXT[:60]}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(['3 0 R'] * fanout)}] /Count {fanout * fanout} >>".encode(),
        f"<< /Type /Pages /Parent 2 0 R /Kids [{' '.join(['4 0 R'] * fanout)}] /Count {fanout} >>".encode(),
        b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
        b"/Resources << /Font << /F1 6 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for num, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{num} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{off:010d} 00000 n \n".encode() for off in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
