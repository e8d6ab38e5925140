"""Syntax highlighting of a file's lines (Pygments), one HTML fragment per line.

Always true: the result has exactly one fragment per input line, each the line's text escaped
and wrapped in ``<span class="tok-X">`` runs that open and close within the line (a token
spanning lines, such as a docstring, is cut at each line end), so a line is a self-contained
table cell. Text Pygments has no lexer for, or a file past ``MAX_LINES`` or ``MAX_CHARS``, is
escaped only.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

# Beyond these the page is painted plain: Pygments' lexing grows with the file, and a long
# file must still paint within a second.
MAX_LINES = 2_000
MAX_CHARS = 200_000


def lines_html(rel: str, lines: list[str]) -> list[Markup]:
    text = "\n".join(lines)
    lexer = _lexer(rel, text) if len(text) <= MAX_CHARS and len(lines) <= MAX_LINES else None
    if lexer is None:
        return [escape(ln) for ln in lines]
    from pygments.token import STANDARD_TYPES

    out: list[Markup] = []
    cur: list[str] = []
    names: dict[object, str] = {}
    for ttype, value in lexer.get_tokens(text):
        cls = names.get(ttype)
        if cls is None:
            t = ttype
            while t not in STANDARD_TYPES and t.parent is not None:
                t = t.parent
            cls = names[ttype] = STANDARD_TYPES.get(t, "")
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                out.append(Markup("".join(cur)))
                cur = []
            if part:
                cur.append(f'<span class="tok-{cls}">{escape(part)}</span>' if cls else str(escape(part)))
    if cur or len(out) < len(lines):
        out.append(Markup("".join(cur)))
    # the lexer may add or drop a final newline: the fragments follow the lines, one each
    out = out[:len(lines)]
    out += [escape(ln) for ln in lines[len(out):]]
    return out


def _lexer(rel: str, text: str) -> Any:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(rel, text[:4096], stripnl=False, ensurenl=False, stripall=False)
    except ClassNotFound:
        return None
