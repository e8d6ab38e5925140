"""What was asked for an edit: the request that carried the intent, not the
"yes" or the menu choice that let the agent go ahead; the last turn beside it when it is another
message; the session's first request or title when nothing before the edit asked anything. The
JSON keeps each one's message index; `why`, the hover and the code lens show the request."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from hansard.answers.asked import asked, first_request, is_acknowledgement, judged
from tests.helpers import real_write_repo, run_cli

SAMPLES = Path(__file__).parent / "entire_samples"
# A real Claude Code session (entireio/cli, tests/entire_samples/PROVENANCE.md): a request, a
# follow-up request, "I like Option C", "yes", then the Write of CHANGELOG.md.
CHANGELOG_CP = "6061721bc409"
CHANGELOG_SID = "22c5d52e-9602-4ffe-aaa1-0265b115ef3d"

# The shapes real transcripts show (the entireio/cli checkpoints' own user turns before edits).
ACKS = ["yes", "Yes.", "yes please", "yes, please do", "Do it.", "yep let's do it", "ok, let's do this",
        "ok, let's implement this", "yeah, let's give it a try", "let's try 2=", "1+2", "3", "yes do option 1",
        "yes, let's go with A", "I like Option C", "go ahead", "continue", "Continue!", "yeah 2 and 3", "b)",
        "yes, exactly, please implement this.", "oui", "ja, bitte", "sí, dale", "好的", "继续", "はい", "да", "",
        "<ide_opened_file>The user opened the file /Users/a/x.go in the IDE.</ide_opened_file>"]
REQUESTS = ["fix tests", "commit this", "Implement the following plan:\n\n# Plan: change the folder indexing",
            "hmm but panics in code are not great either, any other option?", "yes, write up the design doc",
            "yeah I feel the prefix is redundant", "add a capped exponential backoff", "why is lint failing?",
            "<ide_selection>The user selected lines 3 to 9</ide_selection> what does this do?",
            "yes " * 20]


@pytest.mark.parametrize("text", ACKS)
def test_acknowledgements_and_menu_choices_are_not_requests(text: str) -> None:
    assert is_acknowledgement(text)


@pytest.mark.parametrize("text", REQUESTS)
def test_requests_are_requests(text: str) -> None:
    assert not is_acknowledgement(text)


def test_the_request_is_the_newest_prompt_that_asks_something() -> None:
    prompts = judged([(0, "add a changelog"), (24, "also credit external contributors"), (30, "I like Option C"),
                      (32, "yes"), (40, "now bump the version"), (44, "ok")])
    first = first_request(prompts)
    assert first == 0
    assert asked(prompts, 33, first) == {"request": 24, "turn": 32}
    assert asked(prompts, 24, first) == {"request": 24, "turn": 24}
    assert asked(prompts, 45, first) == {"request": 40, "turn": 44}
    assert asked(prompts, 30, first) == {"request": 24, "turn": 30}
    # nothing asked before the edit: the session's first request, said so
    assert asked(judged([(0, "go ahead"), (5, "add a changelog")]), 3, 5) == \
        {"request": 5, "turn": 0, "fallback": "first_request"}
    # nothing asked at all: the title (the reader's), said so
    assert asked(judged([(0, "yes")]), 3, None) == {"request": None, "turn": 0, "fallback": "title"}
    assert asked([], 3, None) == {"request": None, "turn": None, "fallback": "title"}


def _keyed(repo: Any, ident: str) -> str:
    """The id a session (or tool call) read from ``repo``'s checkpoints is stored under."""
    return f"{ident}@{repo.git('rev-list', '--max-parents=0', 'HEAD').split()[0][:12]}"


def _changelog_repo(tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    from fixtures_repos.entire import write_checkpoint_folder

    repo, write = real_write_repo(tmp_path, SAMPLES / CHANGELOG_CP / "0" / "full.jsonl", "CHANGELOG.md",
                                  f"adding changelog\n\nEntire-Checkpoint: {CHANGELOG_CP}\n",
                                  datetime(2026, 2, 12, 9, 0, 0), datetime(2026, 2, 12, 12, 19, 40))
    write_checkpoint_folder(repo, CHANGELOG_CP, SAMPLES / CHANGELOG_CP, datetime(2026, 2, 12, 12, 19, 45))
    assert run_cli("index", str(repo.path))[0] == 0
    return repo, write


def test_a_real_session_whose_last_turn_is_yes_quotes_the_request(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The real session's last turn before its Write is "yes", and the one before "I like
    Option C": `why` quotes the request before them, then the "yes", and the JSON names each
    by its message index."""
    repo, write = _changelog_repo(tmp_path)
    monkeypatch.chdir(repo.path)
    rc, out, err = run_cli("why", "CHANGELOG.md:3", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    ln = doc["lines"][0]
    sid = _keyed(repo, CHANGELOG_SID)  # read from the repository's checkpoints: keyed apart
    assert (ln["kind"], ln["session_id"], ln["tool_call_id"]) == ("agent", sid, _keyed(repo, write["id"]))
    s = doc["sessions"][sid]
    a = s["asked"][str(ln["message_index"])]
    assert s["prompts"][str(a["turn"])] == "yes"
    assert s["prompts"][str(a["request"])].startswith("Can you also check some repos do a specific mention")
    assert s["prompts"][str(s["first_request"])].startswith("I'd like to generate a changelog")
    assert a["request"] < a["turn"] < ln["message_index"] and "fallback" not in a
    assert s["prompt"] == s["prompts"][str(a["request"])]

    rc, out, err = run_cli("why", "CHANGELOG.md:3")
    assert rc == 0, err
    lines = [x for x in out.splitlines() if not x.startswith("  read from")]  # the repository's record
    assert lines[3].startswith('  asked        "Can you also check some repos do a specific mention') \
        and lines[3].endswith(f"(message {a['request']})"), lines
    assert lines[4] == f'  then         "yes" (message {a["turn"]})', lines
    assert lines[5].startswith("  first asked  \"I'd like to generate a changelog"), lines
    assert not any("asked        \"yes\"" in x for x in lines)


def test_the_editor_shows_the_request_not_the_yes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The code lens and the hover, built from the same answer, quote the request."""
    from hansard.lsp import core, marks

    repo, _ = _changelog_repo(tmp_path)
    monkeypatch.chdir(repo.path)
    ans = json.loads(run_cli("why", "CHANGELOG.md", "--json")[1])
    lens = [b for b in marks.blocks(ans, core.provider_name) if b.session_id == _keyed(repo, CHANGELOG_SID)]
    assert lens and all('"Can you also check some repos' in b.label for b in lens)
    assert not any('"yes"' in b.label for b in lens)
    hover = marks.hover_markdown(ans, ans["lines"][2], core.provider_name, core.evidence)
    assert "> Can you also check some repos" in hover and "then yes" in hover


def test_the_web_page_shows_the_request_then_the_yes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hansard.web import core, pages
    from hansard.web.html import Links

    repo, _ = _changelog_repo(tmp_path)
    top = core.repo_top(str(repo.path))
    with core.application().request() as rq:  # one page's request
        ans = core.file_answer(rq, top, "CHANGELOG.md")
        html = str(pages.conversation(Links("t"), "CHANGELOG.md", core.line_view(rq, top, ans, 3)))
    prompt = html.split('<blockquote class="prompt">')[1].split("</blockquote>")[0]
    assert prompt.startswith("Can you also check some repos do a specific mention"), prompt
    assert '<p class="then dim">then: <q>yes</q></p>' in html
    assert "first asked: <q>I&#39;d like to generate a changelog" in html
