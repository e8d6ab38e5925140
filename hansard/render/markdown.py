r"""Text from transcripts, git and teammates, put into Markdown: the one escaping function.

A session id, a tool call id, a title, a prompt, a commit summary, an author or a member's
name is chosen by whoever wrote the transcript, the commit or the team row. In Markdown that an
editor renders (the LSP hover, anything else), such a string must stay text: never a link (a
``command:`` link runs an editor command on a click), an autolink, an image, HTML, an entity,
a heading, emphasis or a line break.

Always true of ``escape(s)``: the result is one line (every run of whitespace, newlines and
Unicode line separators included, is one space; other control characters, bidirectional
overrides among them, are dropped), and every character that can start Markdown syntax is
backslash-escaped, which CommonMark and GFM renderers (VS Code's included) show as that
character and never read as syntax: ``\ ` * _ { } [ ] < > ( ) # + - . ! | ~ & $ @``, and the
``:`` of ``://``. So no link, image, autolink (``<...>``, a bare ``https://`` or ``www.``, an
e-mail address), HTML tag, entity (``&amp;``), emphasis, heading, list, table or theme icon
(``$(...)``) is left. Other punctuation (``' " ; , : ? % = /``) is plain text and left as is.

``plain(s)`` is the same one line for a client that shows text as it is (a plain-text hover):
whitespace runs are one space and control characters are dropped, nothing is escaped.

``code(s)`` shows an id (or a command line of ids) in a code span when it is made only of
letters, digits, ``._:/-`` and single spaces (nothing in such a span can end it or start
anything), else falls back to ``escape(s)``.
"""

from __future__ import annotations

import re

_ACTIVE = frozenset("\\`*_{}[]<>()#+-.!|~&$@")
_PLAIN_ID = re.compile(r"[A-Za-z0-9._:/-]+(?: [A-Za-z0-9._:/-]+)*")


def escape(text: object) -> str:
    """``text`` (any value: str() of it) as inline Markdown that renders as exactly that text
    on one line."""
    s = " ".join(str(text).split())
    out = []
    for i, ch in enumerate(s):
        if ch in _ACTIVE or (ch == ":" and s.startswith("//", i + 1)):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
    return "".join(out)


def plain(text: object) -> str:
    """``text`` (any value: str() of it) on one line, its control characters dropped."""
    return "".join(ch for ch in " ".join(str(text).split()) if ch.isprintable())


def code(text: object) -> str:
    """An id as an inline code span when that is safe, else as escaped text."""
    s = str(text)
    return f"`{s}`" if _PLAIN_ID.fullmatch(s) else escape(s)
