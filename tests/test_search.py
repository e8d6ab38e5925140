"""search_past_sessions / `hansard history`: keyword search, filters, fields, modes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures_repos.writers import Transcript
from hansard.answers.search import query as qmod
from hansard.answers.search.hybrid import rrf
from hansard.answers.search.sessions import cap_answer, search_past_sessions
from hansard.errors import InvalidArgument, NaiveDateTime
from hansard.ingest.run import index, rebuild
from hansard.store import open_store
from hansard.store.sqlite.search import fts_all, fts_any, fts_exclude
from hansard.store.types import Candidate
from tests.helpers import WordsEmbedder, cli_json, run_cli

HIT_FIELDS = {"session_id", "title", "provider", "message_index", "role", "kind", "excerpt", "score", "matched_by",
              "started_at_local", "timestamp_local"}
ANSWER_FIELDS = {"query", "mode", "results", "total", "total_exact", "returned", "truncated", "results_omitted",
                 "indexed_from", "indexed_through", "backfill_complete", "index_built_at", "indexing_paused"}


@pytest.fixture(autouse=True)
def _no_background(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANSARD_NO_BACKGROUND", "1")
    from hansard import agents

    for var in ["HANSARD_SESSION_ID"] + [v for a in agents.agents() for v in a.session_env]:
        monkeypatch.delenv(var, raising=False)


def _corpus(folder: Path) -> Path:
    a = Transcript("sess-alpha", cwd="/work/app", start="2026-03-01T10:00:00")
    a.user("please add retry with backoff to fetch_data in src/net.py")
    a.assistant("I will add a capped exponential backoff around the upload call.")
    a.tool("Bash", {"command": "pytest tests/test_net.py -q"}, "3 passed, 1 failed: test_timeout_zebra")
    a.tool("Read", {"file_path": "/work/app/src/net.py"}, "def fetch_data(url):\n    return get(url)\n")
    a.assistant("Committed as [main 4be1c0ffee] Add capped backoff to the upload retry.")
    a.write(folder)
    b = Transcript("sess-beta", cwd="/work/other", start="2026-03-05T22:30:00")
    b.user("why does the kiwi parser crash on empty input")
    b.assistant("kiwi kiwi kiwi: the kiwi parser reads past the end of the buffer.")
    b.assistant("the kiwi parser and the mango lexer share the buffer; empty input crashes both.")
    b.tool("Bash", {"command": "cargo test --package kiwi"}, "test result: ok. 12 passed")
    b.write(folder)
    c = Transcript("sess-gamma", cwd="/work/app", start="2026-03-08T09:00:00")
    c.user("rename the mango helper and update the changelog entry for the release")
    c.assistant("Done: the helper is renamed.")
    c.user("rename the mango helper and update the changelog entry for the release")  # a re-sent prompt
    c.assistant("Renamed again and updated the changelog entry for release 2.")
    c.write(folder)
    return folder


@pytest.fixture
def db(tmp_path: Path):
    d = open_store()
    index(d, [_corpus(tmp_path / "t")])
    return d


def _ids(ans: dict) -> list[tuple[str, int]]:
    return [(h["session_id"], h["message_index"]) for h in ans["results"]]


def _ranked(ans: dict) -> list[tuple[str, int]]:
    """Every message shown, in rank order: each result, then its session's further hits."""
    return [(h["session_id"], m["message_index"]) for h in ans["results"] for m in [h, *h.get("more_hits", [])]]


# -- fields -------------------------------------------------------------------------


def test_every_answer_and_hit_field(db) -> None:
    ans = search_past_sessions(db, "backoff retry fetch_data", limit=5)
    assert ANSWER_FIELDS <= set(ans)
    assert ans["mode"] == "keyword" and "mode_notice" not in ans
    assert ans["returned"] == len(ans["results"]) >= 1
    h = ans["results"][0]
    assert HIT_FIELDS <= set(h)
    assert (h["session_id"], h["message_index"]) == ("sess-alpha", 0)
    assert h["matched_by"] == "keyword" and h["provider"] == "claude_code" and h["role"] == "user"
    assert "«retry»" in h["excerpt"] and "«backoff»" in h["excerpt"]
    assert h["started_at_local"] == "2026-03-01T10:00:07+00:00"  # TZ=UTC in tests: offset still shown
    assert ans["indexed_through"] and ans["indexed_from"] and ans["backfill_complete"] is True
    assert ans["index_built_at"] and ans["indexing_paused"] is False


def test_started_at_local_carries_the_local_offset(db, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        h = search_past_sessions(db, "kiwi crash empty input")["results"][0]
        assert h["started_at_local"].endswith("+05:30")
        assert h["started_at_local"].startswith("2026-03-06T04:00")  # 22:30:07Z + 5:30
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()


def test_indexed_through_on_an_empty_answer(db, tmp_path: Path) -> None:
    ans = search_past_sessions(db, "nothingmatchesthisword")
    assert ans["results"] == [] and ans["total"] == 0 and ans["returned"] == 0
    assert ans["indexed_through"].startswith("2026-03-08") and ans["backfill_complete"] is True
    # A store with nothing indexed yet says so.
    import os

    os.environ["HANSARD_HOME"] = str(tmp_path / "fresh")
    empty = search_past_sessions(open_store(), "anything")
    assert empty["indexed_through"] is None and empty["backfill_complete"] is False and empty["results"] == []


# -- query syntax and ranking ---------------------------------------------------------


def test_all_terms_rank_above_some(db) -> None:
    # sess-beta #1 repeats "kiwi" four times (high bm25 for kiwi alone); #2 covers both terms.
    ans = search_past_sessions(db, "kiwi mango", hits_per_session=3, limit=10)
    ranked = _ranked(ans)
    assert ranked.index(("sess-beta", 2)) < ranked.index(("sess-beta", 1))
    top = ans["results"][0]
    assert (top["session_id"], top["message_index"]) == ("sess-beta", 2)


def test_a_message_covering_every_term_ranks_first(tmp_path: Path) -> None:
    # One session says "zebra" over and over (bm25 loves it); another says each word once.
    d = open_store()
    some = Transcript("sess-some", cwd="/work/app", start="2026-04-01T10:00:00")
    some.user("zebra zebra zebra zebra zebra zebra: the zebra upload keeps failing on zebra files")
    some.write(tmp_path / "c")
    every = Transcript("sess-every", cwd="/work/app", start="2026-03-01T10:00:00")
    every.user("a long note that mentions the quokka once and the zebra once, in passing, among other things")
    every.write(tmp_path / "c")
    index(d, [tmp_path / "c"])
    for mode in ("keyword", "hybrid"):
        ans = search_past_sessions(d, "zebra quokka", mode=mode, embedder=HashEmbedder())
        assert [h["session_id"] for h in ans["results"]] == ["sess-every", "sess-some"], mode
    from hansard.ingest.embed import build_vectors

    build_vectors(d.search, HashEmbedder())
    ans = search_past_sessions(d, "zebra quokka", mode="hybrid", embedder=HashEmbedder())
    assert ans["mode"] == "hybrid" and ans["results"][0]["session_id"] == "sess-every"


def test_phrase_or_and_exclusion(db) -> None:
    assert ("sess-beta", 2) in _ids(search_past_sessions(db, '"mango lexer"', hits_per_session=5))
    assert _ids(search_past_sessions(db, '"lexer mango"')) == []
    either = {s for s, _ in _ids(search_past_sessions(db, "zebra or lexer", limit=10))}
    assert either == {"sess-alpha", "sess-beta"}
    no_kiwi = _ids(search_past_sessions(db, "buffer -kiwi", hits_per_session=5))
    assert ("sess-beta", 1) not in no_kiwi and ("sess-beta", 2) not in no_kiwi


def test_identifiers_and_paths_are_found(db) -> None:
    for q in ("fetch_data", "src/net.py", "etch_dat", "test_net.py", "4be1c0ffee"):
        ans = search_past_sessions(db, q, hits_per_session=5)
        assert any(h["session_id"] == "sess-alpha" for h in ans["results"]), q


def test_tool_inputs_and_outputs_are_searchable(db) -> None:
    out = search_past_sessions(db, "test_timeout_zebra")["results"]
    assert out and out[0]["role"] == "tool"
    cmd = search_past_sessions(db, "cargo package", roles=["assistant"])["results"]
    assert cmd and cmd[0]["kind"] == "tool_use" and cmd[0]["session_id"] == "sess-beta"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60))
def test_raw_user_text_never_raises(db, text: str) -> None:
    ans = search_past_sessions(db, text, limit=3)
    assert isinstance(ans["results"], list)
    q = qmod.parse(text)
    for expr in (fts_all(q), fts_any(q), fts_exclude(q)):
        if expr:
            db.db.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?", (expr,)).fetchone()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(['"', "-", "*", "or", "OR", "AND", "NOT", "NEAR(", ")", "(", ":", "^", "fetch_data",
                                 "a.b/c", "-\"x", "{", "}", "é", "\x00", "--", "**"]), max_size=8))
def test_fts_operators_in_user_text_never_raise(db, parts: list[str]) -> None:
    search_past_sessions(db, " ".join(parts))
    search_past_sessions(db, "".join(parts))


# -- filters --------------------------------------------------------------------------


def test_roles_provider_tool_command_file_commit(db) -> None:
    users = search_past_sessions(db, "mango", roles="user", limit=10)["results"]
    assert users and all(h["role"] == "user" for h in users)
    assert search_past_sessions(db, "mango", provider="codex")["results"] == []
    assert search_past_sessions(db, "mango", provider="claude")["results"]
    shell = search_past_sessions(db, "passed", tool="Bash", hits_per_session=5, limit=10)["results"]
    assert shell and all(h["kind"] in ("tool_use", "tool_result") for h in shell)
    assert search_past_sessions(db, "passed", tool="shell", limit=10)["results"]  # alias
    cargo = search_past_sessions(db, "passed", command="cargo test", limit=10)["results"]
    assert {h["session_id"] for h in cargo} == {"sess-beta"}
    by_file = search_past_sessions(db, "backoff", file="src/net.py", limit=10)["results"]
    assert {h["session_id"] for h in by_file} == {"sess-alpha"}
    assert search_past_sessions(db, "kiwi", file="src/net.py")["results"] == []
    by_commit = search_past_sessions(db, "backoff", commit="4be1c0f")["results"]
    assert {h["session_id"] for h in by_commit} == {"sess-alpha"}
    with pytest.raises(InvalidArgument):
        search_past_sessions(db, "x", commit="not-a-sha")
    with pytest.raises(InvalidArgument):
        search_past_sessions(db, "x", roles="robot")


def test_since_until_dates_cover_the_local_day(db, monkeypatch: pytest.MonkeyPatch) -> None:
    # sess-beta runs at 2026-03-05T22:30Z: on the 5th in UTC, on the 6th in Tokyo (+09:00).
    assert search_past_sessions(db, "kiwi", since="2026-03-05", until="2026-03-05")["results"]
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert search_past_sessions(db, "kiwi", since="2026-03-05", until="2026-03-05")["results"] == []
        assert search_past_sessions(db, "kiwi", since="2026-03-06", until="2026-03-06")["results"]
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
    assert search_past_sessions(db, "kiwi", since="2026-03-05T23:30:00+01:00")["results"]
    assert search_past_sessions(db, "kiwi", until="2026-03-05T23:00:00+01:00")["results"] == []
    assert search_past_sessions(db, "kiwi", until="2026-03-05T22:30:07Z")["results"]  # until is inclusive


def test_naive_datetime_is_refused(db) -> None:
    with pytest.raises(NaiveDateTime) as exc:
        search_past_sessions(db, "kiwi", since="2026-03-05T10:00:00")
    assert exc.value.code == "naive_datetime" and "UTC offset" in exc.value.message
    code, out, err = run_cli("history", "kiwi", "--until", "2026-03-05 10:00", "--no-sync", "--json")
    assert code == 20 and json.loads(out)["error"]["code"] == "naive_datetime"
    code, _, err = run_cli("history", "kiwi", "--since", "yesterday", "--no-sync")
    assert code == 21 and "invalid_date" in err


def test_calling_conversation_is_excluded(db, monkeypatch: pytest.MonkeyPatch) -> None:
    assert {h["session_id"] for h in search_past_sessions(db, "mango", limit=10)["results"]} == {"sess-beta", "sess-gamma"}
    ans = search_past_sessions(db, "mango", limit=10, exclude_session_id="sess-gamma")
    assert {h["session_id"] for h in ans["results"]} == {"sess-beta"} and ans["excluded_session_id"] == "sess-gamma"
    monkeypatch.setenv("CLAUDE_SESSION_ID", "sess-beta")
    out = cli_json("history", "mango", "--no-sync")
    assert {h["session_id"] for h in out["results"]} == {"sess-gamma"}
    out = cli_json("history", "mango", "--no-sync", "--include-current")
    assert {h["session_id"] for h in out["results"]} == {"sess-beta", "sess-gamma"}


def test_subagents_web_and_team_flags_are_accepted(samples: Path) -> None:
    db = open_store()
    index(db, [samples / "claude-code"])
    sub = db.db.execute("SELECT session_id FROM sessions WHERE parent_session_id IS NOT NULL LIMIT 1").fetchone()[0]
    q = db.db.execute("SELECT text FROM messages m JOIN sessions s ON s.id=m.session_id WHERE s.session_id=?"
                   " AND m.role='assistant' AND length(text) > 20 LIMIT 1", (sub,)).fetchone()[0]
    words = " ".join(q.split()[:4])
    without = {h["session_id"] for h in search_past_sessions(db, words, limit=20)["results"]}
    with_sub = {h["session_id"] for h in search_past_sessions(db, words, include_subagents=True, limit=20)["results"]}
    assert sub not in without and sub in with_sub
    ans = search_past_sessions(db, words, include_web_chats=True, include_team_sessions=True, team="core")
    assert "no team sessions" in ans["notice"]


# -- grouping, limits, size ------------------------------------------------------------


def test_hits_per_session_and_more_hits(db) -> None:
    one = search_past_sessions(db, "kiwi", limit=10)
    beta = [h for h in one["results"] if h["session_id"] == "sess-beta"]
    assert len(beta) == 1 and beta[0]["more_hits"]
    assert all(set(m) == {"message_index", "role"} for m in beta[0]["more_hits"])
    three = search_past_sessions(db, "kiwi", hits_per_session=3, limit=10)
    beta = [h for h in three["results"] if h["session_id"] == "sess-beta"]
    assert len(beta) == 1  # one result per session; its further matches are in more_hits
    shown = [m for m in beta[0]["more_hits"] if "excerpt" in m]
    assert len(shown) == 2 and len({beta[0]["message_index"], *(m["message_index"] for m in shown)}) == 3
    assert all("session_id" not in m and m["matched_by"] == "keyword" for m in shown)
    assert all("excerpt" not in m for m in beta[0]["more_hits"][2:])
    two = search_past_sessions(db, "kiwi", hits_per_session=2, limit=10)
    sids = [h["session_id"] for h in two["results"]]
    assert len(sids) == len(set(sids))
    assert all(m["message_index"] != h["message_index"] for h in two["results"] for m in h.get("more_hits", []))
    assert search_past_sessions(db, "kiwi", hits_per_session=99)["results"]  # clamped to 5
    assert len(search_past_sessions(db, "the", limit=50)["results"]) <= 20
    with pytest.raises(InvalidArgument):
        search_past_sessions(db, "kiwi", limit=0)


def test_group_revisions(db) -> None:
    grouped = search_past_sessions(db, "rename mango helper changelog", hits_per_session=5)
    g = [m for h in grouped["results"] for m in [h, *h.get("more_hits", [])] if m["role"] == "user"]
    assert len(g) == 1 and g[0]["revisions"] == [0, 2] and g[0]["latest_revision"] == 2
    flat = search_past_sessions(db, "rename mango helper changelog", hits_per_session=5, group_revisions=False)
    shown = [m for h in flat["results"] for m in [h, *h.get("more_hits", [])]]
    assert sorted(m["message_index"] for m in shown if m["role"] == "user") == [0, 2]
    assert all("revisions" not in m for m in shown)


def test_total_counts_sessions_and_omitted_is_the_rest(db) -> None:
    # "kiwi" is in four messages of sess-beta and nowhere else
    ans = search_past_sessions(db, "kiwi", limit=5)
    assert ans["total"] == 1 and ans["returned"] == 1 and ans["results_omitted"] == 0 and not ans["truncated"]
    many = search_past_sessions(db, "kiwi or mango or backoff", limit=1)
    assert many["total"] == 3 and many["returned"] == 1 and many["results_omitted"] == 2 and many["truncated"]
    wide = search_past_sessions(db, "kiwi or mango or backoff", limit=10)
    assert wide["total"] == wide["returned"] == 3 and wide["results_omitted"] == 0


def test_size_cap_drops_hits_and_counts_them(db) -> None:
    ans = search_past_sessions(db, "kiwi or mango or backoff", limit=10)
    n = ans["returned"]
    capped = cap_answer(json.loads(json.dumps(ans)), 1500)
    assert capped["results_omitted"] >= 1 and capped["returned"] == n - capped["results_omitted"]
    assert capped["truncated"] is True and len(json.dumps(capped)) < len(json.dumps(ans))
    assert capped["results"] == ans["results"][: capped["returned"]]


def test_empty_query_lists_recent_messages(db) -> None:
    ans = search_past_sessions(db, "", limit=3)
    assert [h["session_id"] for h in ans["results"]] == ["sess-gamma", "sess-beta", "sess-alpha"]
    assert all(h["matched_by"] == "filter" for h in ans["results"])
    assert search_past_sessions(db, "   ***  ")["notice"]


# -- index upkeep -------------------------------------------------------------------------


def test_fts_follows_rereads_and_reindex(db, tmp_path: Path) -> None:
    f = tmp_path / "t" / "sess-beta.jsonl"
    lines = f.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[:1]))  # shrunk: re-read, derived rows replaced
    index(db, [tmp_path / "t"])
    assert all(h["session_id"] != "sess-beta" for h in search_past_sessions(db, "mango lexer")["results"])
    assert search_past_sessions(db, "kiwi parser crash")["results"]
    rebuild(db)
    assert search_past_sessions(db, "kiwi parser crash")["results"]
    assert db.db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')") is not None


# -- modes ---------------------------------------------------------------------------------


class HashEmbedder:
    """A tiny stand-in embedder: bag of hashed words."""

    id = "test-hash-64"
    dim = 64

    def embed(self, texts: list[str]):
        import numpy as np

        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w.strip(".,:;!?")) % self.dim] += 1.0
        n = np.linalg.norm(out, axis=1, keepdims=True)
        n[n == 0] = 1
        return out / n


def test_meaning_without_a_model_falls_back_to_keyword(db, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANSARD_EMBEDDER", "none")
    from hansard.answers.search import meaning

    meaning._EMBEDDER.clear()
    for mode in ("meaning", "hybrid"):
        ans = search_past_sessions(db, "kiwi parser", mode=mode)
        assert ans["mode"] == "keyword" and ans["requested_mode"] == mode
        assert "meaning search skipped" in ans["mode_notice"] and ans["results"]
    meaning._EMBEDDER.clear()


def test_meaning_and_hybrid_with_an_embedder(db) -> None:
    pytest.importorskip("numpy")
    from hansard.ingest.embed import build_vectors, pending

    emb = HashEmbedder()
    ans = search_past_sessions(db, "kiwi parser", mode="meaning", embedder=emb)
    assert ans["mode"] == "keyword" and "not built yet" in ans["mode_notice"]
    counts = build_vectors(db.search, emb, batch=3)
    assert counts["messages"] >= 8 and counts["reused"] >= 1  # the re-sent prompt is embedded once
    done, total = pending(db.search, emb.id)
    assert done == total
    m = search_past_sessions(db, "kiwi parser empty input", mode="meaning", embedder=emb)
    assert m["mode"] == "meaning" and "mode_notice" not in m
    assert m["results"][0]["matched_by"] == "meaning" and 0 < m["results"][0]["similarity"] <= 1
    h = search_past_sessions(db, "kiwi parser", mode="hybrid", embedder=emb, limit=10)
    assert h["mode"] == "hybrid" and {x["matched_by"] for x in h["results"]} >= {"both"}
    assert all("similarity" in x for x in h["results"] if x["matched_by"] in ("both", "meaning"))
    # filters apply to meaning hits too
    assert all(x["session_id"] != "sess-beta" for x in search_past_sessions(
        db, "kiwi parser", mode="meaning", embedder=emb, exclude_session_id="sess-beta")["results"])


def test_the_adapter_starts_the_vector_builder_not_the_search(db) -> None:
    """A meaning search that finds no vectors asks the ``start_build`` its adapter passed (the
    CLI and the MCP server pass hansard/app/jobs.py's detached `hansard embed`); a search called
    without one starts nothing and says how to build them."""
    pytest.importorskip("numpy")
    started: list[bool] = []

    def start() -> bool:
        started.append(True)
        return True

    ans = search_past_sessions(db, "kiwi parser", mode="meaning", embedder=HashEmbedder(), start_build=start)
    assert started == [True] and "(building now in the background)" in ans["mode_notice"]
    ans = search_past_sessions(db, "kiwi parser", mode="meaning", embedder=HashEmbedder())
    assert started == [True] and "run `hansard embed`" in ans["mode_notice"]
    answers = Path(__file__).resolve().parents[1] / "hansard" / "answers"
    assert [p.name for p in answers.rglob("*.py") if "subprocess" in p.read_text(encoding="utf-8")] == []


def test_long_messages_are_embedded_by_passage(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from hansard.ingest.embed import MAX_PASSAGES, PASSAGE_CHARS, build_vectors, passages

    text = ("Setting up the build cache took a while. " * 40) + "\n\n" + ("The walrus migration is done. " * 5)
    spans = passages(text)
    assert spans[0][0] == 0 and all(b - a <= PASSAGE_CHARS for a, b in spans)
    assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1)) and spans[-1][1] == len(text)
    assert all(text[b - 1] in " \n" for _, b in spans[:-1])  # cut at a break, never inside a word
    assert len(passages("word " * 10_000)) == MAX_PASSAGES
    d = open_store()
    t = Transcript("sess-long", cwd="/work/app")
    t.user("tell me everything")
    t.assistant(text)
    t.write(tmp_path / "l")
    index(d, [tmp_path / "l"])
    counts = build_vectors(d.search, HashEmbedder())
    assert counts["passages"] == counts["messages"] - 1 + len(spans)
    hit = search_past_sessions(d, "walrus migration", mode="meaning", embedder=HashEmbedder())["results"][0]
    a, b = hit["passage"]
    assert "walrus" in text[a:b] and "walrus" in hit["excerpt"].lower() and 0 < hit["similarity"] <= 1


class ConceptEncoder:
    """A stand-in sentence encoder: words map to a few concepts, so a paraphrase that shares
    no word with a session still lands near it (as a real sentence encoder's would)."""

    id = "test-concepts"
    dim = 5  # the last: none of the concepts
    CONCEPTS = {"upload": 0, "resending": 0, "documents": 0, "transfer": 0, "retry": 0,
                "crashes": 1, "falls": 1, "over": 1, "empty": 1, "blank": 1,
                "invoice": 2, "bills": 2, "exporter": 2, "spreadsheets": 2,
                "leaks": 3, "memory": 3, "ram": 3, "growing": 3}

    def embed(self, texts: list[str]):
        import numpy as np

        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                c = self.CONCEPTS.get(w.strip(".,:;!?"))
                if c is not None:
                    out[i, c] += 1.0
            if not out[i].any():
                out[i, -1] = 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_session_intent_tier_finds_a_paraphrase(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from hansard.ingest.embed import build_intent_vectors, build_vectors

    d = open_store()
    for sid, ask, work in (
        ("sess-upload", "The upload retry crashes on empty input. Please fix it.",
         "The loop in send_chunk never checks the length."),
        ("sess-invoice", "The invoice exporter leaks memory under load.", "Profiling the exporter now."),
        ("sess-both", "The invoice exporter crashes on empty input.", "Adding a guard for empty rows."),
    ):
        t = Transcript(sid, cwd="/work/app")
        t.user(ask)
        t.assistant(work)
        t.tool("Bash", {"command": "pytest -q"}, "upload invoice retry exporter " * 20)
        t.assistant("Done; the tests pass.")
        t.write(tmp_path / "i")
    index(d, [tmp_path / "i"])
    build_vectors(d.search, WordsEmbedder("test-crc-4096", 4096))
    enc = ConceptEncoder()
    counts = build_intent_vectors(d.search, enc)
    # the requests and each session's last answer, not the middle of the work
    assert counts["texts"] == 6 and counts["embedded"] == 4  # "Done; the tests pass." once
    assert build_intent_vectors(d.search, enc)["texts"] == 0  # nothing new above the mark
    query = "resending documents falls over when blank"
    m = search_past_sessions(d, query, mode="meaning", embedder=WordsEmbedder("test-crc-4096", 4096), intent_encoder=enc)
    top = m["results"][0]
    assert top["session_id"] == "sess-upload" and top["matched_by"] == "meaning"
    # named by its request (the whole message: no ``passage``), with the intent's similarity
    assert top["message_index"] == 0 and "passage" not in top and "upload retry" in top["excerpt"]
    assert 0.5 < top["similarity"] <= 1
    # keyword finds nothing in this paraphrase: hybrid's ranking is meaning's
    h = search_past_sessions(d, query, mode="hybrid", embedder=WordsEmbedder("test-crc-4096", 4096), intent_encoder=enc)
    assert [r["session_id"] for r in h["results"]] == [r["session_id"] for r in m["results"]]
    # the other intents rank by how much of the query they share in meaning
    assert [r["session_id"] for r in m["results"]][:2] == ["sess-upload", "sess-both"]


def test_meaning_weighs_the_intent_tier_by_query_shape() -> None:
    from hansard.answers.search import meaning

    assert meaning.intent_weight("which retry policy did we choose for uploads?") == meaning.INTENT_WEIGHTS["question"]
    assert meaning.intent_weight("resending documents falls over when blank") == meaning.INTENT_WEIGHTS["words"]
    assert meaning.intent_weight("send_chunk") == meaning.INTENT_WEIGHTS["exact"]
    # session 10's passage states the decision, session 20's comes close; session 20's request
    # is closer to the query in meaning (one weight of 0.4 for every shape ranked it first)
    passages, intents = [(1, 0.9), (2, 0.85), (5, 0.5)], [(3, 20, 0.8), (4, 10, 0.2)]
    passage_session = {1: 10, 2: 20, 5: 30}
    session = {**passage_session, 3: 20, 4: 10}
    assert session[meaning.combine(passages, intents, passage_session, 0.4)[0][0]] == 20

    def top(query: str) -> int:
        return session[meaning.combine(passages, intents, passage_session, meaning.intent_weight(query))[0][0]]

    # a question about a decision is answered by the passage that states it ...
    assert top("which retry policy did we choose?") == 10
    # ... and a paraphrase (no question word, nothing exact) by the session's intent
    assert top("resending documents falls over when blank") == 20


def test_large_vector_indexes_search_sign_bits_then_rescore(monkeypatch: pytest.MonkeyPatch) -> None:
    np = pytest.importorskip("numpy")
    from hansard.answers.search import meaning

    monkeypatch.setattr(meaning, "BITS_ABOVE", 100)
    monkeypatch.setattr(meaning, "RESCORE_KEEP", 50)
    monkeypatch.setattr(meaning, "BLOCK", 64)  # several blocks, the last one short
    rng = np.random.default_rng(1)
    mat = rng.standard_normal((500, 200)).astype(np.float32)  # 200 dimensions: the last word is padded
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    ids = np.arange(1, 501, dtype=np.int64)
    vi = meaning.VectorIndex(ids, np.zeros(500, np.int64), np.full(500, 10, np.int64), mat)
    assert vi.bits is not None and vi.bits.shape == (4, 500)
    rows, sims = vi.top(mat[123], 5)
    assert rows[0] == 123 and abs(sims[0] - 1.0) < 1e-2 and list(sims) == sorted(sims, reverse=True)
    assert np.allclose(sims, (mat @ mat[123])[rows], atol=1e-5)  # rescored: the exact similarities
    small = meaning.VectorIndex(ids[:50], np.zeros(50, np.int64), np.full(50, 10, np.int64), mat[:50])
    assert small.bits is None and small.top(mat[7], 3)[0][0] == 7


def test_disagreement_weighs_sign_flips_by_the_query() -> None:
    np = pytest.importorskip("numpy")
    from hansard.answers.search import meaning
    from hansard.ingest import vector_cache

    q = np.zeros(128, np.float32)
    q[0], q[1], q[70] = 1.0, 0.5, -0.1  # levels 3, 2 (0.5 rounds to 1.5 -> 2), 0
    rows = np.ones((4, 128), np.float32)  # all positive ...
    rows[1, 0] = -1  # ... flips the query's heaviest dimension
    rows[2, 1] = -1  # ... flips the middle one
    rows[3, 70] = -1  # ... agrees on dimension 70, where the query is negative
    d = meaning.disagreement(vector_cache.sign_bits(rows), q)
    # rows 0 and 3 disagree only where the query weighs nothing (level 0)
    assert d.tolist() == [0, 3, 2, 0]


def test_fewest_keeps_the_lowest_and_cuts_ties_by_row() -> None:
    np = pytest.importorskip("numpy")
    from hansard.answers.search import meaning

    scores = np.array([5, 1, 3, 1, 3, 0, 3], np.uint16)
    assert meaning.fewest(scores, 4).tolist() == [1, 2, 3, 5]  # 0, 1, 1 and the first 3
    assert meaning.fewest(scores, 3).tolist() == [1, 3, 5]
    assert meaning.fewest(scores, 9).tolist() == list(range(7))


def test_vector_stamp_changes_with_written_vectors_not_with_a_skipped_mark(db) -> None:
    idx = db.search
    model = "stamp-test"
    idx.to_embed(model, 100, 1)  # creates the model's progress row
    first = idx.vector_stamp(model)
    mid = idx.db.execute("SELECT MIN(id) FROM messages").fetchone()[0]
    idx.add_vectors(model, [(b"h" * 16, b"\0" * 8)], [(mid, 0, 4, b"h" * 16)], mid, "2026-01-01T00:00:00Z")
    written = idx.vector_stamp(model)
    assert written != first and written[2] == mid
    idx.skip_vectors_to(model, "2026-01-01T00:00:09Z")  # moves the mark past messages with no vector
    assert idx.vector_stamp(model) == written
    idx.db.execute("UPDATE messages SET text = text || ' edited' WHERE id=?", (mid,))  # steps the mark back
    assert idx.vector_stamp(model) != written


def test_rrf_prefers_agreement() -> None:
    kw = [Candidate(1), Candidate(2), Candidate(3)]
    fused = rrf(kw, [(3, 0.9), (4, 0.8)])
    order = [c.id for c, _, _ in fused]
    assert order[0] == 3 and dict((c.id, how) for c, how, _ in fused) == {1: "keyword", 2: "keyword", 3: "both",
                                                                           4: "meaning"}


# -- CLI --------------------------------------------------------------------------------


def test_cli_history_text_and_json(db) -> None:
    out = cli_json("history", "kiwi", "parser", "--no-sync", "--hits-per-session", "2")
    assert out["results"][0]["session_id"] == "sess-beta"
    code, text, _ = run_cli("history", "kiwi", "--no-sync")
    assert code == 0 and "sess-beta" in text and "«kiwi»" in text and "matches [keyword]" in text
    code, text, _ = run_cli("history", "nothingmatches", "--no-sync")
    assert code == 0 and "no matching messages" in text and "index holds" in text


@pytest.mark.slow
def test_real_samples_are_searchable(samples: Path, tmp_path: Path) -> None:
    db = open_store()
    index(db, [samples])
    ans = search_past_sessions(db, "goconst constant", limit=3)
    assert ans["results"][0]["session_id"] == "9515e689-053a-429c-b970-137413d99b44"
    assert search_past_sessions(db, "compactContentTypeText", provider="claude_code")["results"]
    gem = search_past_sessions(db, "hello bob", provider="gemini", limit=5)["results"]
    assert gem and all(h["provider"] == "gemini" for h in gem)
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.fixture
def new_york():
    """The local clock in New York (on 2026-11-01 daylight saving ends: -04:00, then -05:00)."""
    import os

    old = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_history_and_log_until_a_date_bound_the_same_instant(tmp_path: Path, new_york: None) -> None:
    """A regression: `hansard history --until D` and `hansard log --until D` end at the
    same instant, the end of day D on the local clock. `log` used to end D at midnight UTC, so
    a session at 23:30 in New York (04:30 UTC on D+1) was missing from it alone."""
    import os
    import subprocess
    from datetime import UTC, datetime

    from fixtures_repos.writers import ClaudeWriter

    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    app = repo / "app.py"
    app.write_text("def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return len(items)\n")
    subprocess.run(["git", "-C", str(repo), "add", "app.py"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "start"], check=True,
                   env={**os.environ, "GIT_AUTHOR_DATE": "2026-10-30T12:00:00+00:00",
                        "GIT_COMMITTER_DATE": "2026-10-30T12:00:00+00:00"})
    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    # 23:30 on 2026-11-01 in New York (EST, -05:00) and 00:30 on the 2nd.
    late = ClaudeWriter(home, repo, "0a1b2c3d-0000-4000-8000-000000000001", datetime(2026, 11, 2, 4, 30, tzinfo=UTC))
    late.prompt("make total skip None values, the zebra bug")
    late.edit(app, "    return sum(items)\n", "    return sum(i for i in items if i is not None)\n")
    early = ClaudeWriter(home, repo, "0a1b2c3d-0000-4000-8000-000000000002", datetime(2026, 11, 2, 5, 30, tzinfo=UTC))
    early.prompt("make count skip None values too, the zebra bug again")
    early.edit(app, "    return len(items)\n", "    return sum(1 for i in items if i is not None)\n")
    assert run_cli("index")[0] == 0

    def history(until: str) -> set[str]:
        ans = cli_json("history", "zebra", "--repo", str(repo), "--until", until)
        return {h["session_id"] for h in ans["results"]}

    def log(until: str) -> set[str]:
        ans = cli_json("log", "app.py", "--repo", str(repo), "--until", until, "--no-sync")
        return {e["session_id"] for e in ans["entries"] if e["kind"] == "session"}

    late_id, early_id = late.session_id, early.session_id
    assert history("2026-11-02") == log("2026-11-02") == {late_id, early_id}
    assert history("2026-11-01") == log("2026-11-01") == {late_id}
    assert history("2026-10-31") == log("2026-10-31") == set()
