"""The tie rules of hansard.link.commits.ties as a pure join of prints and commits, and the
link step's use of them (a fixup of a commit whose summary held a secret)."""

from __future__ import annotations

import json

from hansard.link.commits.kept import _history
from hansard.link.commits.ties import CommitRow, History, Print, has_fixups, prints_of, ties

KEY = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"


def _call(cmd: str, out: str, ts: str = "2026-05-04T10:00:00Z") -> tuple[str, str, str, str]:
    return ("s1", ts, json.dumps({"command": cmd}), out)


def test_prints_are_read_from_shell_output_and_commands() -> None:
    p = prints_of([_call("git commit -m x", "[main abc1234] add retry\n 1 file changed"),
                   _call("git rebase -i main", ""), _call("ls", "[main abc1234] not git")])
    assert [(x.kind, x.short, x.summary) for x in p] == [("printed", "abc1234", "add retry"), ("rewrite", "", "")]


def test_each_rule_joins_one_print_to_one_commit() -> None:
    t = 1_780_000_000
    a = CommitRow("abc1234" + "0" * 33, t, t, "add retry")
    rebased = CommitRow("def5678" + "0" * 33, t - 50, t + 100, "fix")
    fixed = CommitRow("0123abc" + "0" * 33, t - 10, t + 10, "cap the backoff")
    h = History([a, rebased, fixed])
    prints = [Print("printed", t, "printed", "abc1234", "add retry"),
              Print("rewriter", t + 30, "rewrite", "", ""),
              Print("fixer", t, "printed", "9999999", "fixup! cap the backoff"),
              Print("lost", t, "printed", "7777777", "gone")]
    was = CommitRow("7777777" + "1" * 33, t - 50, t - 50, "fix")
    got = ties(prints, h, {"7777777": was}, {was.sha: "p1", rebased.sha: "p1"})
    assert got == {a.sha: {("printed", "printed")}, rebased.sha: {("rewriter", "rewrite"), ("lost", "patch_id")},
                   fixed.sha: {("fixer", "fixup")}}  # committed before the rebase ran: not its


def test_a_fixup_of_a_summary_that_held_a_secret_still_ties() -> None:
    """The printed summary was redacted when the session was stored; git's is not."""
    from hansard.ingest.redact import redact

    t = 1_780_000_000
    c = CommitRow("0123abc" + "0" * 33, t - 10, t + 10, f"add stripe key {KEY}")
    printed = Print("fixer", t, "printed", "9999999", "fixup! " + redact(f"add stripe key {KEY}")[0])
    assert has_fixups([printed])
    assert ties([printed], History([c])) == {}
    assert ties([printed], _history([printed], [c])) == {c.sha: {("fixer", "fixup")}}
