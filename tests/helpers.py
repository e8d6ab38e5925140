"""Shared test helpers: run the CLI in-process, dump derived tables for comparisons, a git on
PATH that logs its calls, and the small retry.py repository of the recorded-evidence tests."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import shutil
import sqlite3
import stat
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from hansard.cli import main
from hansard.store.sqlite.db import OUTPUT_SQL

# Columns that are bookkeeping, not content: row ids and scan times differ between runs.
_VOLATILE = {"id", "last_scanned", "first_seen", "source_id", "session_id", "message_id", "edit_id"}


def run_cli(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    err = io.StringIO()

    class _Buf(io.StringIO):
        @property
        def buffer(self) -> io.BytesIO:  # the CLI writes JSON as bytes
            return self._b

    stdout = _Buf()
    stdout._b = io.BytesIO()  # type: ignore[attr-defined]
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        import sys

        old_stdin = sys.stdin
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
        try:
            code = main(list(args))
        finally:
            sys.stdin = old_stdin
    text = stdout.getvalue() + stdout._b.getvalue().decode()  # type: ignore[attr-defined]
    return code, text, err.getvalue()


def cli_json(*args: str, stdin: bytes | None = None) -> Any:
    """The command's JSON answer; an answer of a declared result type is checked against it, key
    by key (``shape_problems``), so every test that reads one also checks its type."""
    code, out, err = run_cli(*args, "--json", stdin=stdin)
    assert code == 0, (code, out, err)
    answer = json.loads(out)
    result = _declared_result(args)
    if result is not None:
        assert shape_problems(answer, result) == [], (args, shape_problems(answer, result)[:5])
    return answer


def _declared_result(args: tuple[str, ...]) -> Any:
    """The result type ``hansard.app.commands`` declares for the command ``args`` run, or None."""
    from hansard.app import commands, declare

    words = [a for a in args if not a.startswith("-")]
    cmd = commands.COMMANDS.get(" ".join(words[:2])) or commands.COMMANDS.get(words[0] if words else "")
    return declare.resolve(cmd.result) if cmd is not None and cmd.result else None


def dump(db: sqlite3.Connection) -> dict[str, list[tuple]]:
    """Every derived table as sorted content tuples, with row ids replaced by natural keys."""
    raw = _dump(db)
    # None sorts before everything: compare as JSON text.
    return {k: sorted(v, key=lambda t: json.dumps(t, default=str)) for k, v in raw.items()}


def _dump(db: sqlite3.Connection) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    out["sessions"] = list(
        tuple(v for k, v in dict(r).items() if k not in _VOLATILE)
        for r in db.execute("SELECT * FROM sessions")
    )
    out["messages"] = list(
        (r["sid"], r["message_index"], r["key"], r["role"], r["kind"], r["text"], r["timestamp"])
        for r in db.execute("SELECT m.*, s.session_id AS sid FROM messages m JOIN sessions s ON s.id=m.session_id")
    )
    out["tool_calls"] = list(
        (r["sid"], r["call_id"], r["name"], r["input"], r["status"], r["out"], r["exit_code"])
        for r in db.execute(f"SELECT t.*, {OUTPUT_SQL} AS out, s.session_id AS sid FROM tool_calls t"
                            " JOIN sessions s ON s.id=t.session_id")
    )
    out["edits"] = list(
        (r["sid"], r["call_id"], r["seq"], r["tool"], r["kind"], r["status"], r["path"], r["hunks"], r["rel_path"])
        for r in db.execute("SELECT e.*, s.session_id AS sid FROM edits e JOIN sessions s ON s.id=e.session_id")
    )
    out["edit_lines"] = list(
        (r["call_id"], r["seq"], r["side"], r["ordinal"], r["new_lineno"], r["hash"])
        for r in db.execute("SELECT el.*, e.call_id, e.seq FROM edit_lines el JOIN edits e ON e.id=el.edit_id")
    )
    out["steps"] = list(
        (r["sid"], r["call_id"], r["snapshot"], r["steps"])
        for r in db.execute("SELECT st.*, s.session_id AS sid FROM steps st JOIN sessions s ON s.id=st.session_id")
    )
    out["skips"] = sorted((r["reason"], r["offset"]) for r in db.execute("SELECT * FROM skips"))
    return out


def index_lock_held() -> bool:
    """True while some process holds the indexer's lock ($HANSARD_HOME/index.lock), probed
    without keeping it."""
    try:
        fd = os.open(Path(os.environ["HANSARD_HOME"]) / "index.lock", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class WordsEmbedder:
    """A stand-in embedder, the same in every process: each word (by its CRC-32) lights one of
    ``dim`` dimensions; vectors are unit length (an empty text gives zeros)."""

    def __init__(self, id: str, dim: int) -> None:
        self.id, self.dim = id, dim

    def embed(self, texts: list[str]) -> Any:
        import zlib

        import numpy as np

        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, zlib.crc32(w.strip(".,:;!?").encode()) % self.dim] += 1.0
        n = np.linalg.norm(out, axis=1, keepdims=True)
        n[n == 0] = 1
        return out / n


def _git_shim(bindir: Path, before: str) -> Path:
    """``bindir`` (made) holding a `git` that runs the shell lines ``before`` ($@ is its
    arguments) and then the real git."""
    real = shutil.which("git")
    assert real
    bindir.mkdir()
    shim = bindir / "git"
    shim.write_text(f'#!/bin/sh\n{before}exec "{real}" "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return bindir


def logging_git(tmp: Path) -> tuple[Path, Path]:
    """A folder holding a `git` that appends its arguments (one call a line) to the returned log
    and runs the real git: put the folder first on PATH to see every git a command starts."""
    log = tmp / "git-calls.log"
    return _git_shim(tmp / "bin", f'echo "$*" >> "{log}"\n'), log


def git_failing_once(tmp: Path, subcommand: str) -> Path:
    """A folder holding a `git` whose first call of ``subcommand`` fails as git does (a message
    on stderr, exit 128) and whose every other call runs the real git: put the folder first on
    PATH to make one git call fail, as a git killed or out of resources would."""
    done = tmp / "failing-git.done"
    return _git_shim(tmp / "failing-git", f'if [ ! -e "{done}" ]; then\n  for a in "$@"; do\n'
                     f'    if [ "$a" = "{subcommand}" ]; then : > "{done}"; echo "fatal: failed" >&2; exit 128; fi\n'
                     '  done\nfi\n')


def git_subcommand(line: str) -> str:
    """The git subcommand of a logged call (after ``-c key=value`` and ``-C dir`` options)."""
    words = line.split()
    i = 0
    while i < len(words) and words[i] in ("-c", "-C"):
        i += 2
    return words[i] if i < len(words) else ""


# The recorded-evidence tests (Agent Trace, git-ai and qwen-code notes, trailers) all ask about
# retry.py: one line a Claude Code session wrote, one a person typed, in one commit.
AGENT_LINE = "    backoff = min(cap, base * 2 ** attempt)\n"
HUMAN_LINE = "    log.info('retrying upload after a failure')\n"


def retry_repo(root: Path, t0: datetime, session: str, message: str, human: bool = True) -> GitRepo:
    """``root``/app: retry.py committed at ``t0``; then a Claude Code session ``session`` (under
    CLAUDE_CONFIG_DIR, from ``t0`` + 1 min) adds AGENT_LINE, a person adds HUMAN_LINE (unless not
    ``human``), and both are committed with ``message`` at ``t0`` + 5 min. Nothing indexed."""
    r = GitRepo.init(root / "app")
    r.write("retry.py", "def retry(call, base, cap):\n    attempt = 0\n    return call()\n")
    r.commit("retry", t0)
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r.path, session, t0 + timedelta(minutes=1))
    w.prompt("cap the backoff")
    w.edit(r.path / "retry.py", "    attempt = 0\n", "    attempt = 0\n" + AGENT_LINE)
    if human:
        r.replace("retry.py", "    return call()\n", HUMAN_LINE + "    return call()\n")
    r.commit(message, t0 + timedelta(minutes=5))
    return r


def real_write_repo(root: Path, transcript: Path, rel: str, message: str, first: datetime, landed: datetime
                    ) -> tuple[GitRepo, dict[str, Any]]:
    """``root``/cli: a README committed at ``first``, then ``rel`` as the real transcript's last
    Write tool call wrote it, committed at ``landed`` with ``message``; and that call's block."""
    write = None
    for line in transcript.read_text().splitlines():
        for block in (json.loads(line).get("message") or {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block["name"] == "Write":
                write = block
    assert write is not None, transcript
    repo = GitRepo.init(root / "cli")
    repo.write("README.md", "# cli\n")
    repo.commit("Initial commit", first)
    repo.write(rel, write["input"]["content"])
    repo.commit(message, landed)
    return repo, write


def why_lines(path: str = "retry.py") -> dict[str, dict[str, Any]]:
    """`hansard why PATH --json` in the current folder: its lines by their text (with the newline)."""
    rc, out, err = run_cli("why", path, "--json")
    assert rc == 0, (out, err)
    return {ln["content"] + "\n": ln for ln in json.loads(out)["lines"]}


def git_dir_files(gitdir: Path) -> dict[str, str]:
    """Every file under a .git folder (refs, notes, objects, config, index) by content hash: equal
    before and after a command that writes nothing to the repository."""
    return {str(p.relative_to(gitdir)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(gitdir.rglob("*")) if p.is_file()}


def shape_problems(value: Any, tp: Any, at: str = "$") -> list[str]:
    """Where ``value`` is not of the type ``tp`` (a result type of hansard.answers.results): a
    TypedDict's missing required keys and keys it does not declare, each field's type, list
    items, dict values, unions, literals, ``JSON`` (a TypeAliasType). Empty when it conforms."""
    import types
    import typing

    import typing_extensions as te

    if isinstance(tp, te.TypeAliasType):
        tp = tp.__value__
        if isinstance(tp, str):
            from hansard.answers import results

            tp = eval(tp, {**vars(typing), **vars(results)})  # the module's own alias text
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is type(None) or tp is None:
        return [] if value is None else [f"{at}: {value!r} is not null"]
    if origin in (typing.Union, types.UnionType):
        tried = [shape_problems(value, a, at) for a in args]
        return [] if any(not t for t in tried) else min(tried, key=len)
    if origin is typing.Literal or origin is te.Literal:
        return [] if value in args else [f"{at}: {value!r} is not one of {args}"]
    if te.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{at}: a {type(value).__name__}, not an object"]
        hints = typing.get_type_hints(tp, include_extras=False)
        out = [f"{at}: no {k!r}" for k in sorted(tp.__required_keys__ - set(value))]
        out += [f"{at}: {k!r} is not a field of {tp.__name__}" for k in sorted(set(value) - set(hints))]
        for k, v in value.items():
            if k in hints:
                out += shape_problems(v, hints[k], f"{at}.{k}")
        return out
    if origin is list:
        if not isinstance(value, list):
            return [f"{at}: a {type(value).__name__}, not a list"]
        return [p for i, v in enumerate(value) for p in shape_problems(v, args[0], f"{at}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{at}: a {type(value).__name__}, not an object"]
        return [p for k, v in value.items() for p in shape_problems(k, args[0], f"{at}<key>")
                + shape_problems(v, args[1], f"{at}[{k!r}]")]
    if tp is float:
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{at}: {value!r} is not a number"]
    if tp is int:
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{at}: {value!r} is not an integer"]
    if tp in (str, bool):
        return [] if isinstance(value, tp) else [f"{at}: {value!r} is not a {tp.__name__}"]
    return [f"{at}: no check for {tp!r}"]
