"""get_past_session / `hansard show`: windows, roles, cursors, offsets, revisions, sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures_repos.writers import Transcript
from hansard.answers.transcript import get_past_session
from hansard.errors import InvalidCursor
from hansard.ingest.run import index
from hansard.store import open_store
from tests.helpers import cli_json, run_cli

CODEX = "019da9bd-7cbb-7d22-b21c-80faf72e7f8a"  # 423 messages, long tool outputs


@pytest.fixture
def sample_db(samples: Path):
    db = open_store()
    index(db, [samples / "codex"])
    return db


def _all_pages(db, sid: str, **kw) -> list[list[dict]]:
    pages, cur = [], None
    while True:
        page = get_past_session(db, sid, next=cur, **kw)
        pages.append(page["messages"])
        cur = page["next"]
        if cur is None:
            return pages
        assert len(pages) < 2000, "cursor does not advance"


def _full_texts(db, sid: str) -> dict[int, tuple[str, str, str]]:
    return {r[0]: (r[1], r[2], r[3]) for r in db.db.execute(
        "SELECT message_index, role, kind, text FROM messages m JOIN sessions s ON s.id=m.session_id"
        " WHERE s.session_id=?", (sid,))}


@pytest.mark.parametrize("max_chars", [700, 5000])
def test_cursor_pages_to_the_end_without_loss_or_overlap(sample_db, max_chars: int) -> None:
    full = _full_texts(sample_db, CODEX)
    pages = _all_pages(sample_db, CODEX, limit=9, max_chars=max_chars)
    got: dict[int, str] = {}
    order: list[int] = []
    for page in pages:
        assert page, "an empty page before the end"
        assert sum(len(m["text"]) for m in page) <= max_chars
        for m in page:
            i = m["message_index"]
            start = m.get("content_start", 0)
            assert start == len(got.get(i, "")), f"gap or overlap in message {i}"
            got[i] = got.get(i, "") + m["text"]
            if not order or order[-1] != i:
                order.append(i)
    assert order == sorted(full)  # every message, once, in order
    for i, (role, kind, text) in full.items():
        if (role, kind) in (("user", "text"), ("assistant", "text")):
            assert got[i] == text  # conversation is never cut
        else:
            assert got[i] == text[: len(got[i])] and len(got[i]) >= min(len(text), 1500) or len(got[i]) == len(text)


def test_one_long_message_by_content_offset(sample_db) -> None:
    full = _full_texts(sample_db, CODEX)
    idx, (_, _, text) = max(full.items(), key=lambda kv: len(kv[1][2]))
    assert len(text) > 5000
    first = get_past_session(sample_db, CODEX, around=idx, limit=1, max_chars=4000)["messages"][0]
    assert first["truncated"] is True and first["content_chars"] == len(text)
    assert len(first["text"]) > 1500  # a single-message read may use the whole budget
    parts, off = [first["text"]], first["content_offset"]
    while off < len(text):
        m = get_past_session(sample_db, CODEX, around=idx, limit=1, content_offset=off, max_chars=3000)["messages"][0]
        assert m["message_index"] == idx and m["content_start"] == off
        parts.append(m["text"])
        off = m["content_offset"]
    assert "".join(parts) == text and m["truncated"] is False


def test_tool_output_cap_and_max_message_chars(sample_db) -> None:
    page = get_past_session(sample_db, CODEX, limit=40, max_chars=200_000)["messages"]
    cut = [m for m in page if m.get("truncated")]
    assert cut and all(len(m["text"]) == 1500 and m["content_offset"] == 1500 for m in cut)
    assert all(m["role"] not in ("user", "assistant") or m["kind"] != "text" for m in cut)
    wide = get_past_session(sample_db, CODEX, limit=40, max_chars=200_000, max_message_chars=4000)["messages"]
    assert max(len(m["text"]) for m in wide) > 1500


def test_roles_keep_indexes_and_the_cursor_keeps_roles(sample_db) -> None:
    full = _full_texts(sample_db, CODEX)
    want = [i for i, (role, kind, _) in sorted(full.items()) if role == "user" and kind != "meta"]
    pages = _all_pages(sample_db, CODEX, roles="user", limit=2)
    got = [m["message_index"] for p in pages for m in p if m.get("content_start", 0) == 0]
    assert got == want and all(m["role"] == "user" for p in pages for m in p)
    assistant = get_past_session(sample_db, CODEX, roles=["assistant"], around=100, limit=5)["messages"]
    assert len(assistant) == 5 and all(m["role"] == "assistant" for m in assistant)
    idx = [m["message_index"] for m in assistant]
    assert idx == sorted(idx) and idx[1] < 100 <= idx[2]


def test_every_message_has_local_time_and_source_line(sample_db, samples: Path) -> None:
    page = get_past_session(sample_db, CODEX, around=50, limit=5)
    assert page["session"]["started_at_local"].endswith("+00:00")
    for m in page["messages"]:
        assert m["timestamp_local"].endswith("+00:00")
        src = m["source"]
        with open(src["path"], "rb") as fh:
            data = fh.read()
        assert data[: src["offset"]].count(b"\n") + 1 == src["line"]


def test_group_revisions_folds_earlier_copies(tmp_path: Path) -> None:
    t = Transcript("rev-1")
    t.user("please rename the mango helper everywhere")
    t.assistant("Renamed in 3 files.")
    t.user("please rename the mango helper everywhere")
    t.assistant("Renamed in 4 files.")
    t.user("ok")
    t.user("ok")
    t.write(tmp_path / "t")
    db = open_store()
    index(db, [tmp_path / "t"])
    plain = get_past_session(db, "rev-1")["messages"]
    assert [m["message_index"] for m in plain] == [0, 1, 2, 3, 4, 5]
    grouped = get_past_session(db, "rev-1", group_revisions=True)
    assert [m["message_index"] for m in grouped["messages"]] == [1, 2, 3, 4, 5]
    m2 = grouped["messages"][1]
    assert m2["revisions"] == [0, 2] and m2["latest_revision"] == 2
    # the cursor carries group_revisions
    p1 = get_past_session(db, "rev-1", group_revisions=True, limit=2)
    p2 = get_past_session(db, "rev-1", next=p1["next"])
    assert [m["message_index"] for m in p1["messages"] + p2["messages"]] == [1, 2, 3, 4, 5]


def test_bad_cursors_are_refused(sample_db, samples: Path) -> None:
    with pytest.raises(InvalidCursor):
        get_past_session(sample_db, CODEX, next="not-a-cursor")
    other = sample_db.db.execute("SELECT session_id FROM sessions WHERE session_id != ? LIMIT 1", (CODEX,)).fetchone()[0]
    nxt = get_past_session(sample_db, CODEX, limit=2)["next"]
    with pytest.raises(InvalidCursor):
        get_past_session(sample_db, other, next=nxt)
    code, _, err = run_cli("show", CODEX, "--next", "garbage")
    assert code == 22 and "invalid_cursor" in err


def test_cli_show_pages_and_all(sample_db) -> None:
    first = cli_json("show", CODEX, "--limit", "3")
    assert len(first["messages"]) == 3 and first["next"]
    second = cli_json("show", CODEX, "--limit", "3", "--next", first["next"])
    assert second["messages"][0]["message_index"] == 3
    everything = cli_json("show", CODEX, "--all", "--limit", "50")
    assert everything["next"] is None
    assert len({m["message_index"] for m in everything["messages"]}) == 423
    code, text, _ = run_cli("show", CODEX, "--limit", "2")
    assert code == 0 and "more: hansard show" in text
