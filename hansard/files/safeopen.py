"""Opening files that someone else may have put there: transcripts, memory files, web-chat
exports, a buffer named by path. The one place that opens them.

Always true of a file opened here:

- the open never waits: ``O_NONBLOCK``, so a FIFO or a device is refused, not waited on
  forever (``mkfifo ~/.codex/AGENTS.md`` must not hang ``hansard index``);
- it is a regular file, decided by ``fstat`` of the open descriptor (no swap between the
  check and the read);
- its last component is not a symlink (``O_NOFOLLOW``) unless the caller follows links; a
  caller that follows them and names ``within`` gets only a file whose real path, read from
  the open descriptor, lies inside one of those folders;
- ``dir_fd`` opens a name relative to a folder's descriptor (openat), so a checked folder
  cannot be swapped for a link between the check and the open.

Every refusal is an ``OSError``: ``NotRegularFile`` and ``OutsideFolder`` are
``PermissionError``s (``Refused``), so callers that skip unreadable files skip them too; the
system's own are ``ELOOP`` for a symlink under ``O_NOFOLLOW``, ``ENOENT``, ``EACCES``.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable
from typing import BinaryIO

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class Refused(PermissionError):
    """A file hansard will not read; a PermissionError, so every reader that skips an
    unreadable file skips it too."""


class NotRegularFile(Refused):
    """A FIFO, a socket, a device or a folder where a file was expected."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(errno.EINVAL, "not a regular file", os.fspath(path))


class OutsideFolder(Refused):
    """A file whose real path (a symlink's target) lies outside the folders it may be read from."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(errno.EACCES, "outside the folders it may be read from", os.fspath(path))


def fd_path(fd: int) -> str | None:
    """The real path of an open descriptor (Linux: /proc/self/fd; macOS: F_GETPATH), or None
    where the system does not tell."""
    if sys.platform == "darwin":
        try:
            import fcntl

            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))  # type: ignore[attr-defined]
            return os.fsdecode(raw.split(b"\0", 1)[0])
        except (OSError, AttributeError):
            return None
    try:
        p = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return p if p.startswith("/") and not p.endswith(" (deleted)") else None


class Folders(tuple):
    """Folders already resolved (``folders()``), so a scan resolves them once, not per file."""


def folders(paths: Iterable[str | os.PathLike[str]]) -> Folders:
    return Folders(os.path.realpath(os.fspath(p)) for p in paths)


def inside(real: str, within: Iterable[str | os.PathLike[str]]) -> bool:
    """Is the real path ``real`` one of the folders ``within`` (resolved here unless they are
    ``Folders``) or below one of them?"""
    for base in within if isinstance(within, Folders) else folders(within):
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def open_fd(path: str | os.PathLike[str], *, dir_fd: int | None = None, follow: bool = False,
            within: Iterable[str | os.PathLike[str]] | None = None) -> int:
    """A read-only descriptor of the regular file at ``path`` (see the module docstring)."""
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(path)
        if within is not None:
            real = fd_path(fd) or os.path.realpath(path)
            if not inside(real, within):
                raise OutsideFolder(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: str | os.PathLike[str], *, dir_fd: int | None = None, follow: bool = False,
              within: Iterable[str | os.PathLike[str]] | None = None) -> BinaryIO:
    """``open_fd`` as a buffered binary file object."""
    return os.fdopen(open_fd(path, dir_fd=dir_fd, follow=follow, within=within), "rb")


def read_bytes(path: str | os.PathLike[str], limit: int | None = None, *, dir_fd: int | None = None,
               follow: bool = False, within: Iterable[str | os.PathLike[str]] | None = None) -> bytes:
    """The file's bytes (at most ``limit`` of them)."""
    with open_file(path, dir_fd=dir_fd, follow=follow, within=within) as fh:
        return fh.read() if limit is None else fh.read(limit)


def open_dir(path: str | os.PathLike[str], *, dir_fd: int | None = None, follow: bool = False) -> int:
    """A descriptor of the folder at ``path`` (to open names in it with ``dir_fd``); its last
    component is not a symlink unless ``follow``."""
    flags = os.O_RDONLY | _DIRECTORY | _CLOEXEC | (0 if follow else _NOFOLLOW)
    return os.open(path, flags, dir_fd=dir_fd)
