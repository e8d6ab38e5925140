"""Text helpers for answers: excerpts with the matches marked, and revision keys.

A *revision* is a near-identical copy of one message in the same conversation: a resumed
session replaying a prompt under a new id, a record re-appended after an update, a tool
output that differs only in a timing line or a chunk id. Two messages are revisions of one
another when they have the same role and kind and the same text after normalisation: case
folded, whitespace collapsed, and (outside conversation text) numbers and hex ids masked. Very short texts ("yes",
"continue") are never folded: saying them twice is two messages.
"""

from __future__ import annotations

import hashlib
import re

MARK_OPEN, MARK_CLOSE = "«", "»"
EXCERPT_CHARS = 240
MIN_REVISION_CHARS = 16
REVISION_PREFIX = 4000

_HEXISH = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{6,}\b")
_NUM = re.compile(r"\d+(?:[.,:]\d+)*")
_WS = re.compile(r"\s+")


def normalise(text: str, mask_numbers: bool = True) -> str:
    t = text[:REVISION_PREFIX].casefold()
    if mask_numbers:
        t = _HEXISH.sub("#", t)
        t = _NUM.sub("0", t)
    return _WS.sub(" ", t).strip()


def revision_key(role: str, kind: str, text: str, length: int | None = None) -> str | None:
    """``text`` may be cut to its first REVISION_PREFIX characters; ``length`` is the full length."""
    # In conversation a number is meaning ("3 files" vs "4 files"); in tool output it is
    # mostly noise (timings, chunk ids, pids).
    n = normalise(text, mask_numbers=kind not in ("text", "thinking"))
    if len(n) < MIN_REVISION_CHARS:
        return None
    full = len(text) if length is None else length
    # Long texts: the length bucket keeps two different files with a common head apart.
    bucket = full // 256 if full > REVISION_PREFIX else 0
    return hashlib.blake2b(f"{role}\0{kind}\0{bucket}\0{n}".encode("utf-8", "surrogatepass"),
                           digest_size=12).hexdigest()


def excerpt(text: str, words: list[str], width: int = EXCERPT_CHARS) -> str:
    """A window of ``text`` around the first match, matches marked «like this»."""
    flat = _WS.sub(" ", text).strip()
    low = flat.casefold()
    pos = -1
    for w in words:
        if not w:
            continue
        i = _find_word(low, w)
        if i >= 0 and (pos < 0 or i < pos):
            pos = i
    if pos < 0:
        start = 0
    else:
        start = max(0, pos - width // 3)
        if start > 0:
            sp = flat.rfind(" ", max(0, start - 20), start)
            start = sp + 1 if sp >= 0 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        sp = flat.rfind(" ", start + width - 30, end)
        end = sp if sp > start else end
    piece = flat[start:end]
    piece = mark(piece, words)
    return ("…" if start > 0 else "") + piece + ("…" if end < len(flat) else "")


def _find_word(low: str, w: str) -> int:
    if w.isalnum():
        m = re.search(r"(?<![^\W_])" + re.escape(w), low)
        return m.start() if m else -1
    return low.find(w)


def mark(piece: str, words: list[str]) -> str:
    if not words:
        return piece
    alts = "|".join(
        (r"(?<![^\W_])" + re.escape(w)) if w.isalnum() else re.escape(w) for w in sorted(words, key=len, reverse=True) if w
    )
    if not alts:
        return piece
    return re.sub(f"({alts})", lambda m: MARK_OPEN + m.group(1) + MARK_CLOSE, piece, flags=re.IGNORECASE)
