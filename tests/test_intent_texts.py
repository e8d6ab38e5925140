"""The session intent tier's texts: commit messages join the requests, and a query is encoded
by its subject, not the words that make it a question."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures_repos.writers import Transcript
from hansard.answers.search.intent import build_intent_vectors, intent_text, topic
from hansard.ingest.run import index
from hansard.store import open_store


@pytest.fixture(autouse=True)
def _no_background(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANSARD_NO_BACKGROUND", "1")


def test_intent_text_is_a_commit_calls_message() -> None:
    assert intent_text("git commit -am 'Fix upload retry: crashes on empty input'") == \
        "Fix upload retry: crashes on empty input"
    assert intent_text('git add -A && git commit -m "Add backoff" -m "Capped at 30 s"') == "Add backoff\nCapped at 30 s"
    assert intent_text('git commit --message="Retry uploads"') == "Retry uploads"
    heredoc = ("git commit -m \"$(cat <<'EOF'\nAdd capped backoff\n\nUploads retried at once.\n\n"
               "Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"")
    assert intent_text(heredoc) == "Add capped backoff\n\nUploads retried at once."  # no trailer
    # no message to take: the command stands for itself; any other text is itself
    assert intent_text("git commit --amend --no-edit") == "git commit --amend --no-edit"
    assert intent_text("The upload retry crashes.") == "The upload retry crashes."


def test_topic_drops_the_words_that_only_ask() -> None:
    assert topic("did we fix the resending documents after a broken transfer") == \
        "resending documents after a broken transfer"
    assert topic("which retry policy did we choose for uploads") == "retry policy did we choose for uploads"
    assert topic("upload retry") == "upload retry"
    assert topic("did we fix it") == "fix it"  # two words are always kept
    assert topic("send_chunk") == "send_chunk"


class WordSet:
    """A stand-in encoder that records what it was asked to embed."""

    id = "test-words"
    dim = 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: list[str]):
        import numpy as np

        self.seen += texts
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w) % self.dim] += 1.0
        out[:, -1] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_a_sessions_commit_message_is_one_of_its_intent_texts(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    d = open_store()
    t = Transcript("sess-commit", cwd="/work/app")
    t.user("Please look at the uploads.")
    t.tool("Bash", {"command": "pytest -q"}, "3 passed")
    t.tool("Bash", {"command": "git commit -am 'Fix upload retry: crashes on empty input'"}, "[main abc1234] Fix")
    t.assistant("Committed.")
    t.write(tmp_path / "c")
    index(d, [tmp_path / "c"])
    enc = WordSet()
    counts = build_intent_vectors(d.search, enc)
    # the request, the commit's message (not the command, not the test run), the last answer
    assert counts["texts"] == 3
    assert sorted(enc.seen) == ["Committed.", "Fix upload retry: crashes on empty input", "Please look at the uploads."]
