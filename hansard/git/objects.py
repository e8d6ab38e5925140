"""Reading refs, trees and blobs that are not the work tree's: many objects through one
`git cat-file --batch` process, and refs through one `git for-each-ref`.

Everything here only reads: no command writes an object, a ref or the index, and none talks to
a remote (records other tools keep in git, such as Entire's checkpoints, are read in place).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import TypeVar

from hansard.errors import GitError
from hansard.git.run import _FORCED, git_env, git_text

# Requests written ahead of their answers stay under a pipe's 64 KiB buffer.
BATCH_BYTES = 32 << 10
_T = TypeVar("_T")
# An object over the caller's ``max_bytes`` is read past in blocks of this size.
SKIP_BLOCK = 1 << 20


def refs(top: str, patterns: Iterable[str]) -> list[tuple[str, str]]:
    """(ref name, the object it names) of the refs under ``patterns`` (prefixes such as
    ``refs/heads/entire/``), sorted by name."""
    pats = list(patterns)
    if not pats:
        return []
    out = git_text(["for-each-ref", "--format=%(refname)%09%(objectname)", *pats], top)
    pairs = []
    for line in out.splitlines():
        name, _, sha = line.partition("\t")
        if name and sha:
            pairs.append((name, sha))
    return sorted(pairs)


def header_fields(line: bytes) -> list[bytes] | None:
    """A `git cat-file --batch` (or `--batch-check`) answer's header: (object id, type, size);
    None for a name git has no object for (``NAME missing``, ``NAME ambiguous``: the name may
    hold spaces)."""
    parts = line.split()
    return None if len(parts) < 3 or parts[-1] in (b"missing", b"ambiguous") else parts


class CatFile:
    """One `git cat-file --batch` process: ``get`` asks for one object and waits for it, so
    a caller walks trees and reads blobs in any order without a process per object. A missing
    object is None; a blob over ``max_bytes`` is None too, read past without being held (read
the rest without it)."""

    def __init__(self, top: str) -> None:
        try:
            self.proc = subprocess.Popen(["git", *_FORCED, "cat-file", "--batch"], cwd=top, env=git_env(),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise GitError(f"cannot run git cat-file in {top}") from exc
        self.requests = 0
        self.top = top
        self._check: subprocess.Popen[bytes] | None = None  # `git cat-file --batch-check`, started on first use

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for proc in (self.proc, self._check):
            if proc is None or proc.poll() is not None:
                continue
            assert proc.stdin is not None
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def get(self, rev: str, max_bytes: int | None = None) -> tuple[str, bytes] | None:
        """(type, content) of the object ``rev`` names, or None."""
        if not rev or "\n" in rev:
            return None
        _write(self.proc, [rev])
        self.requests += 1
        return self._answer(max_bytes)

    def get_many(self, revs: list[str], max_bytes: int | None = None) -> list[tuple[str, bytes] | None]:
        """``get`` of each rev, in order, with the requests written ahead of the answers: one
        round trip per batch instead of one per object. A batch's requests stay under
        ``BATCH_BYTES``, within a pipe's buffer, so writing them never waits for git to be read."""
        def ask(asked: list[str]) -> list[tuple[str, bytes] | None]:
            _write(self.proc, asked)
            self.requests += len(asked)
            return [self._answer(max_bytes) for _ in asked]

        return _batched(revs, ask)

    def read_many(self, revs: list[str]) -> list[tuple[str, bytes, bytes] | None]:
        """(object id, type, content) of the object each rev names, or None: ``get_many`` with
        each object's id, its requests batched alike."""
        def ask(asked: list[str]) -> list[tuple[str, bytes, bytes] | None]:
            _write(self.proc, asked)
            self.requests += len(asked)
            return [self._read_one() for _ in asked]

        return _batched(revs, ask)

    def info_many(self, revs: list[str]) -> list[tuple[str, str, int] | None]:
        """(object id, type, size) of the object each rev names, or None (missing, or not a
        name), without reading any content: what a caller checks against a budget before it
        reads. One `git cat-file --batch-check` beside the reading process, batched alike."""
        if self._check is None:
            try:
                self._check = subprocess.Popen(["git", *_FORCED, "cat-file", "--batch-check"], cwd=self.top,
                                               env=git_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=subprocess.DEVNULL)
            except (FileNotFoundError, NotADirectoryError) as exc:
                raise GitError(f"cannot run git cat-file in {self.top}") from exc
        check = self._check

        def ask(asked: list[str]) -> list[tuple[str, str, int] | None]:
            _write(check, asked)
            stdout = check.stdout
            assert stdout is not None
            out: list[tuple[str, str, int] | None] = []
            for _ in asked:
                header = stdout.readline()
                if not header:
                    raise GitError("git cat-file stopped")
                parts = header_fields(header)
                out.append(None if parts is None else (parts[0].decode(), parts[1].decode(), int(parts[2])))
            return out

        return _batched(revs, ask)

    def _header(self) -> list[bytes] | None:
        """The next answer's header (object id, type, size); None for a name git has no object for."""
        stdout = self.proc.stdout
        assert stdout is not None
        header = stdout.readline()
        if not header:
            raise GitError("git cat-file stopped")
        return header_fields(header)

    def _read_one(self) -> tuple[str, bytes, bytes] | None:
        parts = self._header()
        if parts is None:
            return None
        stdout = self.proc.stdout
        assert stdout is not None
        data = _read_exact(stdout, int(parts[2]))
        stdout.read(1)  # the newline after the content
        return parts[0].decode(), parts[1], data

    def _answer(self, max_bytes: int | None) -> tuple[str, bytes] | None:
        parts = self._header()
        if parts is None:
            return None
        stdout = self.proc.stdout
        assert stdout is not None
        size = int(parts[2])
        if max_bytes is not None and size > max_bytes:
            _skip_exact(stdout, size + 1)  # passed over a block at a time, never held whole
            return None
        data = _read_exact(stdout, size)
        stdout.read(1)  # the newline after the content
        return parts[1].decode(), data


def _batched(revs: list[str], ask: Callable[[list[str]], list[_T | None]]) -> list[_T | None]:
    """``ask`` of the usable revs, a batch at a time (each batch's requests under
    ``BATCH_BYTES``); None for a rev that cannot be asked (empty, a newline in it, too long)."""
    out: list[_T | None] = []
    ok = [bool(r) and "\n" not in r and len(r) < BATCH_BYTES for r in revs]
    i = 0
    while i < len(revs):
        j, size = i, 0
        while j < len(revs) and (j == i or size + len(revs[j]) + 1 <= BATCH_BYTES):
            size += len(revs[j]) + 1 if ok[j] else 0
            j += 1
        answers = iter(ask([r for r, good in zip(revs[i:j], ok[i:j], strict=True) if good]))
        out += [next(answers) if good else None for good in ok[i:j]]
        i = j
    return out


def _write(proc: subprocess.Popen[bytes], asked: list[str]) -> None:
    stdin = proc.stdin
    assert stdin is not None
    try:
        stdin.write(b"".join(r.encode("utf-8", "surrogateescape") + b"\n" for r in asked))
        stdin.flush()
    except (BrokenPipeError, OSError) as exc:
        raise GitError("git cat-file stopped") from exc


def parse_tree(data: bytes) -> list[tuple[str, str, str]]:
    """A raw tree object's entries: ``<mode> <name>\\0<20-byte id>`` each."""
    out = []
    pos, n = 0, len(data)
    while pos < n:
        sp = data.find(b" ", pos)
        nul = data.find(b"\0", sp + 1)
        if sp < 0 or nul < 0 or nul + 21 > n:
            break
        mode = data[pos:sp].decode("ascii", "replace")
        name = data[sp + 1:nul].decode("utf-8", "surrogateescape")
        out.append((mode, name, data[nul + 1:nul + 21].hex()))
        pos = nul + 21
    return out


def _read_exact(stream, size: int) -> bytes:  # a binary pipe
    chunks = []
    left = size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise GitError("git cat-file stopped mid-object")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _skip_exact(stream, size: int) -> None:  # a binary pipe
    left = size
    while left > 0:
        chunk = stream.read(min(left, SKIP_BLOCK))
        if not chunk:
            raise GitError("git cat-file stopped mid-object")
        left -= len(chunk)
