"""What a `why` question names: the file (in which working tree and repository), the lines, and
the file's text at the revision asked. Every check a question fails is a typed error here."""

from __future__ import annotations

import os
from collections import namedtuple
from typing import TYPE_CHECKING

from hansard.errors import (
    BadLineRange,
    BinaryFile,
    GitError,
    LineOutOfRange,
    MalformedTarget,
    NotAFile,
    NotARepository,
    NotTracked,
    PathOutsideRepository,
    UnknownRevision,
)
from hansard.git import identity
from hansard.git.blame import Blame, unreadable_side_file

if TYPE_CHECKING:
    from hansard.git.run import Pending
    from hansard.git.serial import Queued

# top: working tree top level; main_top: its main repository (differs for a worktree).
Target = namedtuple("Target", "top main_top rel start end")


def parse_target(spec: str) -> tuple[str, int | None, int | None]:
    """``PATH``, ``PATH:LINE`` or ``PATH:START-END``. The last colon splits, so Windows
    drive letters and colons inside names still work."""
    path, sep, rng = spec.rpartition(":")
    if not sep or not rng or not all(c.isdigit() or c == "-" for c in rng) or not path:
        return spec, None, None
    lo, dash, hi = rng.partition("-")
    try:
        start = int(lo)
        end = int(hi) if dash else start
    except ValueError:
        raise BadLineRange(f"bad line range {rng!r}: use LINE or START-END") from None
    if start < 1 or end < 1:
        raise BadLineRange(f"line numbers start at 1, got {rng!r}")
    if start > end:
        raise BadLineRange(f"START {start} is after END {end}")
    return path, start, end


def resolve_target(path: str, start: int | None, end: int | None, *, cwd: str | None = None,
                   check_exists: bool = True) -> Target:
    p = os.path.abspath(os.path.join(cwd or os.getcwd(), path))
    if os.path.isdir(p):
        raise NotAFile(f"{path} is a directory; give a file")
    tops = identity.find_toplevel(p)
    if tops is None:
        raise NotARepository(f"{path} is not inside a git repository")
    top, main_top = tops
    real_top = os.path.realpath(top)
    rel = identity.relpath_in(real_top, os.path.realpath(p)) or identity.relpath_in(top, p)
    if rel is None:
        raise PathOutsideRepository(f"{path} is outside the repository at {top}")
    if check_exists and not os.path.exists(p):
        head, colon, tail = path.rpartition(":")
        if colon and os.path.isfile(os.path.join(cwd or os.getcwd(), head)):
            raise MalformedTarget(f"{path}: {tail!r} is not a line or a range; give PATH:LINE or PATH:START-END")
        raise NotAFile(f"{path} does not exist")
    return Target(top, main_top, rel, start, end)


def file_text(t: Target, rev: str | None, contents: bytes | None) -> bytes:
    if contents is not None:
        return contents
    if rev:
        from hansard.git.history import file_at
        from hansard.git.run import git

        ahead = file_at(t.top, rev, t.rel)  # a caller asking about many files read them at once
        if ahead is not None:
            return ahead
        try:
            return git(["show", f"{rev}:{t.rel}"], t.top)
        except GitError as exc:
            from hansard.git.refs import resolve_commit

            if resolve_commit(t.top, rev) is None:
                raise UnknownRevision(f"--rev {rev} names no commit of the repository at {t.top}") from exc
            raise NotTracked(f"{t.rel} does not exist at {rev}") from exc
    full = os.path.join(t.top, t.rel)
    if os.path.islink(full):
        # git tracks a symlink as the text of its target, and blames that one line.
        return os.fsencode(os.readlink(full))
    from hansard.files import safeopen

    try:  # opened without blocking, then checked: a FIFO or a device would block or never end
        return safeopen.read_bytes(full, follow=True)
    except safeopen.NotRegularFile:
        raise NotAFile(f"{t.rel} is not a regular file") from None
    except OSError as exc:
        raise NotAFile(f"{t.rel} cannot be read: {exc.strerror}") from None


def check_range(t: Target, data: bytes) -> int:
    if b"\0" in data[:8000]:
        raise BinaryFile(f"{t.rel} is a binary file")
    n = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if t.start is not None and t.start > n:
        raise LineOutOfRange(f"{t.rel} has {n} line{'' if n == 1 else 's'}; line {t.start} is past the end")
    if t.end is not None and t.end > n:
        raise LineOutOfRange(f"{t.rel} has {n} line{'' if n == 1 else 's'}; line {t.end} is past the end")
    return n


def check_git_side_files(top: str) -> None:
    """git blame reads ``.mailmap`` (and hansard passes ``.git-blame-ignore-revs``) from the work
    tree whatever they are: one that is a FIFO or a device would make git wait for ever, so it is
    refused before git runs."""
    name = unreadable_side_file(top)
    if name is not None:
        raise NotAFile(f"{name} in {top} is not a regular file: git would wait on it; remove it or make it a file")


def run_blame(t: Target, rev: str | None, contents: bytes | None) -> Blame:
    return start_blame(t, rev, contents).result()


class Blaming:
    """Blame of a target started (``start_blame``), its answer when asked for."""

    __slots__ = ("pending", "rel", "rev")

    def __init__(self, pending: Pending | Queued, rel: str, rev: str | None) -> None:
        self.pending, self.rel, self.rev = pending, rel, rev

    def process(self) -> Pending | None:
        """The git process blaming, when this process started it alone (not a helper's)."""
        from hansard.git.run import Pending

        return self.pending if isinstance(self.pending, Pending) else None

    def result(self) -> Blame:
        from hansard.git.blame import parse_porcelain

        try:
            return parse_porcelain(self.pending.result())
        except GitError as exc:
            msg = exc.message
            if "no such path" in msg or "no such ref" in msg and self.rev is None:
                raise NotTracked(f"{self.rel} is not tracked by git; commit it first (or pass --contents)") from exc
            raise


def start_blame(t: Target, rev: str | None, contents: bytes | None) -> Blaming:
    """Blame of ``t`` started now, in its own process, beside what the caller does next."""
    from hansard.git.blame import start_blame as start
    from hansard.git.blame import take_ahead

    if t.start is None:  # started by a caller asking about many files, or before the store was brought up to date
        ahead = take_ahead(t.top, rev, t.rel, contents)
        if ahead is not None:
            return Blaming(ahead, t.rel, rev)
    return Blaming(start(t.top, t.rel, rev=rev, start=t.start, end=t.end, contents=contents), t.rel, rev)


def _file_lines(data: bytes) -> list[str]:
    """The file's lines as blame gives them (UTF-8, undecodable bytes kept, no line end)."""
    return [ln.rstrip("\r") for ln in data.decode("utf-8", "surrogateescape").split("\n")]
