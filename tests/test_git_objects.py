"""hansard.git.objects.CatFile on a real repository: an object over the caller's ``max_bytes``
is None, is read past without being held in memory, and the objects asked after it still come
back whole (the stream stays in step)."""

from __future__ import annotations

import tracemalloc
from datetime import datetime
from pathlib import Path

from fixtures_repos.gitrepo import GitRepo
from hansard.git.objects import CatFile

T0 = datetime(2026, 11, 10, 9, 0, 0)
BIG = 16 << 20


def test_an_object_over_max_bytes_is_passed_over_not_held(tmp_path: Path) -> None:
    repo = GitRepo.init(tmp_path / "app")
    (repo.path / "big.bin").write_bytes(b"x" * BIG)
    repo.write("small.txt", "kept\n")
    repo.commit("two files", T0)
    big, small = repo.git("rev-parse", "HEAD:big.bin").strip(), repo.git("rev-parse", "HEAD:small.txt").strip()
    with CatFile(str(repo.path)) as cat:
        tracemalloc.start()
        try:
            assert cat.get(big, max_bytes=1 << 20) is None
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < BIG // 4, peak  # read past a block at a time
        assert cat.get(small, max_bytes=1 << 20) == ("blob", b"kept\n")
        assert cat.get_many([big, small, big], max_bytes=1 << 20) == [None, ("blob", b"kept\n"), None]
        got = cat.get(big)
        assert got is not None and got[0] == "blob" and len(got[1]) == BIG
