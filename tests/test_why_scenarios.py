"""Every scenario in fixtures_repos, answered by `why`, line by line, against its exact
expectations (kind, session, tool call and commit).

Each scenario is built into its own temporary folder, indexed into a fresh store from its own
agent homes (the default homes, pointed there through the environment), then every expected
file is explained. A mismatch prints the whole file as a table of expected vs actual.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures_repos.check import answer, compare, env_for, table
from fixtures_repos.scenarios import SCENARIOS


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    answers = answer(scn)
    bad = compare(scn, answers)
    if bad:
        report = "\n\n".join(table(scn, rel, answers[rel]) for rel in bad)
        notes = f"\n\nnotes: {scn.notes}" if scn.notes else ""
        pytest.fail(f"{name}: lines differ in {', '.join(f'{r} {v}' for r, v in bad.items())}\n\n{report}{notes}",
                    pytrace=False)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_line_asked_alone_gets_the_whole_files_answer(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """A short line (an import, a blank line between an agent's functions) is answered from its
    neighbours and its commit's other lines: `why path:N`, a range holding it, the cache and `log
    path:N` must say what `why path` says of it (hansard.answers.why.agreement)."""
    from hansard.answers.why.agreement import check_file
    from hansard.app.house import Hansard

    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    whole = answer(scn)
    with Hansard(sync=False).request() as rq:  # answers kept between the questions, as `why`'s are
        for rel, doc in whole.items():
            n = len(doc["lines"])
            report = check_file(rq.store, str(scn.repo), rel, range(1, n + 1),
                                [(k, min(n, k + 4)) for k in range(1, n + 1, 3)], rev=scn.rev, keep=rq.keep)
            assert report.lines["alone"] == n
            assert not report.differences, (rel, report.differences[:3])
