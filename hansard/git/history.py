"""Per-file history facts from git: a file's log (renames followed, from which its names come)
and what one commit changed in one file, a pure function of commit ids, so it is cached."""

from __future__ import annotations

import os
import re
import threading
from collections import namedtuple
from functools import lru_cache, partial
from typing import TYPE_CHECKING

from hansard.errors import GitError
from hansard.git.ahead import Ahead
from hansard.git.run import DEADLINE, Pending, git, git_text
from hansard.text.diffs import parse_unified_diff

if TYPE_CHECKING:
    from hansard.git.objects import CatFile

# old_path: str | None; new_path: str; hunks: tuple[Hunk, ...]
FileDiff = namedtuple("FileDiff", "old_path new_path hunks")


@lru_cache(maxsize=256)
def commit_file_diff(top: str, sha: str, path: str) -> FileDiff | None:
    """What commit ``sha`` changed in ``path`` (as named in that commit), against its first
    parent, zero context lines, renames followed: no hunks when it did not change the file
    (blame -C can name such a commit and path as a line's origin); None when git cannot say."""
    try:
        out = git_text(
            ["show", "--format=", "-M", "-U0", "--no-ext-diff", "--no-color", "--first-parent", "--diff-merges=first-parent",
             sha, "--", path], top,
        )
    except GitError:
        return None
    if not out.strip():
        # A rename: the path filter hides the old name, so ask for the whole commit.
        try:
            out = git_text(["show", "--format=", "-M", "-U0", "--no-ext-diff", "--no-color", "--diff-merges=first-parent",
                            sha], top)
        except GitError:
            return None
        section = _section_for(out, path)
        if section is None:
            return FileDiff(None, path, ())
        out = section
    old_path = None
    for line in out.splitlines():
        if line.startswith("rename from "):
            old_path = line[len("rename from "):]
        elif line.startswith("--- a/") and old_path is None:
            old_path = line[len("--- a/"):]
    _, _, hunks = parse_unified_diff(out)
    return FileDiff(old_path, path, hunks)


def _section_for(out: str, path: str) -> str | None:
    sections = out.split("\ndiff --git ")
    for i, sec in enumerate(sections):
        sec = sec if i == 0 else "diff --git " + sec
        first = sec.splitlines()[0] if sec else ""
        if first.endswith(" b/" + path):
            return sec
    return None


def batch_objects(top: str, revs: list[str]) -> list[tuple[str, str, bytes, bytes]]:
    """(rev, object id, type, content) of each rev git has an object for, in one `git cat-file
    --batch` process (the reader ``hold_reader`` keeps, where one is kept); a missing or
    ambiguous rev (or one holding a newline) is left out."""
    todo = _batch_revs(revs)
    reader = _reader(top) if todo else None
    if reader is not None:
        try:
            got = reader.read_many(todo)
        except GitError:  # it stopped: this question and the next ones start their own
            _drop_reader(top)
        else:
            return [(rev, *g) for rev, g in zip(todo, got, strict=True) if g is not None]
    return BatchRead(top, todo).result()


class BatchRead:
    """``batch_objects`` started now, in its own process beside the caller's work: its answer
    is ``result()`` (asked once), or it is stopped unread (``stop``). Where ``hold_reader``
    keeps a reader, nothing starts: the kept reader answers when the result is asked."""

    __slots__ = ("top", "revs", "pending", "held")

    def __init__(self, top: str, revs: list[str]) -> None:
        self.top = top
        self.revs = _batch_revs(revs)
        self.held = bool(self.revs) and _reader(top) is not None
        self.pending = Pending(["cat-file", "--batch"], top, input=("\n".join(self.revs) + "\n").encode(),
                               timeout=300) if self.revs and not self.held else None

    def result(self) -> list[tuple[str, str, bytes, bytes]]:
        if self.held:
            self.held = False
            return batch_objects(self.top, self.revs)
        if self.pending is None:
            return []
        pending, self.pending = self.pending, None
        return _batch_read(self.revs, pending.result(check=False))

    def done(self) -> bool:
        """git has given its answer, or gives it without waiting (``result`` waits no more)."""
        return self.pending is None or self.pending.done()

    def stop(self) -> None:
        self.held = False
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending.stop()


# While the files of a repository are answered in turn (``hold_reader``): one `git cat-file
# --batch` process per repository answers every ``batch_objects`` question of the thread and
# process that opened it, not a process per question. A process forked from the one that
# opened it shares its pipes, so it never uses the parent's: it opens its own.
_READERS: dict[str, tuple[int, int, CatFile]] = {}  # top -> (process id, thread id, reader)


def hold_reader(top: str) -> None:
    """Questions about ``top``'s objects go to one kept reader from now on, until ``release_readers``."""
    if top not in _READERS or _READERS[top][0] != os.getpid():
        from hansard.git.objects import CatFile

        _READERS.pop(top, None)  # a parent's: never read here, never closed here
        try:
            _READERS[top] = (os.getpid(), threading.get_ident(), CatFile(top))
        except GitError:
            pass


def _forked() -> None:
    """In a forked process: the parent's readers' pipes closed here (their process waits for the
    end of its input, which a child holding the pipe would put off), never read nor stopped."""
    for _, _, reader in _READERS.values():
        for pipe in (reader.proc.stdin, reader.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
    _READERS.clear()
    _forget_logs()


def _forget_logs() -> None:
    _LOGS_READ.clear()
    _LOGS_READ_BYTES[0] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def release_readers() -> None:
    """Stop every reader ``hold_reader`` kept in this process."""
    readers = list(_READERS.items())
    _READERS.clear()
    _forget_logs()
    for _, (pid, _, reader) in readers:
        if pid == os.getpid():
            reader.close()


def _reader(top: str) -> CatFile | None:
    """The reader kept for ``top`` that this thread may ask now, else None (none kept, another
    process's or thread's, or a question under a deadline, which a kept reader does not keep)."""
    got = _READERS.get(top) if _READERS else None
    if got is None or DEADLINE.get() is not None:
        return None
    pid, thread, reader = got
    return reader if pid == os.getpid() and thread == threading.get_ident() else None


def _drop_reader(top: str) -> None:
    got = _READERS.pop(top, None)
    if got is not None and got[0] == os.getpid():
        got[2].close()


def _batch_revs(revs: list[str]) -> list[str]:
    return [r for r in dict.fromkeys(revs) if r and "\n" not in r]


def _batch_read(revs: list[str], data: bytes) -> list[tuple[str, str, bytes, bytes]]:
    from hansard.git.objects import header_fields

    out: list[tuple[str, str, bytes, bytes]] = []
    pos = 0
    for rev in revs:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        header = header_fields(data[pos:nl])
        pos = nl + 1
        if header is None:
            continue
        size = int(header[2])
        out.append((rev, header[0].decode(), header[1], data[pos:pos + size]))
        pos += size + 1
    return out


# What the answers of many files at one commit ask git of each file, read ahead for them all at
# once (``read_ahead``): the file's bytes (one `git cat-file --batch` instead of a `git show`
# each) and, where one walk of the history gives exactly what the file's own `git log --follow`
# would, its log (``_logs_ahead``). A commit's files and history never change, so each is served
# once (``file_at``, ``log_at``) as git gives it alone, then dropped.
_AHEAD: dict[tuple[str, str, str], bytes] = {}
_LOGS: dict[tuple[str, str, str], str] = {}
_LOGS_TO_READ: dict[tuple[str, str], list[str]] = {}  # read when the first of them is asked (a kept answer asks none)
_MERGES: Ahead[Pending] = Ahead()  # whether a commit's history has a merge, asked ahead of its logs
AHEAD_BYTES = 64 << 20  # held at once; a file past it is read when asked, as if never read ahead
_ROUND = [0]  # read_ahead calls so far: what ``held`` holds changes only with it
# A path that git's pathspec or its raw listing reads otherwise than as itself is left to its own log.
_PLAIN_PATH = re.compile(r'[^*?\[\]\\"\t\n:!]+')


def read_ahead(top: str, pairs: list[tuple[str, str]], *, logs_now: bool = False, logs_soon: bool = False) -> None:
    """Read each (commit, path) of ``pairs`` (a commit named by its full id) now, for ``file_at``
    and ``log_at``: the files at once, each commit's logs when the first of its files asks for
    its log (``logs_now``: now, for processes forked next; ``logs_soon``: their files will ask,
    so whether the history has a merge is asked beside the files' reading); what an earlier
    call read and nobody asked for is dropped."""
    _AHEAD.clear()
    _LOGS.clear()
    _LOGS_TO_READ.clear()
    _MERGES.clear()
    _ROUND[0] += 1
    pairs = [(c, p) for c, p in pairs if _FULL_ID.fullmatch(c)]
    if logs_soon:  # for the commits whose logs one walk may read (``_logs_ahead``)
        plain: dict[str, set[str]] = {}
        for c, p in pairs:
            if _PLAIN_PATH.fullmatch(p):
                plain.setdefault(c, set()).add(p)
        for c, names in plain.items():
            if len(names) >= 2:
                _MERGES.start((top, c), partial(Pending, _merges_args(c), top))
    held = 0
    for rev, _, kind, body in batch_objects(top, [f"{c}:{p}" for c, p in pairs]):
        if kind == b"blob" and held + len(body) <= AHEAD_BYTES:
            _AHEAD[(top, rev[:40], rev[41:])] = body
            held += len(body)
    for c, p in pairs:
        _LOGS_TO_READ.setdefault((top, c), []).append(p)
    if logs_now:
        for (_, commit), paths in list(_LOGS_TO_READ.items()):
            log_at(top, commit, paths[0], keep=True)


def held(top: str) -> tuple[int, list[bytes]]:
    """(the read-ahead round, the bytes of the files of ``top`` read ahead and not asked for
    yet): what the questions to come will ask about."""
    return _ROUND[0], [body for (t, _, _), body in _AHEAD.items() if t == top]


def file_at(top: str, commit: str, path: str) -> bytes | None:
    """The bytes of ``path`` at ``commit`` when ``read_ahead`` read them (once), else None."""
    return _AHEAD.pop((top, commit, path), None) if _AHEAD else None


def log_at(top: str, commit: str, path: str, *, keep: bool = False) -> str | None:
    """``file_log(top, path, commit)`` when ``read_ahead`` found it (once; ``keep``: left for
    its file to take), else None."""
    paths = _LOGS_TO_READ.get((top, commit))
    if paths is not None and path in paths:
        del _LOGS_TO_READ[(top, commit)]
        try:
            _LOGS.update(((top, commit, p), text) for p, text in _logs_ahead(top, commit, paths).items())
        except GitError:
            pass  # each file asks for its own
    if keep:
        return _LOGS.get((top, commit, path))
    return _LOGS.pop((top, commit, path), None) if _LOGS else None


def _logs_ahead(top: str, commit: str, paths: list[str]) -> dict[str, str]:
    """path -> the text ``file_log`` gives for it at ``commit``, for the paths whose log one
    path-limited walk of the history gives as it is: in a history with no merge (each file's
    own walk would simplify merges its own way), a file whose every commit modified it, but the
    root commit that added it (`--follow` looks for where a file added later came from, which a
    walk of many paths does not). The other paths are left out: each asks git for its own."""
    plain = sorted({p for p in paths if _PLAIN_PATH.fullmatch(p)})
    if len(plain) < 2:
        _MERGES.drop((top, commit))
        return {}
    merges = _MERGES.take((top, commit))
    if (merges.result() if merges is not None else git(_merges_args(commit), top)).strip():
        return {}
    args = _file_log_args("", commit, False)
    args.remove("--follow")
    out = git_text([*args[:-1], *plain], top, timeout=600)
    records: dict[str, list[tuple[str, str, str]]] = {}  # path -> (header, raw line, its status), newest first
    for block in out.split("\x00")[1:]:
        head, _, raw = block.partition("\n\n")
        root = head.split("\x1f", 2)[1] == ""
        for line in raw.splitlines():
            meta, tab, names = line.partition("\t")
            if not line.startswith(":") or not tab:
                continue
            status = meta.split()[-1]
            if status == "A" and root:
                status = "root"
            for name in names.split("\t"):  # both names of a rename: neither is plain
                records.setdefault(name, []).append((head, line, status if "\t" not in names else "R"))
    found = {}
    for p in plain:
        recs = records.get(p)
        if recs and recs[-1][2] == "root" and all(st == "M" for _, _, st in recs[:-1]):
            found[p] = "".join(f"\x00{head}\n\n{line}\n" for head, line, _ in recs)
    return found


def _merges_args(commit: str) -> list[str]:
    return ["rev-list", "--merges", "-n", "1", commit, "--"]


def read_blobs(top: str, blob_ids: list[str]) -> dict[str, bytes]:
    """Many blobs in one `git cat-file --batch` process instead of one `git show` each. A
    blob git does not have is left out."""
    return {rev: body for rev, _, _, body in batch_objects(top, blob_ids)}


def file_log(top: str, path: str, rev: str = "HEAD", *, patches: bool = False) -> str:
    """`git log --follow` of one file, one record per commit starting with NUL: header fields
    separated by US (the agent trailers, as git's own parser reads them, just before the
    summary), then `--raw` lines (blob ids, status, names) and, with ``patches``, the
    zero-context diff."""
    key = _log_key(top, path, rev, patches)
    out = _LOGS_READ.get(key) if key is not None else None
    if out is None:
        out = git(_file_log_args(path, rev, patches), top)
        if key is not None:
            _keep_log(key, out)
    return out.decode("utf-8", "surrogateescape")


def start_file_log(top: str, path: str, rev: str = "HEAD") -> Pending:
    """``file_log`` started now, in its own process: its text is ``.result()`` decoded."""
    key = _log_key(top, path, rev, False)
    if key is None:
        return Pending(_file_log_args(path, rev, False), top)
    out = _LOGS_READ.get(key)
    return _LogKept(key, top) if out is None else _LogRead(out)


# While a repository's files are answered together (``hold_reader``): each file log read at a
# full commit id, kept for the next question about the same file there (a copied file's answer
# reads its source's log, which that file's own answer reads too). A commit's history never
# changes, so the kept text is what git would print again.
_LOGS_READ: dict[tuple[str, str, str, bool], bytes] = {}
_LOGS_READ_BYTES = [0]
LOGS_KEPT_BYTES = 64 << 20  # past it, logs are read each time as outside a window


def _log_key(top: str, path: str, rev: str, patches: bool) -> tuple[str, str, str, bool] | None:
    return (top, rev, path, patches) if top in _READERS and _FULL_ID.fullmatch(rev) else None


def _keep_log(key: tuple[str, str, str, bool], out: bytes) -> None:
    if _LOGS_READ_BYTES[0] + len(out) <= LOGS_KEPT_BYTES:
        _LOGS_READ[key] = out
        _LOGS_READ_BYTES[0] += len(out)


class _LogKept(Pending):
    """A file's log started while files are answered together: its output, once git printed it
    whole and exited well, is kept for the next question about that file at that commit."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[str, str, str, bool], top: str) -> None:
        super().__init__(_file_log_args(key[2], key[1], key[3]), top)
        self.key = key

    def result(self, *, check: bool = True) -> bytes:
        out = super().result(check=check)
        if self.proc.returncode == 0:
            _keep_log(self.key, out)
        return out


class _LogRead(Pending):
    """A file's log kept from an earlier question (``_LogKept``): its output, and no process."""

    __slots__ = ("kept",)

    def __init__(self, out: bytes) -> None:  # nothing started: no process, no files
        self.kept = out

    def result(self, *, check: bool = True) -> bytes:
        return self.kept

    def stop(self) -> None:
        pass


# Files' logs started ahead of their question (``log_ahead``: before the store is brought up to
# date for it), each taken once by the history that asks (``take_log_ahead``), or stopped.
_LOG_AHEAD: Ahead[Pending] = Ahead()


def log_ahead(top: str, path: str, rev: str = "HEAD") -> None:
    """``start_file_log`` now, for ``take_log_ahead``."""
    _LOG_AHEAD.start((top, rev, path), lambda: start_file_log(top, path, rev))


def take_log_ahead(top: str, path: str, rev: str = "HEAD") -> Pending | None:
    """The log ``log_ahead`` started for this file at ``rev``, once; else None."""
    return _LOG_AHEAD.take((top, rev, path))


def drop_log_ahead(top: str, path: str, rev: str = "HEAD") -> None:
    """Stop the log started ahead for this file if nobody took it."""
    _LOG_AHEAD.drop((top, rev, path))


def _file_log_args(path: str, rev: str, patches: bool) -> list[str]:
    args = ["log", "--follow", "-M", "--raw", "--no-abbrev", f"--format=%x00%H%x1f%P%x1f%ct%x1f%an%x1f{AGENT_TRAILERS}%x1f%s"]
    if patches:
        args += ["-p", "-U0", "--no-ext-diff"]
    return [*args, rev, "--", path]


# The trailers that may name a coding agent (hansard.agents.trailers), as git's own trailer
# parser gives them: ``Key: value`` pairs of one commit on one line, separated by RS (keys are
# matched in any case). Part of every `git log` that lists commits for the tie rules or a file.
AGENT_TRAILERS = "%(trailers:key=Claude-Session,key=Co-authored-by,unfold,separator=%x1e)"


# One commit of a file's history: the file's name in it (and before it, for a rename or a copy),
# its blob after it (None: deleted), parents and committer time; ``trailers``: its agent trailers
# (``AGENT_TRAILERS``), empty when it has none or they were not read; ``copied``: the commit
# made the file as a copy of ``old_path``, which lives on as another file (`--follow` goes on
# into the copy's source).
LogEntry = namedtuple("LogEntry", "sha path old_path blob parents committer_time author summary trailers copied",
                      defaults=("", False))


def raw_files(raw: str) -> list[tuple[str | None, str, str | None]]:
    """(old name or None, name, blob after or None for a deletion) of each `--raw` line of one
    log record."""
    files: list[tuple[str | None, str, str | None]] = []
    for line in raw.splitlines():
        if line.startswith(":"):
            meta, _, names = line.partition("\t")
            fields = meta.split()
            parts = names.split("\t")
            files.append((parts[0] if len(parts) > 1 else None, parts[-1],
                          None if fields[3].strip("0") == "" else fields[3]))
    return files


def parse_file_log(out: str, path: str) -> list[tuple[LogEntry, str]]:
    """(entry, its patch text, empty without ``patches``) for each record of ``file_log``,
    newest first."""
    entries: list[tuple[LogEntry, str]] = []
    for block in out.split("\x00")[1:]:
        head, _, rest = block.partition("\n")
        sha, parents, ct, author, trailers, summary = (head.split("\x1f", 5) + [""] * 6)[:6]
        patch_at = rest.find("\ndiff --git ")
        raw, patch = (rest, "") if patch_at < 0 else (rest[:patch_at], rest[patch_at + 1:])
        files = raw_files(raw)
        old, name, blob = files[-1] if files else (None, path, None)
        copied = old is not None and any(ln.startswith(":") and ln.partition("\t")[0].split()[-1][:1] == "C"
                                         for ln in raw.splitlines())
        entries.append((LogEntry(sha, name, old, blob, parents.split(), int(ct or 0), author, summary, trailers,
                                 copied), patch))
    return entries


# A commit as the tie rules need it: id, author and committer times, summary.
CommitMeta = namedtuple("CommitMeta", "sha author_time committer_time summary")


# A line naming an Entire checkpoint: the commit's own trailer, or one of the squashed commits'
# trailers that a squash merge copies into its body (``* subject`` paragraphs, each with its own).
CHECKPOINT_LINE = re.compile(rb"^[ \t]*Entire-Checkpoint:[ \t]*([0-9a-f]{12})[ \t]*\r?$", re.M)


def checkpoint_ids(message: bytes) -> list[str]:
    """The Entire checkpoint ids a commit message names (``Entire-Checkpoint:`` lines anywhere
    in it), in order, once each."""
    if b"Entire-Checkpoint" not in message:
        return []
    return list(dict.fromkeys(m.decode() for m in CHECKPOINT_LINE.findall(message)))


# `commit_log`'s records, each after a NUL: the id, author and committer times, agent trailers,
# summary and whole message, separated by US.
_COMMIT_FIELDS = f"%H%x1f%at%x1f%ct%x1f{AGENT_TRAILERS}%x1f%s%x1f%B"


def commit_log(top: str, rev: str = "HEAD", trailers: dict[str, str] | None = None
               ) -> tuple[list[CommitMeta], dict[str, list[str]]]:
    """Every commit in the history of ``rev``, newest first, and, from the same `git log`,
    commit -> the Entire checkpoint ids its message names (``checkpoint_ids``). Given
    ``trailers``, it is filled with commit -> its agent trailers (``AGENT_TRAILERS``, read by git's own
    parser) for the commits that have some."""
    out = git(["log", f"--format=%x00{_COMMIT_FIELDS}", rev, "--"], top)
    return _parse_commit_log(out, trailers)


def commits_between(top: str, old: str, new: str, trailers: dict[str, str] | None = None
                    ) -> tuple[set[str], list[CommitMeta], dict[str, list[str]]] | None:
    """From ``old``'s history to ``new``'s: (the commits ``old``'s has and ``new``'s lacks,
    ``commit_log`` of those ``new``'s has and ``old``'s lacks), from one `git log` of the
    commits either lacks (``old...new``): ``new``'s history is ``old``'s without the first and
    with the second. None when git cannot say (``old`` is gone)."""
    try:
        out = git(["log", "--left-right", f"--format=%x00%m{_COMMIT_FIELDS}", f"{old}...{new}", "--"], top)
    except GitError:
        return None
    left: set[str] = set()
    right = []
    for rec in out.split(b"\0")[1:]:
        if rec[:1] == b"<":
            left.add(rec[1:].split(b"\x1f", 1)[0].decode())
        else:
            right.append(b"\0" + rec[1:])
    commits, checkpoints = _parse_commit_log(b"".join(right), trailers)
    return left, commits, checkpoints


def _parse_commit_log(out: bytes, trailers: dict[str, str] | None
                      ) -> tuple[list[CommitMeta], dict[str, list[str]]]:
    """(commits, checkpoints) of a `git log` in ``commit_log``'s format."""
    commits = []
    checkpoints: dict[str, list[str]] = {}
    for rec in out.split(b"\0")[1:]:
        sha, at, ct, tr, summary, body = (rec.split(b"\x1f", 5) + [b""] * 6)[:6]
        s = sha.decode()
        if tr and trailers is not None:
            trailers[s] = tr.decode("utf-8", "replace")
        commits.append(CommitMeta(s, int(at or 0), int(ct or 0), summary.decode("utf-8", "replace")))
        ids = checkpoint_ids(body)
        if ids:
            checkpoints[s] = ids
    return commits, checkpoints


def commit_checkpoints(top: str, shas: list[str]) -> dict[str, list[str]]:
    """commit -> the Entire checkpoint ids its message names, for ``shas``, read in one
    `git cat-file --batch` process."""
    out: dict[str, list[str]] = {}
    for sha, _, kind, data in batch_objects(top, shas):
        ids = checkpoint_ids(data.partition(b"\n\n")[2]) if kind == b"commit" else []
        if ids:
            out[sha] = ids
    return out


def read_commits(top: str, revs: list[str]) -> dict[str, CommitMeta]:
    """rev -> the commit it names, for the revs (full or short ids) that name a commit git
    has, read in one `git cat-file --batch` process. A missing, ambiguous or non-commit rev
    is left out."""
    return commits_in(batch_objects(top, revs))


def commits_in(got: list[tuple[str, str, bytes, bytes]]) -> dict[str, CommitMeta]:
    """rev -> the commit it names, of what ``batch_objects`` (or a ``BatchRead``) read."""
    return {rev: _commit_meta(oid, body) for rev, oid, kind, body in got if kind == b"commit"}


def _commit_meta(sha: str, body: bytes) -> CommitMeta:
    head, _, message = body.partition(b"\n\n")
    at = ct = 0
    for line in head.split(b"\n"):
        if line.startswith(b"author "):
            at = _stamp(line)
        elif line.startswith(b"committer "):
            ct = _stamp(line)
    summary = message.decode("utf-8", "replace").strip().split("\n\n")[0].replace("\n", " ").strip()
    return CommitMeta(sha, at, ct, summary)


def _stamp(line: bytes) -> int:
    """The seconds of an ``author``/``committer`` header line (``Name <mail> 1700000000 +0000``)."""
    parts = line.rsplit(b" ", 2)
    try:
        return int(parts[-2])
    except (ValueError, IndexError):
        return 0


def patch_ids(top: str, shas: list[str]) -> dict[str, str]:
    """Full commit id -> `git patch-id --stable` of that commit's change against its first
    parent: one `git diff-tree --stdin` of them all, piped to one `git patch-id`. A commit
    with no change (or a merge) has none."""
    shas = list(dict.fromkeys(shas))
    if not shas:
        return {}
    shown = git(["diff-tree", "--stdin", "-p", "--no-color", "--no-ext-diff", "--root"], top,
                input=("\n".join(shas) + "\n").encode(), check=False, timeout=300)
    out: dict[str, str] = {}
    wanted = set(shas)
    for line in git_text(["patch-id", "--stable"], top, input=shown, check=False).splitlines():
        pid, _, sha = line.partition(" ")
        if sha in wanted:
            out[sha] = pid
    return out


def repo_diffs(top: str, revs: list[str]) -> list[tuple[str, str, str | None, str]]:
    """(commit, path, old path or None, the path's zero-context patch) of every file each
    commit of ``revs`` (a `git log` range) changed against its parent, renames followed, in one
    `git log -p`. Merges are left out (their change has no single parent); so is a commit whose
    raw listing and patches do not pair up one to one (a name git had to quote)."""
    out = git_text(["log", "-p", "-U0", "-M", "--raw", "--no-abbrev", "--no-ext-diff", "--no-merges",
                    "--format=%x00%H", *revs, "--"], top, timeout=600)
    rows: list[tuple[str, str, str | None, str]] = []
    for block in out.split("\x00")[1:]:
        sha, _, rest = block.partition("\n")
        patch_at = rest.find("diff --git ")
        raw, patch = (rest, "") if patch_at < 0 else (rest[:patch_at], rest[patch_at:])
        names = [(name, old) for old, name, _ in raw_files(raw)]
        sections = patch.split("\ndiff --git ") if patch else []
        if len(sections) != len(names) or any('"' in n for n, _ in names):
            continue
        for (name, old), section in zip(names, sections, strict=True):
            rows.append((sha.strip(), name, old, section))
    return rows


def repo_log(top: str, rev: str = "HEAD") -> list[tuple[LogEntry, list[tuple[str | None, str, str | None]]]]:
    """Every commit of ``rev``'s history, newest first, with the files it changed against its
    first parent as (old name or None, name, blob after or None for a deletion), renames found,
    from one `git log --raw` (merges list no files)."""
    out = git_text(["log", "-M", "--raw", "--no-abbrev", "--format=%x00%H%x1f%P%x1f%ct%x1f%an%x1f%s", rev, "--"],
                   top, timeout=600)
    commits: list[tuple[LogEntry, list[tuple[str | None, str, str | None]]]] = []
    for block in out.split("\x00")[1:]:
        head, _, raw = block.partition("\n")
        sha, parents, ct, author, summary = (head.split("\x1f", 4) + [""] * 5)[:5]  # (no trailers read here)
        commits.append((LogEntry(sha, None, None, None, parents.split(), int(ct or 0), author, summary),
                        raw_files(raw)))
    return commits


def tree_files(top: str, rev: str, paths: list[str] | None = None) -> list[tuple[str, str, int, str]]:
    """(mode, blob id, size in bytes, repository-relative path) of every file in ``rev``'s tree
    (under ``paths`` when given), from one `git ls-tree`. A submodule's size is -1."""
    out = git(["ls-tree", "-r", "-l", "-z", "--full-tree", rev, "--", *(f":(literal){p}" for p in paths or [])], top)
    files = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, _, name = rec.partition(b"\t")
        mode, _kind, blob, size = meta.split()
        files.append((mode.decode(), blob.decode(), int(size) if size != b"-" else -1,
                      name.decode("utf-8", "surrogateescape")))
    return files


# A commit's deletions are a function of its id alone: kept per repository, so the answers of
# many files whose lines share commits (a review, `stats`) ask git once per commit, not per file.
_DELETED: dict[tuple[str, str], frozenset[str]] = {}
_DELETED_KEPT = 8192
_FULL_ID = re.compile(r"[0-9a-f]{40}")
_DELETED_AHEAD: dict[str, str | Pending] = {}  # top -> the commits the next question asks too (or their listing)
DELETED_AHEAD_COMMITS = 500
DELETIONS_READ_COMMITS = 5000  # a longer history's commits are asked as their files need them


def deleted_files(top: str, shas: list[str]) -> dict[str, set[str]]:
    """The paths each commit deleted against its first parent that git's rename detection
    pairs with no new path, from one `git diff-tree --stdin` of the commits not asked before (a
    root commit or a merge lists none; a name git had to quote is left out)."""
    if not shas:
        return {}
    found: dict[str, set[str]] = {x: set(_DELETED[(top, x)]) for x in shas if (top, x) in _DELETED}
    todo = [x for x in dict.fromkeys(shas) if x not in found]
    if not todo:
        return found
    also = _DELETED_AHEAD.pop(top, None)
    if also is not None:  # the commits of a change many answers are about, asked with the first
        try:
            ids = (also.result().decode() if isinstance(also, Pending) else git_text(_listing(also), top)).split()
        except GitError:
            ids = []
        todo += [x for x in ids if (top, x) not in _DELETED and x not in todo]
    asked = _deletions(top, todo)
    if asked is None:
        return {}
    return found | {x: set(asked[x]) for x in shas if x in asked}


_DELETIONS_ARGS = ["diff-tree", "--stdin", "-r", "-M", "--name-status", "--diff-filter=D"]


def start_deletions(top: str, shas: list[str]) -> tuple[list[str], Pending] | None:
    """``deleted_files`` of these commits (those not known yet, full ids) asked of git now,
    beside the caller's work; ``take_deletions`` keeps git's answer for the questions to come.
    None when nothing is to ask."""
    todo = [x for x in dict.fromkeys(shas) if _FULL_ID.fullmatch(x) and (top, x) not in _DELETED]
    if not todo:
        return None
    try:
        return todo, Pending(_DELETIONS_ARGS, top, input="\n".join(todo).encode() + b"\n")
    except GitError:
        return None


def take_deletions(top: str, started: tuple[list[str], Pending] | None) -> None:
    """What ``start_deletions`` asked, kept (nothing when git could not say: asked again)."""
    if started is not None:
        todo, pending = started
        try:
            out = pending.result().decode("utf-8", "surrogateescape")
        except GitError:
            return
        _kept_deletions(top, todo, out)


def _deletions(top: str, todo: list[str]) -> dict[str, set[str]] | None:
    """``deleted_files`` of ``todo`` from git (kept for the full ids among them); None when git
    cannot say."""
    try:
        out = git_text(_DELETIONS_ARGS, top, input="\n".join(todo).encode() + b"\n")
    except GitError:
        return None
    return _kept_deletions(top, todo, out)


def _kept_deletions(top: str, todo: list[str], out: str) -> dict[str, set[str]]:
    """The deletions of ``todo`` in git's answer ``out``, kept for the full ids among them."""
    asked: dict[str, set[str]] = {x: set() for x in todo}
    current: set[str] | None = None
    for line in out.splitlines():
        status, tab, path = line.partition("\t")
        if not tab:
            current = asked.get(line.strip())
        elif current is not None and status == "D" and not path.startswith('"'):
            current.add(path)
    if len(_DELETED) + len(asked) > _DELETED_KEPT:
        _DELETED.clear()
    for x, paths in asked.items():
        if _FULL_ID.fullmatch(x):  # a short id may name another commit once the repository grows
            _DELETED[(top, x)] = frozenset(paths)
    return asked


def read_deletions(top: str, revs: list[str]) -> None:
    """``deleted_files`` of every commit in the history of ``revs`` (full ids) asked now, in one
    `git diff-tree --stdin` (the very question each asks, of them all): for processes forked
    next, whose files' questions then find them kept. Nothing when the history holds more than
    ``DELETIONS_READ_COMMITS`` commits, or git cannot list it."""
    revs = [r for r in dict.fromkeys(revs) if _FULL_ID.fullmatch(r)]
    if not revs:
        return
    try:
        ids = git_text(["rev-list", f"--max-count={DELETIONS_READ_COMMITS + 1}", *revs, "--"], top).split()
    except GitError:
        return
    todo = [x for x in ids if (top, x) not in _DELETED]
    if todo and len(ids) <= DELETIONS_READ_COMMITS and len(_DELETED) + len(todo) <= _DELETED_KEPT:
        _deletions(top, todo)


def deleted_ahead(top: str, revs: str | None, *, now: bool = False) -> None:
    """The first ``deleted_files`` question in ``top`` that git must answer also asks about
    the commits of ``revs`` (``A..B``, at most ``DELETED_AHEAD_COMMITS`` of them): the commits
    of a change whose files are answered next (None: no longer); ``now``: they are listed from
    now on, beside the caller's work (its files will ask)."""
    listing = _DELETED_AHEAD.pop(top, None)
    if isinstance(listing, Pending):
        listing.stop()
    if revs is not None and not revs.startswith("-"):
        _DELETED_AHEAD[top] = Pending(_listing(revs), top) if now else revs


def _listing(revs: str) -> list[str]:
    return ["rev-list", f"--max-count={DELETED_AHEAD_COMMITS}", revs]


def ancestry(top: str, rev: str) -> set[str]:
    """Every commit id in ``rev``'s history, from one `git rev-list`."""
    return set(git_text(["rev-list", rev, "--"], top).split())
