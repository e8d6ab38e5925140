"""hansard.answers.why.bases: a commit's parent version and its own version of a file, read
from git, are the normal-form hashes of the lines git holds, whatever their bytes (invalid
UTF-8, carriage returns) or their size, the same when two commits share one blob."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hansard.answers.why.bases import Bases
from hansard.git.blame import blame
from hansard.store import open_store
from hansard.text.textnorm import line_hash

V1 = b"package main\n\nfunc caf\xe9() {\r\n\treturn nil\n}\n"
V2 = b"package main\n\nfunc caf\xe9() {\r\n\tx := \"\xe2\x82\"\n\treturn nil\n}\n"
V3 = b"package main\n\nfunc caf\xe9() {\r\n\tx := \"\xe2\x82\"\n\treturn x\n}\n// \xf0\x9f\x98\x80 done\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _hashes(body: bytes) -> list[int]:
    return [line_hash(x) for x in body.decode("utf-8", "surrogateescape").split("\n")]


def _commits(repo: Path, *bodies: bytes) -> list[str]:
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    shas = []
    for n, body in enumerate(bodies):
        (repo / "a.go").write_bytes(body)
        (repo / f"other{n}.txt").write_text(f"{n}\n")
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", f"v{n + 1}")
        shas.append(_git(repo, "rev-parse", "HEAD"))
    return shas


def test_parent_and_own_versions_are_the_hashes_of_the_lines_git_holds(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shas = _commits(repo, V1, V2, V3)
    bl = blame(str(repo), "a.go")
    assert {shas[1], shas[2]} <= set(bl.commits)
    store = open_store(tmp_path / "hansard.db")
    try:
        bases = Bases(store, str(repo), bl)
        bases.want([shas[1], shas[2]])
        bases.want_versions([(shas[1], "a.go"), (shas[2], "a.go")])
        bases.start()
        assert bases.parent(shas[2]) == frozenset(_hashes(V2))
        assert bases.parent(shas[1]) == frozenset(_hashes(V1))
        assert bases.at_commit(shas[2], "a.go") == _hashes(V3)
        assert bases.at_commit(shas[1], "a.go") == _hashes(V2)  # the blob of shas[2]'s parent
        assert bases.at_commit(shas[0], "a.go") == _hashes(V1)  # not wanted: read when asked
        assert bases.at_commit(shas[2], "gone.go") == []
        bases.stop()
    finally:
        store.close()


def test_a_parent_version_of_megabytes_is_read_whole(tmp_path: Path) -> None:
    big = b"".join(b"\tv%d := compute(%d)\n" % (k, k) for k in range(120_000))  # about 2.5 MB
    repo = tmp_path / "repo"
    shas = _commits(repo, big, big + b"\treturn nil\n")
    bl = blame(str(repo), "a.go")
    store = open_store(tmp_path / "hansard.db")
    try:
        bases = Bases(store, str(repo), bl)
        got = bases.parent(shas[1])
        assert len(got) == 120_001 and got == frozenset(_hashes(big))
    finally:
        store.close()


def test_parents_read_ahead_are_the_same_hashes_and_not_read_again(tmp_path: Path) -> None:
    from hansard.answers.why.bases import ParentsAhead

    repo = tmp_path / "repo"
    shas = _commits(repo, V1, V2, V3)
    bl = blame(str(repo), "a.go")
    store = open_store(tmp_path / "hansard.db")
    try:
        # shas[2]'s parent read ahead, shas[1]'s not, and one version no commit asks for
        ahead = ParentsAhead(str(repo), [f"{shas[1]}:a.go", f"{shas[0]}:gone.go"])
        bases = Bases(store, str(repo), bl, ahead=ahead)
        bases.want([shas[1], shas[2]])
        bases.start()
        assert bases._reading is not None and set(bases._reading[0]) == {shas[1]}  # only what was not read ahead
        assert bases.parent(shas[2]) == frozenset(_hashes(V2))
        assert bases.parent(shas[1]) == frozenset(_hashes(V1))
        bases.stop()
        # everything read ahead: nothing read after
        ahead = ParentsAhead(str(repo), [f"{shas[0]}:a.go", f"{shas[1]}:a.go"])
        ahead.hash_while(None)  # no blame of this process's to wait for: nothing hashed yet
        bases = Bases(store, str(repo), bl, ahead=ahead)
        bases.want([shas[1], shas[2]])
        bases.start()
        assert bases._reading is None
        assert bases.parent(shas[2]) == frozenset(_hashes(V2))
        assert bases.parent(shas[1]) == frozenset(_hashes(V1))
        bases.stop()
    finally:
        store.close()
