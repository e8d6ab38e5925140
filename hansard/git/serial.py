"""git commands run one after another by one helper process (a POSIX shell), which starts each
as the one before it ends. The caller starts one process, not one per command, and goes on with
its own work: it never waits for a git process to start (starting a process holds its parent
until the child has run exec, and the child may wait for a CPU first). Each command's output is
read when asked (``Queued.result``), as ``hansard.git.run.Pending`` gives it.

Always true: every command is the one ``Pending`` would run (git with the same forced options,
environment and folder), one at a time, in the order given; a command's result is its own
output and exit code or, when the helper did not say them (it was stopped, or could not run),
the command run alone then. Nothing stays running or on disk once every command is taken or
stopped (``release``): the helper's process group is killed and its folder removed.
"""

from __future__ import annotations

import os
import select
import shlex
import signal
import subprocess
import time
from collections.abc import Sequence

from hansard.errors import GitError
from hansard.git.run import _FORCED, DEADLINE, Pending, git_env

SHELL = "/bin/sh"
ARGS_BYTES = 256 << 10  # of the commands' own arguments: past it, a caller starts them one by one
TIMEOUT_S = 120.0  # a command's output waited for at most this long once asked, as ``Pending``'s


def usable(items: Sequence[Sequence[str]]) -> bool:
    """Whether ``items`` can go to one helper here (a POSIX shell, arguments within bounds)."""
    return (os.name == "posix" and os.path.isfile(SHELL) and len(items) > 1
            and len({len(it) for it in items}) == 1 and sum(len(a) + 1 for it in items for a in it) < ARGS_BYTES)


class Serial:
    """``git *fixed *item`` for each of ``items`` (each as many arguments long), run in turn by one
    helper started now in ``cwd``; ``queued(i)`` is the i-th command's handle."""

    def __init__(self, cwd: str, fixed: Sequence[str], items: Sequence[Sequence[str]]) -> None:
        k = len(items[0])
        self.cwd = cwd
        self.args = [[*fixed, *it] for it in items]
        self.open = set(range(len(items)))  # neither taken nor stopped
        self.codes: dict[int, int] = {}  # the exit code of each command the helper ran
        self.buf = b""
        self.ended = False
        self.dir = _scratch_folder()
        run = " ".join(["git", *map(shlex.quote, [*_FORCED, *fixed]), *(f'"${{{j + 1}}}"' for j in range(k))])
        # each command's output to its own files, then "INDEX EXIT-CODE" on a line
        script = (f'd=$1; shift; i=0; while [ $# -gt 0 ]; do {run} >"$d/$i.out" 2>"$d/$i.err"; '
                  f'echo "$i $?" || exit; i=$((i + 1)); shift {k}; done')
        try:
            self.proc = subprocess.Popen([SHELL, "-c", script, "sh", self.dir, *(a for it in items for a in it)],
                                         cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, env=git_env(), process_group=0)
        except OSError:
            _remove(self.dir)
            raise

    def queued(self, i: int) -> Queued:
        return Queued(self, i)

    def code(self, i: int, ends: float) -> int | None:
        """The i-th command's exit code once the helper has run it; None when it never will."""
        while i not in self.codes and not self.ended:
            assert self.proc.stdout is not None
            fd = self.proc.stdout.fileno()
            left = ends - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(self.args[i], TIMEOUT_S)
            if not select.select([fd], [], [], left)[0]:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                self.ended = True
                break
            *lines, self.buf = (self.buf + chunk).split(b"\n")
            for line in lines:
                n, _, c = line.partition(b" ")
                self.codes[int(n)] = int(c)
        return self.codes.get(i)

    def read(self, i: int, what: str) -> bytes:
        with open(os.path.join(self.dir, f"{i}.{what}"), "rb") as f:
            return f.read()

    def release(self, i: int) -> None:
        """The i-th command is taken or stopped: once every one is, the helper is stopped."""
        self.open.discard(i)
        if i in self.codes:
            for what in ("out", "err"):
                try:
                    os.unlink(os.path.join(self.dir, f"{i}.{what}"))
                except OSError:
                    pass
        if not self.open:
            self.stop()

    def stop(self) -> None:
        """Stop the helper and the git it runs (one process group), and remove its folder."""
        self.open.clear()
        self.ended = True
        if self.proc.poll() is None:  # not reaped yet: its group cannot be another's
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        _remove(self.dir)


def outputs(cwd: str, fixed: Sequence[str], items: Sequence[Sequence[str]]) -> list[bytes]:
    """The stdout of ``git *fixed *item`` for each of ``items``, in order (GitError as the first
    failing command's): by one helper when one can run them (``usable``), else each alone."""
    if not items:
        return []
    helper = None
    if usable(items):
        try:
            helper = Serial(cwd, fixed, items)
        except OSError:  # no folder for its output, no shell: one at a time
            helper = None
    if helper is None:
        return [Pending([*fixed, *it], cwd).result() for it in items]
    queued = [helper.queued(i) for i in range(len(items))]
    try:
        return [q.result() for q in queued]
    finally:
        helper.stop()


def _scratch_folder() -> str:
    """A new folder only this user can read, for the commands' output (OSError when none can be
    made: the caller runs its commands one by one). Not ``tempfile``'s: its import (with
    ``shutil``'s) costs more than the processes it spares on a short answer."""
    path = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"hansard-git-{os.getpid()}-{os.urandom(8).hex()}")
    os.mkdir(path, 0o700)
    return path


def _remove(folder: str) -> None:
    try:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
    except OSError:
        pass


class Queued:
    """One command of a ``Serial``: its output when asked (``result``), or not wanted (``stop``)."""

    __slots__ = ("serial", "i")

    def __init__(self, serial: Serial, i: int) -> None:
        self.serial, self.i = serial, i

    def result(self, *, check: bool = True) -> bytes:
        """Its stdout, once it has run (GitError when it failed, or ran past its time)."""
        s, i = self.serial, self.i
        args = s.args[i]
        deadline = DEADLINE.get()
        ends = time.monotonic() + TIMEOUT_S if deadline is None else min(time.monotonic() + TIMEOUT_S, deadline)
        try:
            try:
                code = s.code(i, ends)
            except subprocess.TimeoutExpired:
                s.stop()
                raise GitError(f"git {args[0]} ran out of time") from None
            try:
                got = None if code is None else (s.read(i, "out"), s.read(i, "err") if check and code else b"")
            except OSError:  # its output is gone (someone emptied the folder)
                got = None
            if code is None or got is None:  # the helper did not run it, or its output is lost: run alone
                return Pending(args, s.cwd).result(check=check)
            if check and code != 0:
                err = got[1].decode(errors="replace").strip()[:500]
                raise GitError(f"git {' '.join(args[:3])} failed: {err}", returncode=code)
            return got[0]
        finally:
            s.release(i)

    def stop(self) -> None:
        """Not wanted: its output is dropped (the helper stops once no command is wanted)."""
        self.serial.release(self.i)
