"""A thin, deterministic wrapper around the real git CLI for building fixture repositories.

Every command runs with no global/system config, a fixed identity and explicit dates, so a
scenario built twice yields the same commit SHAs. Nothing is mocked: these are real git
repositories with real rewrites (amend, rebase -i, cherry-pick, revert, squash merge, pull
--rebase, worktrees).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from fixtures_repos.writers import git_date

HUMAN = ("Dana Developer", "dana@example.com")
COLLEAGUE = ("Sam Colleague", "sam@example.com")


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment for git: nothing inherited that could change its behaviour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_EDITOR": "true",
        "GIT_AUTHOR_NAME": HUMAN[0],
        "GIT_AUTHOR_EMAIL": HUMAN[1],
        "GIT_COMMITTER_NAME": HUMAN[0],
        "GIT_COMMITTER_EMAIL": HUMAN[1],
        "TZ": "UTC",
        "LC_ALL": "C",
    })
    if extra:
        env.update(extra)
    return env


class GitError(RuntimeError):
    pass


class GitRepo:
    """A working tree (main checkout or linked worktree) driven through ``git``."""

    def __init__(self, path: Path, *, author: tuple[str, str] = HUMAN) -> None:
        self.path = Path(path)
        self.author = author

    # -- plumbing -----------------------------------------------------------------------------

    def git(self, *args: str, when: datetime | None = None, author_when: datetime | None = None,
            env: Mapping[str, str] | None = None, input: str | None = None, check: bool = True,
            author: tuple[str, str] | None = None) -> str:
        extra: dict[str, str] = {}
        who = author or self.author
        extra.update({"GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1],
                      "GIT_COMMITTER_NAME": who[0], "GIT_COMMITTER_EMAIL": who[1]})
        if when is not None:
            extra["GIT_COMMITTER_DATE"] = git_date(when)
            extra["GIT_AUTHOR_DATE"] = git_date(author_when or when)
        if env:
            extra.update(env)
        cmd = ["git", "-c", "core.quotepath=off", "-c", "advice.detachedHead=false", "-c", "core.autocrlf=false",
               "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args]
        proc = subprocess.run(cmd, cwd=self.path, env=git_env(extra), input=input, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise GitError(f"git {' '.join(args)} failed in {self.path}:\n{proc.stdout}\n{proc.stderr}")
        return proc.stdout

    @classmethod
    def init(cls, path: Path, *, author: tuple[str, str] = HUMAN, bare: bool = False) -> GitRepo:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        repo = cls(path, author=author)
        repo.git("init", "-q", "-b", "main", *(["--bare"] if bare else []))
        return repo

    @classmethod
    def clone(cls, url: Path | str, path: Path, *, author: tuple[str, str] = HUMAN) -> GitRepo:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        GitRepo(path.parent, author=author).git("clone", "-q", str(url), str(path))
        return cls(path, author=author)

    def head(self) -> str:
        return self.rev_parse("HEAD")

    def rev_parse(self, rev: str) -> str:
        return self.git("rev-parse", "--verify", rev + "^{commit}" if not rev.endswith("}") else rev).strip()

    def branch_name(self) -> str:
        return self.git("rev-parse", "--abbrev-ref", "HEAD").strip()

    # -- files --------------------------------------------------------------------------------

    def abspath(self, rel: str) -> Path:
        return self.path / rel

    def write(self, rel: str, text: str, *, crlf: bool = False) -> Path:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
        return p

    def read(self, rel: str) -> str:
        return (self.path / rel).read_bytes().decode("utf-8")

    def replace(self, rel: str, old: str, new: str, *, count: int = 1) -> None:
        """A human edit in the editor: replace text in a file (CRLF files keep their endings)."""
        raw = self.read(rel)
        crlf = "\r\n" in raw
        text = raw.replace("\r\n", "\n") if crlf else raw
        if text.count(old) < count or (count == 1 and text.count(old) != 1):
            raise AssertionError(f"{rel}: expected {old!r} {count}x")
        self.write(rel, text.replace(old, new, count), crlf=crlf)

    def remove(self, rel: str) -> None:
        (self.path / rel).unlink()

    # -- index and commits --------------------------------------------------------------------

    def add(self, *paths: str) -> None:
        self.git("add", "--", *paths) if paths else self.git("add", "-A")

    def commit(self, message: str, when: datetime, *, all: bool = True, author: tuple[str, str] | None = None,
               author_when: datetime | None = None, allow_empty: bool = False) -> str:
        if all:
            self.git("add", "-A")
        args = ["commit", "-q", "-m", message]
        if allow_empty:
            args.append("--allow-empty")
        self.git(*args, when=when, author_when=author_when, author=author)
        return self.head()

    def amend(self, when: datetime, *, message: str | None = None, all: bool = True) -> str:
        """``git commit --amend``: the author date stays, the committer date becomes ``when``."""
        if all:
            self.git("add", "-A")
        args = ["commit", "-q", "--amend"]
        args += ["-m", message] if message else ["--no-edit"]
        # keep the original author date: only the committer date comes from ``when``
        self.git(*args, env={"GIT_COMMITTER_DATE": _gd(when)})
        return self.head()

    def stage_patch(self, patch: str) -> None:
        """Stage a (partial) patch without touching the working tree: ``git apply --cached``."""
        self.git("apply", "--cached", "--recount", "-", input=patch)

    def stage_hunks(self, rel: str, keep: Callable[[int, str], bool] | Sequence[int]) -> None:
        """The equivalent of ``git add -p`` answering yes to some hunks: take ``git diff`` of the
        file, keep the selected hunks (by index, or by a predicate on index and hunk text), and
        ``git apply --cached`` them."""
        diff = self.git("diff", "-U3", "--no-color", "--", rel)
        if not diff:
            raise AssertionError(f"nothing to stage in {rel}")
        head, *hunks = _split_hunks(diff)
        chosen = [h for i, h in enumerate(hunks) if (keep(i, h) if callable(keep) else i in keep)]
        if not chosen:
            raise AssertionError("no hunk selected")
        self.stage_patch(head + "".join(chosen))

    def mv(self, src: str, dst: str) -> None:
        (self.path / dst).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", src, dst)

    def rm(self, rel: str) -> None:
        self.git("rm", "-q", rel)

    def checkout(self, ref: str, *, create: bool = False, paths: Sequence[str] = ()) -> None:
        if paths:
            self.git("checkout", ref, "--", *paths)
        elif create:
            self.git("checkout", "-q", "-b", ref)
        else:
            self.git("checkout", "-q", ref)

    def branch(self, name: str, start: str = "HEAD") -> None:
        self.git("branch", name, start)

    def discard(self, *paths: str) -> None:
        """Throw away working-tree changes (``git checkout -- paths``)."""
        self.git("checkout", "--", *paths)

    # -- rewrites -----------------------------------------------------------------------------

    def rebase_interactive(self, upstream: str, when: datetime, *, todo: Sequence[str] | None = None,
                           sed: str | None = None) -> str:
        """``git rebase -i`` driven non-interactively through GIT_SEQUENCE_EDITOR: either a sed
        script applied to git's todo list, or a complete todo list copied over it."""
        if (todo is None) == (sed is None):
            raise ValueError("give exactly one of todo= or sed=")
        with tempfile.TemporaryDirectory() as tmp:
            if todo is not None:
                todo_file = Path(tmp) / "todo"
                todo_file.write_text("\n".join(todo) + "\n")
                editor = f"cp {shlex.quote(str(todo_file))}"
            else:
                editor = f"sed -i -e {shlex.quote(sed or '')}"
            self.git("rebase", "-q", "-i", upstream, when=None,
                     env={"GIT_SEQUENCE_EDITOR": editor, "GIT_EDITOR": "true", "GIT_COMMITTER_DATE": _gd(when)})
        return self.head()

    def cherry_pick(self, rev: str, when: datetime, *, record_origin: bool = True) -> str:
        self.git("cherry-pick", *(["-x"] if record_origin else []), rev, env={"GIT_COMMITTER_DATE": _gd(when)})
        return self.head()

    def revert(self, rev: str, when: datetime) -> str:
        self.git("revert", "--no-edit", rev, when=when)
        return self.head()

    def merge_squash(self, branch: str, message: str, when: datetime) -> str:
        self.git("merge", "--squash", "-q", branch)
        return self.commit(message, when, all=False)

    def merge_ff(self, branch: str) -> str:
        self.git("merge", "--ff-only", "-q", branch)
        return self.head()

    def worktree_add(self, path: Path, branch: str, start: str = "HEAD") -> GitRepo:
        self.git("worktree", "add", "-q", "-b", branch, str(path), start)
        return GitRepo(Path(path), author=self.author)

    def remote_add(self, name: str, url: Path | str) -> None:
        self.git("remote", "add", name, str(url))

    def push(self, remote: str = "origin", ref: str = "main", *, set_upstream: bool = True) -> None:
        self.git("push", "-q", *(["-u"] if set_upstream else []), remote, ref)

    def pull_rebase(self, when: datetime, remote: str = "origin", branch: str = "main") -> str:
        self.git("pull", "-q", "--rebase", remote, branch, env={"GIT_COMMITTER_DATE": _gd(when)})
        return self.head()

    # -- queries ------------------------------------------------------------------------------

    def show(self, rev: str, rel: str) -> str:
        return self.git("show", f"{rev}:{rel}")

    def commit_time(self, rev: str) -> int:
        return int(self.git("show", "-s", "--format=%ct", rev).strip())

    def log(self, *args: str) -> str:
        return self.git("log", *args)


def _gd(when: datetime) -> str:
    return git_date(when)


def _split_hunks(diff: str) -> list[str]:
    """File header followed by hunks (each starting with '@@')."""
    parts: list[str] = []
    cur: list[str] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            parts.append("".join(cur))
            cur = []
        cur.append(line)
    parts.append("".join(cur))
    return parts
