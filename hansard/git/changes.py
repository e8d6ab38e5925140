"""A change under review: the two commits it lies between and the lines it adds, from one
`git diff`.

Always true: ``Change.base`` and ``Change.head`` are full commit ids (``base`` is None for a
change that starts at a root commit: every line of its files is added); each ``Changed`` file
is one the change adds, modifies, renames or copies (a deletion adds no line), named by its
path at ``head``; its hunks are `git diff -U0 -M`'s, so ``added`` holds exactly the line
numbers at ``head`` the change added, in order, and a rename's unchanged lines are not among
them. Nothing here writes to the repository or its refs, and nothing is fetched.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

How = Literal["range", "commit", "upstream", "default_branch"]

MAX_FILES = 2000  # changed files one review reads; past it the change is refused as too large
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


# NamedTuples and a slotted class, not dataclasses: making a dataclass costs more at import than
# this module's work for a review.
class Hunk(NamedTuple):
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int


class Changed:
    __slots__ = ("path", "old_path", "status", "binary", "hunks")

    def __init__(self, path: str, old_path: str | None = None,
                 status: Literal["added", "modified", "renamed", "copied"] = "modified", binary: bool = False,
                 hunks: list[Hunk] | None = None) -> None:
        self.path, self.old_path, self.status, self.binary = path, old_path, status, binary
        self.hunks: list[Hunk] = [] if hunks is None else hunks

    @property
    def added(self) -> list[int]:
        return [n for h in self.hunks for n in range(h.new_start, h.new_start + h.new_lines)]

    @property
    def removed(self) -> int:
        return sum(h.old_lines for h in self.hunks)


class Change(NamedTuple):
    spec: str  # how the range reads (``A..B``, ``C^..C``, ``origin/main...HEAD``)
    how: How
    base: str | None
    head: str
    commits: int


def resolve(top: str, spec: str | None = None, commit: str | None = None) -> Change:
    """The change asked for: ``commit`` (against its first parent), ``spec`` (``A..B``, or
    ``A...B``: from their merge base; a single revision: that commit), or by default this
    branch against its upstream's merge base, else against the default branch's
    (``origin/HEAD``, then ``main``, ``master``)."""
    name, how, base, head, n = _ends(top, spec, commit)
    return Change(name, how, base, head, n if n is not None else _count(top, base, head))


def changed(top: str, spec: str | None = None, commit: str | None = None) -> tuple[Change, list[Changed]]:
    """``resolve`` and ``changed_files`` of the change: its commits are counted beside the diff."""
    from hansard.git.run import start

    name, how, base, head, n = _ends(top, spec, commit)
    counting = start(_count_args(base, head), top) if n is None else None
    try:
        files = _diff(top, base, head, name)
        if counting is not None:
            got, counting = counting, None
            n = int(got.result().decode().strip() or 0)
    finally:
        if counting is not None:
            counting.stop()
    return Change(name, how, base, head, n or 0), files


def _ends(top: str, spec: str | None, commit: str | None) -> tuple[str, How, str | None, str, int | None]:
    """(spec, how, base, head, its commits when known without counting them) of ``resolve``."""
    from hansard.errors import InvalidArgument, UnknownRevision

    if commit is not None and spec is not None:
        raise InvalidArgument("give a range or --commit, not both")
    if commit is not None or (spec is not None and ".." not in spec):
        one = commit if commit is not None else spec
        sha = _commit(top, one)  # type: ignore[arg-type]
        first = _first_parent(top, sha)
        return f"{one}^..{one}", "commit", first, sha, 1
    if spec is not None:
        a, three, b = spec.partition("...")
        if not three:
            a, _, b = spec.partition("..")
        head = _commit(top, b or "HEAD")
        start: str | None = _commit(top, a or "HEAD")
        if three:
            start = _merge_base(top, start, head)  # type: ignore[arg-type]
            if start is None:
                raise UnknownRevision(f"{spec}: the two revisions share no history")
        return spec, "range", start, head, None
    head = _commit(top, "HEAD")
    upstream = _upstream(top)
    if upstream is not None:
        fork = _merge_base(top, upstream[1], head)
        if fork is not None:
            return f"{upstream[0]}...HEAD", "upstream", fork, head, None
    for name in _default_branches(top):
        tip = _resolve(top, name)
        fork = _merge_base(top, tip, head) if tip is not None else None
        if fork is not None:
            return f"{name}...HEAD", "default_branch", fork, head, None
    raise InvalidArgument("this branch has no upstream and no default branch was found: give a range (A..B) or "
                          "--commit C")


def changed_files(top: str, change: Change) -> list[Changed]:
    """The files the change adds lines to, in path order, from one `git diff -U0 -M`."""
    return _diff(top, change.base, change.head, change.spec)


def _diff(top: str, base: str | None, head: str, spec: str) -> list[Changed]:
    from hansard.errors import InputTooLarge
    from hansard.git.run import git

    out = git(["diff", "-U0", "-M", "--no-ext-diff", "--no-textconv", "--diff-filter=AMRC",
               base or _EMPTY_TREE, head, "--"], top)
    files = parse_diff(out)
    if len(files) > MAX_FILES:
        raise InputTooLarge(f"{spec} changes more than {MAX_FILES} files; review a narrower range",
                            bound="MAX_FILES", limit=MAX_FILES)
    return sorted(files, key=lambda f: f.path)


def parse_diff(out: bytes) -> list[Changed]:
    """`git diff -U0 -M`'s files with their hunks (a binary file: none, ``binary`` set)."""
    files: list[Changed] = []
    cur: Changed | None = None
    for line in out.split(b"\n"):
        if line.startswith(b"diff --git "):
            cur = Changed(path="")
            files.append(cur)
        elif cur is None:
            continue
        elif line.startswith(b"@@"):
            m = _HUNK.match(line)
            if m:
                cur.hunks.append(Hunk(int(m[1]), int(m[2]) if m[2] is not None else 1,
                                      int(m[3]), int(m[4]) if m[4] is not None else 1))
        elif line.startswith((b"+", b"-", b" ", b"\\")) and cur.hunks:
            continue  # a hunk's own lines
        elif line.startswith(b"new file mode"):
            cur.status = "added"
        elif line.startswith(b"rename from ") or line.startswith(b"copy from "):
            cur.status = "renamed" if line.startswith(b"rename") else "copied"
            cur.old_path = _path(line.split(b" from ", 1)[1])
        elif line.startswith((b"rename to ", b"copy to ")):
            cur.path = _path(line.split(b" to ", 1)[1])
        elif line.startswith(b"+++ ") and line != b"+++ /dev/null":
            cur.path = _path(line[4:], prefix=True)
        elif line.startswith(b"Binary files "):
            cur.binary = True
            m2 = re.search(rb" and (.+) differ$", line)
            if m2 and m2[1] != b"/dev/null" and not cur.path:
                cur.path = _path(m2[1], prefix=True)
    return [f for f in files if f.path]


def _path(raw: bytes, *, prefix: bool = False) -> str:
    """A path as git prints it in a diff's header: C-quoted when it holds a special byte."""
    if raw.startswith(b'"') and raw.endswith(b'"'):
        raw = _unquote(raw[1:-1])
    if prefix and raw[:2] in (b"a/", b"b/"):
        raw = raw[2:]
    return raw.decode("utf-8", "surrogateescape")


def _unquote(raw: bytes) -> bytes:
    out = bytearray()
    i = 0
    simple = {ord("n"): 10, ord("t"): 9, ord('"'): 34, ord("\\"): 92, ord("a"): 7, ord("b"): 8, ord("f"): 12,
              ord("r"): 13, ord("v"): 11}
    while i < len(raw):
        c = raw[i]
        if c == 92 and i + 1 < len(raw):
            nxt = raw[i + 1]
            if 48 <= nxt <= 55 and i + 3 < len(raw):
                out.append(int(raw[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(simple.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def _resolve(top: str, rev: str) -> str | None:
    from hansard.git.refs import resolve_commit

    return resolve_commit(top, rev)


def _commit(top: str, rev: str) -> str:
    from hansard.errors import UnknownRevision

    if rev.startswith("-"):
        raise UnknownRevision(f"not a revision of this repository: {rev}")
    sha = _resolve(top, rev)
    if sha is None:
        raise UnknownRevision(f"not a revision of this repository: {rev}")
    return sha


def _first_parent(top: str, sha: str) -> str | None:
    from hansard.git.run import git_text

    parents = git_text(["rev-list", "--parents", "-n", "1", sha, "--"], top).split()[1:]
    return parents[0] if parents else None


def _merge_base(top: str, a: str, b: str) -> str | None:
    from hansard.git.run import git_text

    return git_text(["merge-base", a, b], top, check=False).strip() or None


def _count(top: str, base: str | None, head: str) -> int:
    from hansard.git.run import git_text

    return int(git_text(_count_args(base, head), top).strip() or 0)


def _count_args(base: str | None, head: str) -> list[str]:
    return ["rev-list", "--count", f"{base}..{head}" if base else head, "--"]


def _upstream(top: str) -> tuple[str, str] | None:
    """(the upstream's name, its commit) of the checked-out branch, if it has one."""
    from hansard.git.run import git_text

    name = git_text(["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], top, check=False).strip()
    if not name or name.startswith("@"):
        return None
    sha = _resolve(top, name)
    return (name, sha) if sha else None


def _default_branches(top: str) -> list[str]:
    """The names the default branch may go by here, most likely first, leaving out the branch
    checked out (a branch against itself is no change)."""
    from hansard.git.run import git_text

    names = []
    origin = git_text(["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], top, check=False).strip()
    if origin:
        names.append(origin)
    current = git_text(["symbolic-ref", "--quiet", "--short", "HEAD"], top, check=False).strip()
    names += [n for n in ("origin/main", "origin/master", "main", "master") if n != current]
    return list(dict.fromkeys(names))
