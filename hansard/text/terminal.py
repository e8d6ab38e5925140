r"""Text for a terminal: the one sanitiser every text output goes through (the CLI's, the
demo's, the progress line).

A commit message, a file's line, a transcript, a title or a teammate's name is chosen by
whoever wrote it, and a terminal obeys the control characters in what it is given: ``ESC ]0;``
retitles the window, ``ESC [2J`` clears it, OSC 8 makes a link whose target is hidden, ``CR``
writes over what a line showed, a bidirectional override shows text in another order than it
is. So nothing hansard prints as text carries one.

Always true of ``visible(s)``: it holds no C0 control character but newline and tab (a
carriage return only right before a newline: a CRLF line end), no DEL, no C1 control and no
bidirectional formatting character; each one removed is shown in its place as its escape
(``\x1b``, ``\r``, ``\x9b``, ``\u202e``), so a reader sees that it was there. Text without one
comes back as the same object.

``Painted`` is text hansard coloured itself after making its parts visible (``paint``): the
only escape sequences that reach a terminal. ``visible`` gives it back as it is.

JSON keeps the exact text: its encoder escapes C0 controls; ``json_text``/``json_bytes`` also
escape the C1 and bidirectional characters that ``ensure_ascii=False`` leaves raw (they can
stand only inside a JSON string, where ``\uXXXX`` means the same character).
"""

from __future__ import annotations

import re
import sys
from typing import IO

# (A CR is kept right before a newline: a CRLF line end moves the cursor nowhere new.)
_CONTROL = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_RAW_IN_JSON_BYTES = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
_NAMED = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f"}


class Painted(str):
    """Text that is safe for a terminal as it is: its parts went through ``visible`` and the
    only escape sequences in it are the colours ``paint`` added."""

    __slots__ = ()


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def visible(text: str) -> str:
    """``text`` with every control character a terminal would act on shown as its escape."""
    if isinstance(text, Painted) or _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escape, text)


def paint(text: str, sgr: str) -> Painted:
    """``text``, made visible, in the colour of the SGR parameters ``sgr`` (``"32"``: green)."""
    return Painted(f"\x1b[{sgr}m{visible(text)}\x1b[0m")


def painted_lines(lines: list[str]) -> Painted:
    """Lines joined into one text for a terminal: each made visible, a ``Painted`` one kept."""
    return Painted("\n".join(visible(ln) for ln in lines))


def say(text: str, file: IO[str] | None = None, end: str = "\n", flush: bool = False) -> None:
    """``print(text)`` for text that may hold what git, a transcript, a file or a teammate
    wrote: made visible first."""
    out = sys.stdout if file is None else file
    out.write(visible(text) + end)
    if flush:
        out.flush()


def json_text(doc: str) -> str:
    """A JSON document as ``json.dumps(..., ensure_ascii=False)`` wrote it, with the C1 and
    bidirectional characters escaped (the same JSON value)."""
    if doc.isascii() and "\x7f" not in doc:  # none of them (a flag of the string, then one scan)
        return doc
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", doc)


def json_bytes(doc: bytes) -> bytes:
    """``json_text`` for a document as UTF-8 bytes."""
    if doc.isascii() and b"\x7f" not in doc:
        return doc
    return _RAW_IN_JSON_BYTES.sub(lambda m: f"\\u{ord(m.group(0).decode()):04x}".encode(), doc)
