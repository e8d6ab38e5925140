"""Running the git CLI with a controlled environment.

User and system config can change what git prints (diff prefixes, colours, blame and diff
algorithms, pagers). Every call here ignores them, so what we parse is what we expect.
"""

from __future__ import annotations

import contextvars
import os
import subprocess
import time
from collections.abc import Sequence

from hansard.errors import GitError

_SAFE_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
    "GIT_OPTIONAL_LOCKS": "0",  # readers must not take index.lock from under the user
}
# Repository-level config can still set these; force them off on the command line.
_FORCED = ("-c", "color.ui=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
           "-c", "core.quotePath=false", "-c", "blame.coloring=none", "-c", "blame.date=iso-strict",
           "-c", "blame.showEmail=false", "-c", "blame.blankBoundary=false", "-c", "diff.algorithm=myers",
           "-c", "log.showSignature=false", "-c", "i18n.logOutputEncoding=UTF-8")


# A monotonic-clock deadline for the current call (MCP tools set it): git commands get no
# more time than the call has left, so a timed-out call leaves no git process running.
DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("hansard_git_deadline", default=None)


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_DIR_SAFE",)}
    env.update(_SAFE_ENV)
    return env


def git(args: Sequence[str], cwd: str | os.PathLike[str], *, input: bytes | None = None, check: bool = True,
        timeout: float = 120.0) -> bytes:
    deadline = DEADLINE.get()
    if deadline is not None:
        timeout = max(0.1, min(timeout, deadline - time.monotonic()))
    try:
        proc = subprocess.run(
            ["git", *_FORCED, *args], cwd=cwd, input=input, capture_output=True, env=git_env(), timeout=timeout,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} took longer than {timeout:.0f}s") from exc
    if check and proc.returncode != 0:
        raise GitError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode(errors='replace').strip()[:500]}",
                       returncode=proc.returncode)
    return proc.stdout


def git_text(args: Sequence[str], cwd: str | os.PathLike[str], **kw: object) -> str:
    return git(args, cwd, **kw).decode("utf-8", "surrogateescape")  # type: ignore[arg-type]


def _scratch(data: bytes = b"") -> int:
    """A file descriptor of a file with no name (gone when closed), holding ``data``."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("hansard-git", os.MFD_CLOEXEC)
    else:  # pragma: no cover - not Linux
        import tempfile

        fd = os.dup(tempfile.TemporaryFile().fileno())
    if data:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


class Pending:
    """A git command started, its output read when asked for (``result``). Its output goes to a
    file with no name, not a pipe, so the child never waits for a reader: the caller does other
    work meanwhile on its own thread, and nothing else runs. The deadline (``DEADLINE``) and the
    timeout count from the start, as for ``git``."""

    __slots__ = ("args", "proc", "out", "err", "ends")

    def __init__(self, args: Sequence[str], cwd: str | os.PathLike[str], *, input: bytes | None = None,
                 timeout: float = 120.0) -> None:
        deadline = DEADLINE.get()
        if deadline is not None:
            timeout = max(0.1, min(timeout, deadline - time.monotonic()))
        self.args = list(args)
        self.ends = time.monotonic() + timeout
        self.out, self.err = _scratch(), _scratch()
        stdin = _scratch(input) if input is not None else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(["git", *_FORCED, *args], cwd=cwd, stdin=stdin, stdout=self.out,
                                         stderr=self.err, env=git_env())
        except FileNotFoundError as exc:
            self._close()
            raise GitError("git is not installed or not on PATH") from exc
        finally:
            if isinstance(stdin, int) and stdin >= 0:
                os.close(stdin)

    def result(self, *, check: bool = True) -> bytes:
        """Its stdout, once it has exited (GitError when it failed, or ran past its time)."""
        try:
            try:
                code = _wait(self.proc, max(0.0, self.ends - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise GitError(f"git {self.args[0]} ran out of time") from None
            if check and code != 0:
                err = self._read(self.err).decode(errors="replace").strip()[:500]
                raise GitError(f"git {' '.join(self.args[:3])} failed: {err}", returncode=code)
            return self._read(self.out)
        finally:
            self._close()

    def done(self) -> bool:
        """It has exited (``result`` waits no more)."""
        return self.proc.poll() is not None

    def stop(self) -> None:
        """Stop it unread (its output is not wanted)."""
        try:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        finally:
            self._close()

    @staticmethod
    def _read(fd: int) -> bytes:
        # The child has exited: the file's size is its whole output, read in one call where the
        # system allows (chunks joined afterwards copy a batch of blobs' tens of MB twice).
        size = os.fstat(fd).st_size
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, size) if size else b""
        if len(data) < size:
            chunks = [data]
            while chunk := os.read(fd, 1 << 30):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data

    def _close(self) -> None:
        for fd in (self.out, self.err):
            if fd >= 0:
                os.close(fd)
        self.out = self.err = -1


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> int:
    """The process's exit code once it exits, TimeoutExpired after ``timeout`` seconds. Where the
    system can say when a process exits (a pidfd), that is waited for: ``Popen.wait`` with a
    timeout polls, sleeping up to 50 ms past the exit each time."""
    if proc.returncode is None and hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(proc.pid)
        except OSError:
            fd = -1
        if fd >= 0:
            import select

            try:
                ready = select.select([fd], [], [], timeout)[0]
            finally:
                os.close(fd)
            if not ready:
                raise subprocess.TimeoutExpired(proc.args, timeout)
    return proc.wait(timeout)


def wait_any(pending: Sequence[Pending], timeout: float) -> None:
    """Return once one of these has exited, or after ``timeout`` seconds (at once where the
    system cannot say when a process exits)."""
    if not hasattr(os, "pidfd_open") or any(p.done() for p in pending):
        return
    import select

    fds: list[int] = []
    try:
        for p in pending:
            fds.append(os.pidfd_open(p.proc.pid))
        select.select(fds, [], [], timeout)
    except OSError:
        return
    finally:
        for fd in fds:
            os.close(fd)


def start(args: Sequence[str], cwd: str | os.PathLike[str], *, input: bytes | None = None) -> Pending:
    """``git ARGS`` started now, beside the caller's own work: its output is ``.result()``."""
    return Pending(args, cwd, input=input)
