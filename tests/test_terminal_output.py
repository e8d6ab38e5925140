"""Control characters that git, a transcript or a file carries never reach a terminal as they
are: every text output shows them as escapes (hansard.text.terminal), colour or not; JSON keeps the
exact text, escaped by its encoder. A commit `x \\e]0;PWNED\\a\\e[2J` once retitled and cleared
the terminal of whoever ran `hansard why` on its lines."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from hansard.text.terminal import json_bytes, json_text, paint, painted_lines, visible
from tests.helpers import run_cli

SID = "6a2b9c1d-0e3f-4a5b-8c7d-9e0f1a2b3c4d"
T0 = datetime(2026, 4, 2, 9, 0, tzinfo=UTC)
# What a hostile commit, file or transcript holds: a window title (OSC 0), a screen clear (CSI),
# a hidden link (OSC 8), a carriage return that writes over the line, an 8-bit CSI, a bidi override.
TITLE = "\x1b]0;PWNED\x07"
CLEAR = "\x1b[2J"
LINK = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
HOSTILE = f"x {TITLE}{CLEAR} {LINK} safe\rEVIL \x9b31m \u202ereversed"
# Nothing a terminal acts on: no C0 control but newline and tab, no DEL, no C1, no bidi control.
ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_visible_shows_each_control_as_its_escape() -> None:
    out = visible(HOSTILE)
    assert not ACTIVE.search(out)
    assert out == ("x \\x1b]0;PWNED\\x07\\x1b[2J \\x1b]8;;https://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\ "
                   "safe\\rEVIL \\x9b31m \\u202ereversed")
    assert visible("a\tb\r\nc\n") == "a\tb\r\nc\n"  # tabs, newlines and CRLF line ends stay
    plain = "nothing to escape: ünïcode, emoji 🙂, tabs\t"
    assert visible(plain) is plain


def test_painted_text_keeps_only_hansards_own_colours() -> None:
    text = painted_lines(["plain " + CLEAR, paint("+added " + TITLE, "32")])
    assert text == "plain \\x1b[2J\n\x1b[32m+added \\x1b]0;PWNED\\x07\x1b[0m"
    assert visible(text) is text


def test_json_keeps_the_exact_text() -> None:
    doc = json.dumps({"s": HOSTILE}, ensure_ascii=False)
    for out in (json_text(doc), json_bytes(doc.encode()).decode()):
        assert not ACTIVE.search(out) and json.loads(out) == {"s": HOSTILE}


def test_json_of_ascii_alone_is_kept_as_it_is_but_for_delete() -> None:
    doc = json.dumps({"s": "plain text", "n": [1, 2]})
    assert json_text(doc) is doc and json_bytes(doc.encode()) == doc.encode()
    doc = json.dumps({"s": "rub\x7fout"}, ensure_ascii=False)  # ASCII, but a control character
    assert json_text(doc) == json_bytes(doc.encode()).decode() == '{"s": "rub\\u007fout"}'


@pytest.fixture
def hostile_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A repository whose commit message and file line hold escapes, and a session (its prompt
    and reply hold them too) that wrote the line."""
    r = GitRepo.init(tmp_path / "app")
    r.write("a.py", "def f():\n    return 1\n")
    r.commit("start", T0)
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r.path, SID, T0 + timedelta(minutes=1))
    w.prompt(f"add the banner {HOSTILE}")
    line = f"    banner = {HOSTILE!r}  # {TITLE}\n"
    w.edit(r.path / "a.py", "    return 1\n", line + "    return 1\n")
    w.say(f"added the banner {HOSTILE}")
    r.commit(f"x {TITLE}{CLEAR} banner {LINK}", T0 + timedelta(minutes=5))
    monkeypatch.chdir(r.path)
    rc, _, err = run_cli("index")
    assert rc == 0, err
    return r


@pytest.mark.parametrize("args", [
    ("why", "a.py:2"), ("why", "a.py"), ("why", "a.py:1-3"), ("show", SID), ("show", SID, "--all"), ("sessions",),
    ("history", "banner"), ("context", SID), ("log", "a.py"),
])
def test_no_text_output_carries_a_control_character(hostile_repo: GitRepo, args: tuple[str, ...]) -> None:
    rc, out, err = run_cli(*args)
    assert rc == 0, err
    assert not ACTIVE.search(out) and not ACTIVE.search(err), repr(ACTIVE.findall(out + err))
    if args[0] in ("why", "show", "history"):
        assert "\\x1b]0;PWNED\\x07" in out  # shown, not dropped


def test_why_json_keeps_the_text_escaped(hostile_repo: GitRepo) -> None:
    rc, out, _ = run_cli("why", "a.py:2", "--json")
    assert rc == 0 and not ACTIVE.search(out)
    ans = json.loads(out)
    assert TITLE in ans["lines"][0]["content"]
    assert any(TITLE in c["summary"] for c in ans["commits"].values())
