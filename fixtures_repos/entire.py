"""Entire checkpoints written into a fixture repository the way Entire lays them out, with git
plumbing only (hash-object, mktree, commit-tree, update-ref) and fixed dates: the branch
``entire/checkpoints/v1`` (``<id[:2]>/<id[2:]>/`` per checkpoint) or one ref per checkpoint
(``refs/entire/checkpoints/<id>``, the checkpoint folder at the tree's root).

The metadata carries the fields hansard reads (``checkpoint_id``, ``sessions``,
``files_touched``; per session ``session_id``, ``created_at``, ``agent``), shaped like the
entireio/cli history's own.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from fixtures_repos.gitrepo import GitRepo, git_env

BRANCH = "refs/heads/entire/checkpoints/v1"


@dataclass
class SessionCopy:
    """One session as a checkpoint keeps it: its transcript bytes and its metadata."""

    session_id: str
    transcript: bytes
    created_at: str
    agent: str = "Claude Code"
    files_touched: Sequence[str] = ()
    chunk_bytes: int | None = None  # split full.jsonl in chunks of this size (full.jsonl.001, ...)
    extra: dict = field(default_factory=dict)


def _plumb(repo: GitRepo, args: list[str], data: bytes) -> str:
    proc = subprocess.run(["git", *args], cwd=repo.path, env=git_env(), input=data, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def _blob(repo: GitRepo, data: bytes) -> str:
    return _plumb(repo, ["hash-object", "-w", "--stdin"], data)


def _tree(repo: GitRepo, entries: dict[str, tuple[str, str]]) -> str:
    """A tree from {name: (kind, id)} with kind 'blob' or 'tree'."""
    lines = "".join(f"{'040000 tree' if k == 'tree' else '100644 blob'} {sha}\t{name}\n"
                    for name, (k, sha) in sorted(entries.items()))
    return _plumb(repo, ["mktree"], lines.encode())


def checkpoint_tree(repo: GitRepo, checkpoint_id: str, sessions: Sequence[SessionCopy], prefix: str) -> str:
    """The tree of one checkpoint folder (session folders 0/, 1/, … and metadata.json)."""
    folder: dict[str, tuple[str, str]] = {}
    touched: list[str] = []
    refs = []
    for n, s in enumerate(sessions):
        files: dict[str, tuple[str, str]] = {}
        data = s.transcript
        if s.chunk_bytes and len(data) > s.chunk_bytes:
            parts = [data[i:i + s.chunk_bytes] for i in range(0, len(data), s.chunk_bytes)]
            for i, part in enumerate(parts):
                files["full.jsonl" if i == 0 else f"full.jsonl.{i:03d}"] = ("blob", _blob(repo, part))
        else:
            files["full.jsonl"] = ("blob", _blob(repo, data))
        meta = {"checkpoint_id": checkpoint_id, "session_id": s.session_id, "strategy": "manual-commit",
                "created_at": s.created_at, "checkpoints_count": 1, "files_touched": list(s.files_touched),
                "agent": s.agent, **s.extra}
        files["metadata.json"] = ("blob", _blob(repo, json.dumps(meta, indent=2).encode()))
        files["prompt.txt"] = ("blob", _blob(repo, b"prompt\n"))
        folder[str(n)] = ("tree", _tree(repo, files))
        touched += [p for p in s.files_touched if p not in touched]
        refs.append({"metadata": f"{prefix}/{n}/metadata.json", "transcript": f"{prefix}/{n}/full.jsonl"})
    meta = {"checkpoint_id": checkpoint_id, "strategy": "manual-commit", "branch": "",
            "checkpoints_count": len(sessions), "files_touched": touched, "sessions": refs}
    folder["metadata.json"] = ("blob", _blob(repo, json.dumps(meta, indent=2).encode()))
    return _tree(repo, folder)


def write_checkpoint(repo: GitRepo, checkpoint_id: str, sessions: Sequence[SessionCopy], when: datetime, *,
                     layout: str = "branch") -> str:
    """Add a checkpoint; returns the commit written. ``layout``: 'branch' (a new commit on
    entire/checkpoints/v1 holding every earlier checkpoint too) or 'ref' (its own ref)."""
    if layout == "ref":
        tree = checkpoint_tree(repo, checkpoint_id, sessions, "")
        commit = _commit(repo, tree, None, f"Checkpoint: {checkpoint_id}", when)
        repo.git("update-ref", f"refs/entire/checkpoints/{checkpoint_id}", commit)
        return commit
    cp_tree = checkpoint_tree(repo, checkpoint_id, sessions, f"/{checkpoint_id[:2]}/{checkpoint_id[2:]}")
    return _add_to_branch(repo, checkpoint_id, cp_tree, when)


def _add_to_branch(repo: GitRepo, checkpoint_id: str, cp_tree: str, when: datetime) -> str:
    shard, rest = checkpoint_id[:2], checkpoint_id[2:]
    parent = repo.git("rev-parse", "--verify", "-q", BRANCH, check=False).strip() or None
    top: dict[str, tuple[str, str]] = {}
    if parent:
        for line in repo.git("ls-tree", parent).splitlines():
            meta, name = line.split("\t", 1)
            _mode, kind, sha = meta.split()
            top[name] = (kind, sha)
    shard_entries: dict[str, tuple[str, str]] = {}
    if shard in top:
        for line in repo.git("ls-tree", top[shard][1]).splitlines():
            meta, name = line.split("\t", 1)
            _mode, kind, sha = meta.split()
            shard_entries[name] = (kind, sha)
    shard_entries[rest] = ("tree", cp_tree)
    top[shard] = ("tree", _tree(repo, shard_entries))
    commit = _commit(repo, _tree(repo, top), parent, f"Checkpoint: {checkpoint_id}", when)
    repo.git("update-ref", BRANCH, commit)
    return commit


def folder_tree(repo: GitRepo, folder: Path) -> str:
    """A tree holding a folder's files verbatim (a checkpoint copied from a real branch)."""
    entries: dict[str, tuple[str, str]] = {}
    for p in sorted(folder.iterdir()):
        entries[p.name] = ("tree", folder_tree(repo, p)) if p.is_dir() else ("blob", _blob(repo, p.read_bytes()))
    return _tree(repo, entries)


def write_checkpoint_folder(repo: GitRepo, checkpoint_id: str, folder: Path, when: datetime, *,
                            layout: str = "branch") -> str:
    """``write_checkpoint`` for a checkpoint folder kept as files (tests/entire_samples)."""
    tree = folder_tree(repo, folder)
    if layout == "ref":
        commit = _commit(repo, tree, None, f"Checkpoint: {checkpoint_id}", when)
        repo.git("update-ref", f"refs/entire/checkpoints/{checkpoint_id}", commit)
        return commit
    return _add_to_branch(repo, checkpoint_id, tree, when)


def _commit(repo: GitRepo, tree: str, parent: str | None, message: str, when: datetime) -> str:
    args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
    return repo.git(*args, when=when).strip()


def write_repeated_chunks(repo: GitRepo, checkpoint_id: str, session_id: str, chunk: bytes, times: int,
                          when: datetime) -> str:
    """A checkpoint whose one session folder names the same chunk blob ``times`` times
    (``full.jsonl``, ``full.jsonl.001``, …): a few bytes of git objects that stand for ``times``
    copies of ``chunk`` put together (what a hostile clone can carry)."""
    sha = _blob(repo, chunk)
    files = {"full.jsonl" if i == 0 else f"full.jsonl.{i:03d}": ("blob", sha) for i in range(times)}
    meta = {"checkpoint_id": checkpoint_id, "session_id": session_id, "created_at": "2026-11-10T09:00:00Z",
            "agent": "Claude Code", "files_touched": []}
    files["metadata.json"] = ("blob", _blob(repo, json.dumps(meta).encode()))
    cp = {"0": ("tree", _tree(repo, files)),
          "metadata.json": ("blob", _blob(repo, json.dumps({"checkpoint_id": checkpoint_id}).encode()))}
    return _add_to_branch(repo, checkpoint_id, _tree(repo, cp), when)
