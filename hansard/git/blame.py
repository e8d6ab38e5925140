"""``git blame --porcelain`` through the CLI, parsed.

The CLI, not libgit2: it is faster here, it can blame an unsaved
buffer with ``--contents -``, and it honours ``.git-blame-ignore-revs``. ``-w -M -C`` make a
line keep its origin through re-indentation, moves within a file and copies from other files
of the same commit. Uncommitted lines come back with the all-zero commit id.
"""

from __future__ import annotations

import os
from collections import namedtuple
from functools import partial
from typing import TYPE_CHECKING

from hansard.git.ahead import Ahead

if TYPE_CHECKING:
    from hansard.git.run import Pending
    from hansard.git.serial import Queued

ZERO = "0" * 40
_HEX = b"0123456789abcdef"


# Plain slotted classes rather than dataclasses: this module is on the `why` start-up path.


class CommitInfo:
    __slots__ = ("sha", "author", "author_mail", "author_time", "author_tz", "committer_time", "committer_tz",
                 "summary", "boundary", "previous")

    def __init__(self, sha: str) -> None:
        self.sha = sha
        self.author = ""
        self.author_mail = ""
        self.author_time = 0
        self.author_tz = "+0000"
        self.committer_time = 0
        self.committer_tz = "+0000"
        self.summary = ""
        self.boundary = False
        self.previous: tuple[str, str] | None = None  # (parent sha, path there)


# orig_path is the file's path in that commit (renames and copies followed).
BlameLine = namedtuple("BlameLine", "final_line orig_line sha orig_path content")


class Blame:
    __slots__ = ("lines", "commits")

    def __init__(self) -> None:
        self.lines: list[BlameLine] = []
        self.commits: dict[str, CommitInfo] = {}


def blame(top: str, path: str, *, rev: str | None = None, start: int | None = None, end: int | None = None,
          contents: bytes | None = None) -> Blame:
    from hansard.git.run import git  # subprocess: not on the path of a cached `why`

    return parse_porcelain(git(_args(top, path, rev, start, end, contents), top, input=contents))


def start_blame(top: str, path: str, *, rev: str | None = None, start: int | None = None, end: int | None = None,
                contents: bytes | None = None) -> Pending:
    """``blame`` started now: its porcelain is ``.result()`` (``parse_porcelain`` reads it)."""
    from hansard.git.run import start as start_git

    global _STARTED
    _STARTED += 1
    return start_git(_args(top, path, rev, start, end, contents), top, input=contents)


# Blames started ahead of their question: by an answer about many files, the files after the
# one it works on, blamed one after another by one helper process (``blames_ahead``), or by a
# question about one file before the store is brought up to date (``blame_ahead``). Each is
# served once, to a question about the same bytes (``take_ahead``); one nobody took is stopped
# (``drop_ahead``, ``forget_ahead``).
_AHEAD: Ahead[Pending | Queued] = Ahead()
_STARTED = 0  # blames started in this process


def blames_started() -> int:
    """How many blames this process has started: a caller tells whether an answer ran one."""
    return _STARTED


def blame_ahead(top: str, rev: str | None, path: str, contents: bytes | None = None) -> None:
    """Start the whole-file blame of ``path`` at ``rev`` (None: the working tree's file, or
    ``contents`` in its place) now, for ``take_ahead``."""
    _AHEAD.start((top, rev, path), lambda: start_blame(top, path, rev=rev, contents=contents), contents)


def blames_ahead(top: str, pairs: list[tuple[str, str]]) -> int:
    """Start the whole-file blames of ``pairs`` ((revision, path) each) now, for ``take_ahead``:
    one after another by one helper process (``hansard.git.serial``) when one can run them,
    else the first of them alone (``blame_ahead``). How many of ``pairs``, from the first, are
    started (or were already): none where a file blame reads would make git wait."""
    from hansard.git import serial

    if unreadable_side_file(top) is not None:
        return 0  # each question refuses to blame
    todo = [(rev, path) for rev, path in dict.fromkeys(pairs) if (top, rev, path) not in _AHEAD]
    items = [[rev, "--", path] for rev, path in todo]
    if not serial.usable(items) or any(rev.startswith("-") for rev, _ in todo):
        if pairs:
            blame_ahead(top, *pairs[0])
        return min(1, len(pairs))
    global _STARTED
    _STARTED += len(todo)
    try:
        helper = serial.Serial(top, _args(top, "", None, None, None, None)[:-2], items)
    except OSError:  # no folder for its output, no shell: one at a time
        blame_ahead(top, *pairs[0])
        return 1
    for i, (rev, path) in enumerate(todo):
        if not _AHEAD.start((top, rev, path), partial(helper.queued, i)):  # another thread's was started first
            helper.queued(i).stop()
    return len(pairs)


def take_ahead(top: str, rev: str | None, path: str, contents: bytes | None = None) -> Pending | Queued | None:
    """The blame ``blame_ahead`` started for this file at ``rev`` of these ``contents``, once;
    else None (one started for other contents is stopped)."""
    return _AHEAD.take((top, rev, path), contents)


def drop_ahead(top: str, rev: str | None, path: str) -> bool:
    """Stop the blame started ahead for this file if nobody took it: True when there was one."""
    return _AHEAD.drop((top, rev, path))


def forget_ahead() -> None:
    """Stop every blame started ahead that nobody took."""
    _AHEAD.clear()


def unreadable_side_file(top: str) -> str | None:
    """The name of a file blame reads from the work tree (``.mailmap``, ``.git-blame-ignore-revs``)
    that is there but no regular file (a FIFO or a device would make git wait for ever), else None."""
    import stat

    for name in (".mailmap", ".git-blame-ignore-revs"):
        try:
            mode = os.stat(os.path.join(top, name)).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            return name
    return None


def _args(top: str, path: str, rev: str | None, start: int | None, end: int | None, contents: bytes | None
          ) -> list[str]:
    args = ["blame", "--porcelain", "-w", "-M", "-C"]
    ignore = os.path.join(top, ".git-blame-ignore-revs")
    if os.path.isfile(ignore):
        args += ["--ignore-revs-file", ignore]
    if start is not None:
        args += ["-L", f"{start},{end if end is not None else start}"]
    if contents is not None:
        args += ["--contents", "-"]
    if rev:
        args.append(rev)
    args += ["--", path]
    return args


def parse_porcelain(out: bytes) -> Blame:
    result = Blame()
    commits = result.commits
    cur: CommitInfo | None = None
    filename = ""
    # git names a commit's file once, at its first group, unless the commit has lines from more
    # than one path: a later group of the same commit keeps that commit's name, not the name
    # the group before it (another commit's) gave.
    names: dict[str, str] = {}
    pending: tuple[str, int, int] | None = None
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t"):
            if pending is not None:
                sha, orig, final = pending
                result.lines.append(
                    BlameLine(final, orig, sha, filename, raw[1:].decode("utf-8", "surrogateescape").rstrip("\r"))
                )
                pending = None
            continue
        if not raw:
            continue
        if raw[40:41] == b" " and not raw[:40].strip(_HEX):  # "<sha> <orig> <final> [<count>]"
            head = raw[:40].decode()
            parts = raw[41:].split()
            pending = (head, int(parts[0]), int(parts[1]))
            cur = commits.get(head)
            if cur is None:
                cur = commits[head] = CommitInfo(head)
            filename = names.get(head, filename)
            continue
        line = raw.decode("utf-8", "surrogateescape")
        head, _, rest = line.partition(" ")
        if cur is None:
            continue
        if head == "author":
            cur.author = rest
        elif head == "author-mail":
            cur.author_mail = rest.strip("<>")
        elif head == "author-time":
            cur.author_time = int(rest)
        elif head == "author-tz":
            cur.author_tz = rest
        elif head == "committer-time":
            cur.committer_time = int(rest)
        elif head == "committer-tz":
            cur.committer_tz = rest
        elif head == "summary":
            cur.summary = rest
        elif head == "boundary":
            cur.boundary = True
        elif head == "previous":
            sha, _, prev_path = rest.partition(" ")
            cur.previous = (sha, prev_path)
        elif head == "filename":
            filename = names[cur.sha] = rest
    return result
