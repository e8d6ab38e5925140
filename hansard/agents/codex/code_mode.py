"""Codex "code mode": tool calls written as one JavaScript program, run by the ``exec`` tool.

Newer Codex builds (about 0.144 on) may record, instead of an ``apply_patch`` or
``exec_command`` call, one ``custom_tool_call`` named ``exec`` whose ``input`` is a script
calling ``tools.<name>(...)``::

    text(await tools.apply_patch("*** Begin Patch\\n*** Update File: a.py\\n..."));
    const r = await tools.exec_command({cmd: "npm test", workdir: "/repo"}); text(r.output);

:func:`tool_calls` reads those calls without running anything. What is always true of what
it returns: an argument is a string only when the script states it as a literal (double,
single or back quotes, a back-quoted one without ``${}``), directly, as an object literal's
value, or through a name bound once by ``const``/``let``/``var`` to a literal and never
assigned again. Anything computed is ``None``: the call is known to happen, its argument
is not guessed. An edit read from a guessed argument could be attributed wrongly; an
unreadable one is only missing.
"""

from __future__ import annotations

import re
from typing import Any

from hansard.agents.edits import BEGIN_PATCH, END_PATCH

_CALL = re.compile(r"\btools\s*\.\s*([A-Za-z_$][\w$]*)\s*\(\s*")
_BINDING = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_KEY = re.compile(r"""\s*(?:([A-Za-z_$][\w$]*)|"([^"\\]*)"|'([^'\\]*)')\s*:\s*""")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _literal(src: str, i: int) -> tuple[str, int] | None:
    """The JavaScript string literal starting at ``src[i]`` and the index after it."""
    if i >= len(src) or src[i] not in "\"'`":
        return None
    quote, i = src[i], i + 1
    out: list[str] = []
    while i < len(src):
        c = src[i]
        if c == quote:
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= len(src):
                return None
            e = src[i + 1]
            if e == "x":
                h = src[i + 2:i + 4]
                if not re.fullmatch(r"[0-9a-fA-F]{2}", h):
                    return None
                out.append(chr(int(h, 16)))
                i += 4
            elif e == "u":
                m = re.match(r"\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4})", src[i + 2:i + 10])
                if not m:
                    return None
                code = int(m.group(1) or m.group(2), 16)
                if code > 0x10FFFF:
                    return None
                out.append(chr(code))
                i += 2 + m.end()
            elif e == "\n":  # a line continuation
                i += 2
            else:
                out.append(_ESCAPES.get(e, e))
                i += 2
            continue
        if quote == "`" and src.startswith("${", i):
            return None  # interpolated: computed
        if c == "\n" and quote != "`":
            return None
        out.append(c)
        i += 1
    return None


def _bindings(src: str) -> dict[str, str]:
    """Names bound once to a string literal and never assigned again."""
    found: dict[str, list[str | None]] = {}
    for m in _BINDING.finditer(src):
        lit = _literal(src, m.end())
        after = src[lit[1]:].lstrip()[:1] if lit else ""
        value = lit[0] if lit and after in ("", ";", "\n", ",") else None
        found.setdefault(m.group(1), []).append(value)
    out = {}
    for name, values in found.items():
        assigned = len(re.findall(rf"(?<![\w$.]){re.escape(name)}\s*(?:[-+*/%&|^]|\?\?|<<|>>>?)?=(?!=)", src))
        if len(values) == 1 and values[0] is not None and assigned == 1:
            out[name] = values[0]
    return out


def _value(src: str, i: int, names: dict[str, str]) -> tuple[str | None, int]:
    """A literal or a bound name at ``src[i]`` (None when neither), and where it ends."""
    lit = _literal(src, i)
    if lit:
        return lit
    m = _NAME.match(src, i)
    if m:
        return names.get(m.group(0)), m.end()
    return None, i


def _argument(src: str, i: int, names: dict[str, str]) -> str | dict[str, str | None] | None:
    """The first argument at ``src[i]``: a string, an object literal's string values by key,
    or None when it is neither."""
    if src.startswith("{", i):
        obj: dict[str, str | None] = {}
        i += 1
        while True:
            m = _KEY.match(src, i)
            if not m:
                return obj
            value, i = _value(src, m.end(), names)
            obj[m.group(1) or m.group(2) or m.group(3)] = value
            rest = src[i:].lstrip()
            if not rest.startswith(","):
                return obj
            i = len(src) - len(rest) + 1
    value, end = _value(src, i, names)
    after = src[end:].lstrip()[:1]
    return value if after in (")", ",") else None


def tool_calls(script: str) -> list[tuple[str, str | dict[str, str | None] | None]]:
    """Each ``tools.<name>(...)`` call of a code-mode script, in order: (name, its first
    argument as :func:`_argument` reads it)."""
    if "tools" not in script:
        return []
    names = _bindings(script)
    return [(m.group(1), _argument(script, m.end(), names)) for m in _CALL.finditer(script)]


def text_of(arg: Any, *keys: str) -> str | None:
    """A call's string argument, or the first of ``keys`` an object argument states."""
    if isinstance(arg, str):
        return arg
    if isinstance(arg, dict):
        for k in keys:
            if isinstance(arg.get(k), str):
                return arg[k]
    return None


def one_patch(patches: list[str]) -> str:
    """Several apply_patch texts of one script as one patch: their file sections in order."""
    if len(patches) == 1:
        return patches[0]
    body: list[str] = []
    for p in patches:
        lines = p.strip().splitlines()
        if lines and lines[0].strip() == BEGIN_PATCH:
            lines = lines[1:]
        if lines and lines[-1].strip() == END_PATCH:
            lines = lines[:-1]
        body += lines
    return "\n".join([BEGIN_PATCH, *body, END_PATCH]) + "\n"
