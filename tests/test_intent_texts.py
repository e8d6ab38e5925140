"""The session intent tier's texts: commit messages join the requests, and a query is encoded
by its subject, not the words that make it a question."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures_repos.writers import Transcript
from hansard.answers.search.intent import topic
from hansard.ingest.embed import build_intent_vectors, intent_text
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


def test_the_encoders_forward_pass_uses_each_layers_own_weights() -> None:
    """MiniLMEncoder._forward against a plain layer-by-layer reference, on small random weights
    (the real ones come with the semantic extra): every layer reads its own
    ``encoder.layer.{i}.*`` weights. The projection used to be a closure over the loop's
    layer prefix (ruff B023); it now takes the prefix as an argument."""
    np = pytest.importorskip("numpy")
    from hansard.answers.search.intent import MiniLMEncoder

    rng = np.random.default_rng(26)
    d, ff, vocab, t = 384, 1536, 50, 7

    def m(*shape: int) -> object:
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": m(vocab, d), "embeddings.position_embeddings.weight": m(16, d),
         "embeddings.token_type_embeddings.weight": m(2, d),
         "embeddings.LayerNorm.weight": 1 + m(d), "embeddings.LayerNorm.bias": m(d)}
    for i in range(6):
        p = f"encoder.layer.{i}."
        for name, (a, b) in {"attention.self.query": (d, d), "attention.self.key": (d, d),
                             "attention.self.value": (d, d), "attention.output.dense": (d, d),
                             "intermediate.dense": (d, ff), "output.dense": (ff, d)}.items():
            w[p + name + ".weight"], w[p + name + ".bias"] = m(a, b), m(b)  # (in, out), as __init__ keeps them
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"], w[p + norm + ".bias"] = 1 + m(d), m(d)
    enc = MiniLMEncoder.__new__(MiniLMEncoder)
    enc.w = w
    ids = rng.integers(0, vocab, (2, t))
    mask = np.ones((2, t), np.float32)
    mask[1, 5:] = 0  # the second text is shorter: padding masked

    def norm(x, g, b):
        x = x - x.mean(-1, keepdims=True)
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-12) * g + b

    def reference(row: int) -> object:
        n = int(mask[row].sum())
        x = (w["embeddings.word_embeddings.weight"][ids[row, :n]] + w["embeddings.position_embeddings.weight"][:n]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for i in range(6):
            layer = {k[len(f"encoder.layer.{i}."):]: v for k, v in w.items() if k.startswith(f"encoder.layer.{i}.")}

            def lin(h, name, layer=layer):
                return h @ layer[name + ".weight"] + layer[name + ".bias"]

            heads = []
            q, k, v = (lin(x, f"attention.self.{s}") for s in ("query", "key", "value"))
            for hd in range(12):
                sl = slice(32 * hd, 32 * hd + 32)
                a = q[:, sl] @ k[:, sl].T / np.sqrt(32.0)
                a = np.exp(a - a.max(-1, keepdims=True))
                heads.append((a / a.sum(-1, keepdims=True)) @ v[:, sl])
            x = norm(x + lin(np.concatenate(heads, 1), "attention.output.dense"),
                     layer["attention.output.LayerNorm.weight"], layer["attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))
            x = norm(x + lin(h, "output.dense"), layer["output.LayerNorm.weight"], layer["output.LayerNorm.bias"])
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)

    got = enc._forward(ids, mask)
    for row in range(2):
        assert np.allclose(got[row], reference(row), atol=1e-4)
