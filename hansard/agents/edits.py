"""Edit reconstruction: the added and removed lines, and the hunks, of one edit, from whatever
a transcript kept of it. Every function here is pure and never raises on odd input except
``PatchError`` from the apply_patch parser.

* whole-file texts, before and after (``diff_texts``: zero-context hunks, post-edit numbers);
* Claude Code's jsdiff ``structuredPatch`` (``hunks_from_structured_patch``);
* unified diffs (``parse_unified_diff``, shared with git in hansard.text.diffs);
* Codex's ``apply_patch`` format (FORMATS.md §2.8), parsed and re-applied, below.

apply_patch grammar (codex-rs/apply-patch, Lark grammar in core)::
Grammar (codex-rs/apply-patch, Lark grammar in core)::

    Patch      := "*** Begin Patch" LF { FileOp } "*** End Patch" LF?
    FileOp     := AddFile | DeleteFile | UpdateFile
    AddFile    := "*** Add File: " path LF { "+" line LF }
    DeleteFile := "*** Delete File: " path LF
    UpdateFile := "*** Update File: " path LF [ "*** Move to: " newPath LF ] { Hunk }
    Hunk       := ("@@" | "@@ " header) LF { (" " | "-" | "+") text LF } [ "*** End of File" LF ]

The parser follows Codex's own (lenient) parser and accepts, on top of it: a missing
``*** End Patch`` at the very end, CRLF line ends, whitespace around the patch and around
marker lines, blank lines between file operations, several stacked ``@@`` anchor lines,
``*** Environment ID:`` lines and ``oai_env://<env>/<abs path>`` paths, and heredoc
wrapping (``apply_patch <<'EOF' … EOF`` with any delimiter word, quoted or not, optionally
after ``cd <dir> &&``). Real syntax errors raise ``PatchError``.

``apply_to_text`` re-applies an update the way Codex does (``seek_sequence``: exact, then
rstrip, then strip, then Unicode-punctuation-normalised matches; ``@@`` anchors move the
search start; a hunk without old lines is appended at the end of the file, as Codex does).
"""

from __future__ import annotations

import difflib
import posixpath
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from hansard.text.diffs import Hunk, parse_unified_diff  # noqa: F401 - unified diffs are one of the shapes read here

BEGIN_PATCH = "*** Begin Patch"
END_PATCH = "*** End Patch"
ADD_FILE = "*** Add File: "
DELETE_FILE = "*** Delete File: "
UPDATE_FILE = "*** Update File: "
MOVE_TO = "*** Move to: "
END_OF_FILE = "*** End of File"
ENVIRONMENT_ID = "*** Environment ID:"

APPLY_PATCH_COMMANDS = ("apply_patch", "applypatch")
_OP_MARKERS = (ADD_FILE, DELETE_FILE, UPDATE_FILE, ENVIRONMENT_ID)

_OAI_ENV = re.compile(r"^oai_env://([^/]*)(/.*)?$")
_HEREDOC_START = re.compile(r"""^<<-?[ \t]*(['"]?)([A-Za-z_][\w.-]*)\1[ \t]*\r?\n""")
_CMD_PREFIX = re.compile(
    r"""^(?:cd[ \t]+(?P<dir>'[^']*'|"[^"]*"|[^\s;&|]+)[ \t]*&&[ \t]*)?(?:apply_patch|applypatch)(?=\s|$)[ \t]*""",
)
_HEADER_SCAN = re.compile(r"^[ \t]*\*\*\* (Add|Update|Delete) File: (.+?)[ \t]*\r?$", re.M)
_MOVE_SCAN = re.compile(r"^[ \t]*\*\*\* Move to: (.+?)[ \t]*\r?$", re.M)


class PatchError(ValueError):
    """The text is not a valid apply_patch patch, or a hunk does not fit the file."""


@dataclass(frozen=True)
class PatchHunk:
    """One ``@@`` chunk of an update (or the body of an add). ``lines`` keep their prefix
    character: ' ' context, '-' removed, '+' added. ``anchors`` are the ``@@ <header>``
    texts stacked before the lines (empty for a bare ``@@``)."""

    lines: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    end_of_file: bool = False

    @property
    def old_lines(self) -> list[str]:
        return [ln[1:] for ln in self.lines if ln[:1] in (" ", "-")]

    @property
    def new_lines(self) -> list[str]:
        return [ln[1:] for ln in self.lines if ln[:1] in (" ", "+")]

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(ln[1:] for ln in self.lines if ln[:1] == "+")

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(ln[1:] for ln in self.lines if ln[:1] == "-")


@dataclass(frozen=True)
class FileOp:
    """One file operation. ``content`` is the full new text of an added file (each line
    ends with a newline, as Codex writes it); adds also carry it as one '+' hunk."""

    op: Literal["add", "delete", "update"]
    path: str
    move_to: str | None = None
    hunks: tuple[PatchHunk, ...] = ()
    content: str | None = None
    env: str | None = None  # multi-environment builds: `*** Environment ID:` / oai_env://<env>/

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(x for h in self.hunks for x in h.added)

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(x for h in self.hunks for x in h.removed)


# --------------------------------------------------------------------------- unwrapping


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def _strip_heredoc(text: str) -> str:
    """``<<'EOF'\\n…\\nEOF`` -> the body; text without a heredoc start is returned as is.
    A missing closing delimiter is tolerated (the rest is the body)."""
    m = _HEREDOC_START.match(text)
    if not m:
        return text
    delim = m.group(2)
    body = text[m.end():]
    lines = body.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip() == delim:
            return "\n".join(lines[:i])
    return body


def unwrap_patch(text: str) -> tuple[str, str | None]:
    """Strip an ``apply_patch`` command word, a ``cd <dir> &&`` prefix and heredoc markers.
    Returns (patch text, workdir named by ``cd`` or None)."""
    t = text.strip()
    workdir = None
    m = _CMD_PREFIX.match(t)
    if m:
        if m.group("dir"):
            workdir = _unquote(m.group("dir"))
        t = t[m.end():].lstrip(" \t")
        if t[:1] in ("'", '"') and not t.startswith("<<"):
            # apply_patch '*** Begin Patch …' (a quoted argument)
            try:
                parts = shlex.split(t)
            except ValueError:
                parts = []
            if len(parts) == 1:
                t = parts[0]
    t = _strip_heredoc(t.lstrip("\r\n"))
    return t, workdir


def _shell_script(argv: list[str]) -> str | None:
    """The script of ``bash -lc <script>`` style argv (also zsh/sh, -c, PowerShell
    ``-Command``, ``cmd /c`` and Codex's shell-snapshot wrapper, whose script is last)."""
    if len(argv) >= 3 and isinstance(argv[-1], str) and isinstance(argv[-2], str):
        flag = argv[-2]
        if flag in ("-c", "-lc", "-ic", "-lic") or flag.lower() in ("-command", "/c"):
            return argv[-1]
    return None


def extract_patch(command: Any) -> tuple[str, str | None] | None:
    """If ``command`` (an argv list or a shell command string) invokes apply_patch, return
    (patch text, workdir from a ``cd <dir> &&`` prefix or None); otherwise None."""
    script: str | None = None
    if isinstance(command, list) and command and all(isinstance(x, str) for x in command):
        name = posixpath.basename(command[0].replace("\\", "/"))
        if name.endswith(".exe"):
            name = name[:-4]
        if name in APPLY_PATCH_COMMANDS:
            if len(command) == 2:
                return unwrap_patch(command[1])[0], None
            return None
        script = _shell_script(command)
    elif isinstance(command, str):
        script = command
    if script is None:
        return None
    s = script.strip()
    m = _CMD_PREFIX.match(s)
    if not m:
        return None
    rest = s[m.end():].lstrip(" \t")
    if not (rest.startswith("<<") or rest.startswith(BEGIN_PATCH) or rest[:1] in ("'", '"')):
        return None
    return unwrap_patch(s)


# --------------------------------------------------------------------------- parsing


def _split_env_path(raw: str, env: str | None) -> tuple[str, str | None]:
    path = raw.strip()
    m = _OAI_ENV.match(path)
    if m:
        return (m.group(2) or "/"), (m.group(1) or env)
    return path, env


def _anchor_of(line: str) -> str | None:
    """``@@`` -> None (no anchor); ``@@ def f():`` -> ``def f():``."""
    s = line.strip()
    rest = s[2:]
    if rest.startswith(" "):
        rest = rest[1:]
    return rest if rest.strip() else None


def parse_patch(text: Any) -> list[FileOp]:
    """Parse an apply_patch patch (possibly heredoc-wrapped) into file operations."""
    if not isinstance(text, str):
        raise PatchError(f"patch must be a string, not {type(text).__name__}")
    body, _ = unwrap_patch(text)
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in body.strip().split("\n")]
    if not lines or lines[0].strip() != BEGIN_PATCH:
        raise PatchError("invalid patch: the first line of the patch must be '*** Begin Patch'")
    if len(lines) > 1 and lines[-1].strip() == END_PATCH:
        lines = lines[1:-1]
    else:
        end = None
        for i in range(len(lines) - 1, 0, -1):
            if lines[i].rstrip() == END_PATCH:  # unindented marker followed by junk
                end = i
                break
        lines = lines[1:end] if end is not None else lines[1:]  # no End Patch: lenient

    ops: list[FileOp] = []
    env: str | None = None
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        s = line.strip()
        lineno = i + 2
        if not s:
            i += 1
            continue
        if s.startswith(ENVIRONMENT_ID):
            env = s[len(ENVIRONMENT_ID):].strip() or None
            i += 1
            continue
        if s.startswith(ADD_FILE):
            path, op_env = _split_env_path(s[len(ADD_FILE):], env)
            i += 1
            added: list[str] = []
            while i < n and lines[i].startswith("+"):
                added.append(lines[i][1:])
                i += 1
            content = "".join(x + "\n" for x in added)
            hunks = (PatchHunk(lines=tuple("+" + x for x in added)),) if added else ()
            ops.append(FileOp("add", path, None, hunks, content, op_env))
            continue
        if s.startswith(DELETE_FILE):
            path, op_env = _split_env_path(s[len(DELETE_FILE):], env)
            ops.append(FileOp("delete", path, env=op_env))
            i += 1
            continue
        if s.startswith(UPDATE_FILE):
            path, op_env = _split_env_path(s[len(UPDATE_FILE):], env)
            i += 1
            move_to = None
            if i < n and lines[i].strip().startswith(MOVE_TO):
                move_to, _ = _split_env_path(lines[i].strip()[len(MOVE_TO):], env)
                i += 1
            chunks: list[PatchHunk] = []
            while i < n:
                cur = lines[i]
                if not cur.strip():
                    i += 1  # blank lines between chunks
                    continue
                if cur.rstrip() == END_OF_FILE or (cur.strip() == END_OF_FILE and chunks):
                    if not chunks:
                        raise PatchError(f"invalid hunk at line {i + 2}, update hunk does not contain any lines")
                    chunks[-1] = PatchHunk(chunks[-1].lines, chunks[-1].anchors, True)
                    i += 1
                    continue
                if cur.startswith("*") or cur.strip().startswith(_OP_MARKERS):
                    break  # next file operation (an unknown marker is reported by the outer loop)
                anchors: list[str] = []
                saw_header = False
                while i < n and lines[i].lstrip().startswith("@@"):
                    saw_header = True
                    a = _anchor_of(lines[i])
                    if a is not None:
                        anchors.append(a)
                    i += 1
                if not saw_header and chunks:
                    raise PatchError(
                        f"invalid hunk at line {i + 2}, expected update hunk to start with a @@ context marker, got: '{cur}'"
                    )
                body_lines: list[str] = []
                eof = False
                while i < n:
                    ln = lines[i]
                    if ln.rstrip() == END_OF_FILE:
                        if not body_lines:
                            raise PatchError(f"invalid hunk at line {i + 2}, update hunk does not contain any lines")
                        eof = True
                        i += 1
                        break
                    if ln == "":
                        body_lines.append(" ")  # an empty line is an empty context line
                    elif ln[0] in " +-":
                        body_lines.append(ln)
                    elif not body_lines:
                        raise PatchError(
                            f"invalid hunk at line {i + 2}, unexpected line found in update hunk: '{ln}'. "
                            "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"
                        )
                    else:
                        break
                    i += 1
                if not body_lines:
                    raise PatchError(f"invalid hunk at line {i + 2}, update hunk does not contain any lines")
                chunks.append(PatchHunk(tuple(body_lines), tuple(anchors), eof))
            if not chunks:
                raise PatchError(f"invalid hunk at line {lineno}, update file hunk for path '{path}' is empty")
            ops.append(FileOp("update", path, move_to, tuple(chunks), None, op_env))
            continue
        raise PatchError(
            f"invalid hunk at line {lineno}, '{s}' is not a valid hunk header. Valid hunk headers: "
            "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
        )
    return ops


def scan_headers(text: Any) -> list[tuple[str, str, str | None]]:
    """Best effort for patches that do not parse: (op, path, move_to) of every file header."""
    if not isinstance(text, str):
        return []
    out: list[tuple[str, str, str | None]] = []
    for m in _HEADER_SCAN.finditer(text):
        path, _ = _split_env_path(m.group(2), None)
        move_to = None
        if m.group(1) == "Update":
            nxt = _MOVE_SCAN.match(text, m.end() + 1) if m.end() < len(text) else None
            if nxt:
                move_to = _split_env_path(nxt.group(1), None)[0]
        out.append((m.group(1).lower(), path, move_to))
    return out


def render_patch(ops: list[FileOp]) -> str:
    """The patch text for ``ops`` (the inverse of ``parse_patch``)."""
    out = [BEGIN_PATCH]
    for op in ops:
        if op.op == "add":
            out.append(ADD_FILE + op.path)
            out.extend(h for hk in op.hunks for h in hk.lines)
        elif op.op == "delete":
            out.append(DELETE_FILE + op.path)
        else:
            out.append(UPDATE_FILE + op.path)
            if op.move_to:
                out.append(MOVE_TO + op.move_to)
            for hk in op.hunks:
                if hk.anchors:
                    out.extend("@@ " + a for a in hk.anchors)
                else:
                    out.append("@@")
                out.extend(hk.lines)
                if hk.end_of_file:
                    out.append(END_OF_FILE)
    out.append(END_PATCH)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- applying

_PUNCT = str.maketrans(
    {
        **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
        **{c: "'" for c in "\u2018\u2019\u201a\u201b"},
        **{c: '"' for c in "\u201c\u201d\u201e\u201f"},
        **{c: " " for c in "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"},
    }
)


def _normalise(s: str) -> str:
    return s.strip().translate(_PUNCT)


def seek_sequence(lines: list[str], pattern: list[str], start: int, eof: bool) -> int | None:
    """Codex's seek_sequence: the first index >= start where ``pattern`` occurs, trying
    exact, rstrip, strip and punctuation-normalised comparisons in that order. With ``eof``
    the search starts where the pattern would end the file."""
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    search_start = len(lines) - len(pattern) if eof else start
    last = len(lines) - len(pattern)
    for key in (None, str.rstrip, str.strip, _normalise):
        pat = pattern if key is None else [key(p) for p in pattern]
        for i in range(search_start, last + 1):
            if key is None:
                if lines[i:i + len(pattern)] == pat:
                    return i
            elif all(key(lines[i + k]) == pat[k] for k in range(len(pat))):
                return i
    return None


def apply_to_text(original: str, op: FileOp) -> str:
    """The file text after ``op`` is applied to ``original`` (Codex semantics; the result
    always ends with a newline unless it is empty). Raises PatchError when a context or
    anchor line is not found."""
    if op.op == "add":
        return op.content if op.content is not None else "".join(x + "\n" for h in op.hunks for x in h.added)
    if op.op == "delete":
        return ""
    lines = original.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    replacements: list[tuple[int, int, list[str]]] = []
    line_index = 0
    for hunk in op.hunks:
        for anchor in hunk.anchors:
            idx = seek_sequence(lines, [anchor], line_index, False)
            if idx is None:
                raise PatchError(f"Failed to find context '{anchor}' in {op.path}")
            line_index = idx + 1
        old, new = hunk.old_lines, hunk.new_lines
        if not old:
            replacements.append((len(lines), 0, new))  # Codex appends pure additions
            continue
        found = seek_sequence(lines, old, line_index, hunk.end_of_file)
        if found is None and old[-1] == "":
            old = old[:-1]
            if new and new[-1] == "":
                new = new[:-1]
            found = seek_sequence(lines, old, line_index, hunk.end_of_file)
        if found is None:
            raise PatchError(f"Failed to find expected lines in {op.path}:\n" + "\n".join(hunk.old_lines))
        replacements.append((found, len(old), new))
        line_index = found + len(old)
    replacements.sort(key=lambda r: r[0])
    for start, old_len, new in reversed(replacements):
        lines[start:start + old_len] = new
    if not lines or lines[-1] != "":
        lines.append("")
    return "\n".join(lines)


# -- whole-file texts and structured patches -------------------------------------------------


def lines_of(text: str | None) -> list[str]:
    if not text:
        return []
    out = text.split("\n")
    if out[-1] == "":
        out.pop()
    return out


def diff_texts(before: str | None, after: str | None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[Hunk, ...]]:
    """Added lines, removed lines and zero-context hunks (with post-edit numbers) between two
    whole-file texts. Used where a transcript has full before/after text but no patch."""
    a, b = lines_of(before), lines_of(after)
    added: list[str] = []
    removed: list[str] = []
    hunks: list[Hunk] = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        rem, add = a[i1:i2], b[j1:j2]
        removed += rem
        added += add
        hunks.append(
            Hunk(
                old_start=i1 + 1, old_lines=i2 - i1, new_start=j1 + 1, new_lines=j2 - j1,
                lines=tuple("-" + x for x in rem) + tuple("+" + x for x in add),
            )
        )
    return tuple(added), tuple(removed), tuple(hunks)


def diff_replacements(pairs: Iterable[tuple[Any, Any]]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[Hunk, ...]]:
    """Added and removed lines of search-and-replace calls ((old, new) strings, a missing old
    one empty) without the file's text: each replacement's own diff, so a line on both sides of
    it is context, not written. The hunks are relative to the strings, not the file: they carry
    no line numbers. A pair whose new side is not a string is left out."""
    added: list[str] = []
    removed: list[str] = []
    hunks: list[Hunk] = []
    for old, new in pairs:
        if not isinstance(new, str):
            continue
        a, r, rel = diff_texts(old if isinstance(old, str) else "", new)
        added += a
        removed += r
        hunks += [Hunk(None, h.old_lines, None, h.new_lines, h.lines) for h in rel]
    return tuple(added), tuple(removed), tuple(hunks)


def hunks_from_structured_patch(patch: Iterable[Any]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[Hunk, ...]]:
    """Claude Code's jsdiff ``structuredPatch`` (list of {oldStart, oldLines, newStart, newLines, lines})."""
    added: list[str] = []
    removed: list[str] = []
    hunks: list[Hunk] = []
    for h in patch or ():
        if not isinstance(h, dict):
            continue
        lines = [ln for ln in h.get("lines") or () if isinstance(ln, str) and not ln.startswith("\\")]
        for ln in lines:
            if ln.startswith("+"):
                added.append(ln[1:])
            elif ln.startswith("-"):
                removed.append(ln[1:])
        hunks.append(
            Hunk(_int(h.get("oldStart")), _int(h.get("oldLines")), _int(h.get("newStart")), _int(h.get("newLines")), tuple(lines))
        )
    return tuple(added), tuple(removed), tuple(hunks)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None
