"""File paths as an agent wrote them on any machine, read on this one.

A transcript names files in its own machine's form: POSIX (``/home/dana/app/x.py``,
``/Users/dana/app/x.py``), Windows with a drive letter in either slash and any case
(``D:\\app\\x.go``, ``d:/app/x.go``), Windows' long form (``\\\\?\\D:\\app``, ``\\\\?\\UNC\\host\\share``),
a share (``\\\\host\\share\\app``), a ``file://`` URI (Cursor's ``file:///c%3A/app/x.ts``), or
WSL's view of a drive (``/mnt/d/app/x.go``, the same file as ``D:\\app\\x.go``).

``parse`` turns any of them into a :class:`Foreign`: an anchor (``/`` for POSIX, ``d:`` for a
drive, ``//host/share`` for a share) and the path's parts below it, with ``.`` dropped and
``..`` applied (a ``..`` above the anchor makes the path unusable: None). A drive and WSL's
``/mnt/<letter>`` are one anchor. Windows paths, and WSL's drives, name the same file in any
case, so they compare case-insensitively (``key``); POSIX paths compare as written. Pure
string work: nothing here touches the file system.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")
_WSL_DRIVE = re.compile(r"^/mnt/([a-z])(?:/|$)")
_URI_DRIVE = re.compile(r"^/([A-Za-z]):(?:/|$)")
POSIX = "/"


class Foreign(NamedTuple):
    """A path read from a transcript: its anchor, its parts (as written) and whether it names
    files case-insensitively (a Windows drive or share, or WSL's view of a drive)."""

    anchor: str
    parts: tuple[str, ...]
    folded: bool

    def key(self) -> tuple[str, tuple[str, ...]]:
        """What two paths naming the same file share."""
        if self.folded:
            return self.anchor, tuple(p.casefold() for p in self.parts)
        return self.anchor, self.parts

    def under(self, root: Foreign) -> tuple[str, ...] | None:
        """The parts of this path below ``root``, or None when it is not below it (the root
        itself gives ``()``)."""
        if root.anchor != self.anchor or len(root.parts) > len(self.parts):
            return None
        n = len(root.parts)
        head = self.parts[:n]
        if head != root.parts and not (self.folded and tuple(p.casefold() for p in head) == root.key()[1]):
            return None
        return self.parts[n:]

    def joined(self, rel: str) -> Foreign | None:
        """This folder with a relative path (in either slash) below it."""
        return _normal(self.anchor, [*self.parts, *re.split(r"[\\/]", rel)], self.folded)

    def text(self) -> str:
        """A plain form of the path, for people (forward slashes)."""
        body = "/".join(self.parts)
        if self.anchor == POSIX:
            return "/" + body
        return f"{self.anchor}/{body}" if body else self.anchor + "/"

    def local(self) -> str | None:
        """The path on this machine when it is a POSIX one, else None."""
        return self.text() if self.anchor == POSIX else None


def parse(path: str) -> Foreign | None:
    """``path`` in any of the forms of the module docstring, or None when it is relative, empty
    or leaves its anchor."""
    if not path or "\0" in path:
        return None
    p = path.strip()
    if p[:7].lower() == "file://":
        return _uri(p[7:])
    if p.startswith(("\\\\?\\", "//?/", "\\\\.\\", "//./")):
        rest = p[4:]
        if rest[:4].upper() in ("UNC\\", "UNC/"):
            return _share(rest[4:])
        return _drive(rest)
    if p.startswith(("\\\\", "//")) and len(p) > 2 and p[2] not in "\\/":
        return _share(p[2:])
    if _DRIVE.match(p):
        return _drive(p)
    if p.startswith("/"):
        m = _WSL_DRIVE.match(p)
        if m:
            return _normal(f"{m.group(1)}:", p[m.end():].split("/"), True)
        return _normal(POSIX, p.split("/"), False)
    return None


def is_relative(path: str) -> bool:
    """A path with no anchor of any machine: read against a working folder."""
    return bool(path) and not path.startswith(("/", "\\")) and not _DRIVE.match(path) \
        and path[:7].lower() != "file://"


def _drive(p: str) -> Foreign | None:
    m = _DRIVE.match(p)
    if m is None:
        return None
    return _normal(f"{m.group(1).lower()}:", re.split(r"[\\/]", p[2:]), True)


def _share(p: str) -> Foreign | None:
    bits = re.split(r"[\\/]", p)
    if len(bits) < 2 or not bits[0] or not bits[1]:
        return None
    return _normal(f"//{bits[0].lower()}/{bits[1].lower()}", bits[2:], True)


def _uri(rest: str) -> Foreign | None:
    host, slash, body = rest.partition("/")
    body = "/" + body if slash else ""
    from urllib.parse import unquote

    body = unquote(body)
    if host and host.lower() != "localhost":
        return _share(f"{host}/{body.lstrip('/')}")
    m = _URI_DRIVE.match(body)
    if m:
        return _normal(f"{m.group(1).lower()}:", re.split(r"[\\/]", body[3:]), True)
    return parse(body) if body.startswith("/") else None


def _normal(anchor: str, bits: list[str], folded: bool) -> Foreign | None:
    parts: list[str] = []
    for b in bits:
        if b in ("", "."):
            continue
        if b == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(b)
    return Foreign(anchor, tuple(parts), folded)
