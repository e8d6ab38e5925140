"""`hansard show` shows what a message changed: an Edit, MultiEdit, Write or
apply_patch call prints its unified diff (coloured only on a terminal), a test command its
pass/fail summary; `--json` keeps the structured fields (hunks, counts) and no diff text."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime
from pathlib import Path

from fixtures_repos.writers import ClaudeWriter, CodexWriter, Update
from tests.helpers import run_cli

SID = "5d1ff000-1111-4111-8111-000000000005"
PYTEST_FAIL = ("============================= test session starts ==============================\n"
               "collected 3 items\n\ntests/test_cart.py .F.                                                  [100%]\n\n"
               "=========================== short test summary info ============================\n"
               "FAILED tests/test_cart.py::test_total - assert 3 == 4\n"
               "========================= 1 failed, 2 passed in 0.05s ==========================\n")


def _session(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    (repo / "cart.py").write_text("def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return len(items)\n")
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), repo, SID, datetime(2026, 11, 20, 9, 0, 0))
    w.prompt("round the total and count only positive items")
    w.edit(repo / "cart.py", "    return sum(items)\n", "    return round(sum(items), 2)\n")
    w.multi_edit(repo / "cart.py", [("def count(items):\n", "def count(items, positive=True):\n"),
                                    ("    return len(items)\n", "    return len([i for i in items if i > 0])\n")])
    w.write(repo / "NOTES.md", "# Notes\n\nTotals are rounded.\n")
    w.bash("python -m pytest tests/test_cart.py", stdout=PYTEST_FAIL)
    w.say("done")
    cw = CodexWriter(Path(os.environ["CODEX_HOME"]), repo, "019e0000-aaaa-7bbb-8ccc-000000000006",
                     datetime(2026, 11, 21, 9, 0, 0))
    cw.prompt("document count")
    cw.apply_patch(Update(repo / "cart.py", ("def count(items, positive=True):\n",
                                             "def count(items, positive=True):\n    \"\"\"How many items are positive.\"\"\"\n")))
    cw.end_turn()
    code, _, err = run_cli("index")
    assert code == 0, err
    return repo


def test_show_prints_each_edits_diff_and_the_test_summary(tmp_path: Path) -> None:
    _session(tmp_path)
    code, out, err = run_cli("show", SID[:8])
    assert code == 0, err
    # Edit
    assert "      --- a/cart.py" in out and "      +++ b/cart.py" in out
    assert "      -    return sum(items)" in out and "      +    return round(sum(items), 2)" in out
    # MultiEdit: both replacements in one diff
    assert "      -def count(items):" in out and "      +def count(items, positive=True):" in out
    assert "      +    return len([i for i in items if i > 0])" in out
    # Write of a new file
    assert "      --- /dev/null" in out and "      +++ b/NOTES.md" in out and "      +Totals are rounded." in out
    # the test run
    assert "      tests: pytest FAILED: 2 passed, 1 failed" in out and "tests/test_cart.py::test_total" in out
    assert "\x1b[" not in out  # not a terminal: no colour
    code, out, err = run_cli("show", "019e0000")
    assert code == 0, err
    assert '      +    """How many items are positive."""' in out  # apply_patch


def test_show_json_keeps_structured_fields(tmp_path: Path) -> None:
    _session(tmp_path)
    code, out, err = run_cli("show", SID[:8], "--json")
    assert code == 0, err
    data = json.loads(out)
    calls = [c for m in data["messages"] for c in m.get("tool_calls", [])]
    edit = next(c for c in calls if c["name"] == "Edit")
    assert edit["edits"][0]["path"] == "cart.py" and edit["edits"][0]["kind"] == "update"
    assert any("+    return round(sum(items), 2)" in h[4] for h in edit["edits"][0]["hunks"])
    run = next(c for c in calls if c["name"] == "Bash")["test_run"]
    assert (run["runner"], run["passed"], run["failed"], run["ok"]) == ("pytest", 2, 1, False)
    assert run["failing"] == ["tests/test_cart.py::test_total"]
    assert "@@" not in out and "\x1b[" not in out  # structured, never rendered


def test_colour_only_on_a_terminal() -> None:
    from hansard.render.recall import transcript

    data = {"session": {"provider": "claude_code", "session_id": "s", "title": None, "started_at": "t", "cwd": "/r",
                        "message_count": 1},
            "messages": [{"message_index": 0, "role": "assistant", "kind": "tool_use", "text": "Edit a.py",
                          "tool_calls": [{"call_id": "c", "name": "Edit", "status": "ok",
                                          "edits": [{"path": "a.py", "kind": "update", "status": "applied",
                                                     "hunks": [[1, 1, 1, 1, ["-x = 1", "+x = 2"]]]}]}]}]}
    assert "\x1b[31m-x = 1\x1b[0m" in transcript(data, colour=True) and "\x1b[32m+x = 2\x1b[0m" in transcript(data, colour=True)
    assert "\x1b[" not in transcript(data) and "      -x = 1" in transcript(data)
