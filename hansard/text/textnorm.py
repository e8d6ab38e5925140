"""Line normalisation shared by ingest and attribution.

A line's *normal form* ignores whitespace entirely (runs collapsed, ends stripped), so an
agent's line still matches after a formatter re-indents or reflows spacing. The hash of the
normal form is what edits and commits are matched on. A *trivial* line carries too little
text to be evidence on its own (``}``, ``return None``, blank lines).
"""

from __future__ import annotations

try:  # the C module directly: importing hashlib loads OpenSSL too, on `why`'s path
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython
    from hashlib import blake2b

# Minimum count of non-whitespace characters for a line to count as evidence by itself.
MIN_SIGNIFICANT = 10


def normalise(line: str) -> str:
    return " ".join(line.split())


def squash(line: str) -> str:
    """All whitespace removed: the form that survives formatters that add or drop spaces
    inside a line (``f(a,b)`` vs ``f(a, b)``)."""
    return "".join(line.split())


def line_hash(line: str) -> int:
    """64-bit signed hash of the whitespace-free form, fit for an SQLite INTEGER column."""
    digest = blake2b(squash(line).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def exact_hash(line: str) -> int:
    """Hash of the line as written (a trailing CR ignored): equal exact hashes mean no
    formatter touched it."""
    digest = blake2b(line.rstrip("\r").encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def line_facts(line: str) -> tuple[int, int, bool]:
    """(line_hash, exact_hash, is_trivial) at once: the writer needs all three for every
    line an edit adds or removes, and this squashes the line only once."""
    sq = "".join(line.split())
    h = int.from_bytes(blake2b(sq.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big", signed=True)
    e = int.from_bytes(blake2b(line.rstrip("\r").encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big",
                       signed=True)
    trivial = len(sq) < MIN_SIGNIFICANT or not any(c.isalnum() for c in sq)
    return h, e, trivial


def is_trivial(line: str) -> bool:
    s = squash(line)
    if len(s) < MIN_SIGNIFICANT:
        return True
    return not any(c.isalnum() for c in s)


def split_lines(text: str) -> list[str]:
    """Lines of a file's text without their terminators; CRLF and a final newline are
    handled the way git counts lines."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
