"""The lossless archive, reindex, incremental scanning and bad input, on real samples."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from hansard.ingest.run import index, rebuild
from hansard.store import as_store
from hansard.store.sqlite.db import connect
from tests.helpers import cli_json, dump, run_cli

CC_SAMPLE = "claude-code/entire_cc_2.1.119_b/full.jsonl"
CODEX_SAMPLE = "codex/entire_codex_0.125/full.jsonl"


def _copy(samples: Path, rel: str, dest: Path, name: str | None = None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / (name or Path(rel).name)
    shutil.copyfile(samples / rel, target)
    return target


def test_store_is_owner_only(tmp_path: Path) -> None:
    db = connect()
    db.close()
    store = Path(os.environ["HANSARD_HOME"]) / "hansard.db"
    assert oct(store.stat().st_mode & 0o777) == "0o600"
    assert oct(store.parent.stat().st_mode & 0o777) == "0o700"


def test_a_new_store_has_large_pages_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    import sqlite3

    from hansard.store.sqlite.db import PAGE_SIZE

    new = connect(str(tmp_path / "new.db"))
    assert new.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE == 16384
    old_path = tmp_path / "old.db"
    raw = sqlite3.connect(old_path)
    raw.execute("CREATE TABLE t (x)")  # a store begun at the default size
    raw.close()
    assert connect(str(old_path)).execute("PRAGMA page_size").fetchone()[0] == 4096


def test_deleted_source_is_still_shown_and_reindexed(samples: Path, tmp_path: Path) -> None:
    src = _copy(samples, CC_SAMPLE, tmp_path / "t", "cc.jsonl")
    codex = _copy(samples, CODEX_SAMPLE, tmp_path / "t", "codex.jsonl")
    db = connect()
    index(db, [tmp_path / "t"])
    before = dump(db)
    sid = before["messages"][0][0]
    shown = cli_json("show", sid)
    src.unlink()
    codex.unlink()
    index(db)  # a default scan notices nothing of these, and the store keeps everything
    assert cli_json("show", sid) == shown
    rebuild(db)
    assert dump(db) == before
    # The raw record is still readable, verbatim.
    msg = cli_json("show", sid, "--raw", "--limit", "1")["messages"][0]
    original = samples / (CC_SAMPLE if msg["source"]["path"].endswith("cc.jsonl") else CODEX_SAMPLE)
    with original.open("rb") as fh:
        fh.seek(msg["source"]["offset"])
        assert fh.readline().rstrip(b"\n").decode() == msg["raw"]


def test_reindex_equals_fresh_index(samples: Path, tmp_path: Path) -> None:
    db = connect()
    index(db, [samples])
    fresh = dump(db)
    rebuild(db)
    assert dump(db) == fresh
    assert fresh["messages"], "samples produced no messages"


def test_incremental_append_resumes_at_offset(samples: Path, tmp_path: Path) -> None:
    lines = (samples / CC_SAMPLE).read_bytes().splitlines(keepends=True)
    live = tmp_path / "live" / "s.jsonl"
    live.parent.mkdir()
    # Write the first half, then half a line: the partial line must wait for the next scan.
    half = len(lines) // 2
    live.write_bytes(b"".join(lines[:half]) + lines[half][:20])
    db = connect()
    s1 = index(db, [live.parent])
    assert s1 is not None and s1.records == half
    with live.open("ab") as fh:
        fh.write(lines[half][20:])
        fh.write(b"".join(lines[half + 1:]))
    s2 = index(db, [live.parent])
    assert s2 is not None and s2.records == len(lines) - half
    # Same result as one scan of the whole file.
    inc = dump(db)
    db.close()
    shutil.rmtree(os.environ["HANSARD_HOME"])
    db = connect()
    full = tmp_path / "full"
    _copy(samples, CC_SAMPLE, full, "s.jsonl")
    index(db, [full])
    assert dump(db) == inc


def test_unchanged_rescan_reads_nothing(samples: Path, tmp_path: Path) -> None:
    _copy(samples, CC_SAMPLE, tmp_path / "t")
    db = connect()
    index(db, [tmp_path / "t"])
    again = index(db, [tmp_path / "t"])
    assert again is not None and again.changed == 0 and again.records == 0


def test_shrunk_file_is_reread_in_one_generation(samples: Path, tmp_path: Path) -> None:
    f = _copy(samples, CC_SAMPLE, tmp_path / "t")
    db = connect()
    index(db, [tmp_path / "t"])
    lines = f.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[:10]))
    index(db, [tmp_path / "t"])
    row = db.execute("SELECT generation FROM sources").fetchone()
    assert row[0] == 1
    assert db.execute("SELECT COUNT(*) FROM raw_records WHERE generation=0").fetchone()[0] == len(lines)
    assert db.execute("SELECT COUNT(*) FROM raw_records WHERE generation=1").fetchone()[0] == 10
    shrunk = dump(db)
    _fts_consistent(db)
    shutil.rmtree(os.environ["HANSARD_HOME"])
    db = connect()
    index(db, [tmp_path / "t"])
    assert dump(db) == shrunk


@pytest.mark.slow
def test_bad_input_is_counted_not_fatal(samples: Path, tmp_path: Path) -> None:
    good = (samples / CC_SAMPLE).read_bytes().splitlines(keepends=True)
    bad = [
        b"{not json\n",
        b"\xff\xfe\xfa invalid utf8\n",
        b'{"type":"from-the-future","uuid":"x1","sessionId":"s"}\n',
        b"[1,2,3]\n",
        b"42\n",
        b'{"type":"user","message":{"role":"user","content":"' + b"x" * (50 * 1024 * 1024) + b'"}}\n',
    ]
    f = tmp_path / "t" / "bad.jsonl"
    f.parent.mkdir()
    f.write_bytes(good[0] + b"".join(bad) + b"".join(good[1:]))
    db = connect()
    s = index(db, [f.parent])
    assert s is not None
    assert sum(s.skipped.values()) >= 4
    assert {"malformed_json", "invalid_utf8"} <= set(s.skipped)
    # Every good record after the bad ones still arrived.
    ref = tmp_path / "ref"
    _copy(samples, CC_SAMPLE, ref)
    db2_home = tmp_path / "h2"
    os.environ["HANSARD_HOME"] = str(db2_home)
    db2 = connect()
    index(db2, [ref])
    assert db.execute("SELECT COUNT(*) FROM edits").fetchone()[0] == db2.execute("SELECT COUNT(*) FROM edits").fetchone()[0]
    assert db.execute("SELECT COUNT(*) FROM raw_records").fetchone()[0] == len(good) + len(bad)


def test_vanishing_file_mid_scan(samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hansard.ingest import scanner

    a = _copy(samples, CC_SAMPLE, tmp_path / "t", "a.jsonl")
    _copy(samples, CODEX_SAMPLE, tmp_path / "t", "b.jsonl")
    real = scanner.Scanner.scan_file

    def vanish(self, path, row):  # the agent deletes a file between discovery and reading
        if path.name == "a.jsonl":
            a.unlink()
        return real(self, path, row)

    monkeypatch.setattr(scanner.Scanner, "scan_file", vanish)
    s = index(connect(), [tmp_path / "t"])
    assert s is not None and s.skipped.get("vanished") == 1 and s.messages > 0


def test_file_vanishing_after_planning_takes_back_only_itself(samples: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Files are written several to a transaction, each in a savepoint: a file that vanishes
    between the plan and its reading is skipped alone; the files around it commit."""
    from hansard.ingest import scanner

    a = _copy(samples, CC_SAMPLE, tmp_path / "t", "a.jsonl")
    _copy(samples, CODEX_SAMPLE, tmp_path / "t", "b.jsonl")
    _copy(samples, CC_SAMPLE, tmp_path / "u", "c.jsonl")
    real = scanner.Scanner.scan_file

    def vanish(self, path, row):  # planned, then deleted before it is read
        plan = real(self, path, row)
        if path.name == "a.jsonl":
            a.unlink()
        return plan

    monkeypatch.setattr(scanner.Scanner, "scan_file", vanish)
    db = connect()
    s = index(db, [tmp_path / "t"])
    assert s is not None and s.skipped.get("vanished") == 1 and s.messages > 0
    assert [Path(r[0]).name for r in db.execute("SELECT path FROM sources")] == ["b.jsonl"]
    one = index(connect(), [tmp_path / "u"])  # the same transcript as a.jsonl, alone
    assert one is not None
    assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == s.messages + one.messages


def test_a_file_failing_after_its_first_records_takes_back_only_itself(samples: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Files are written several to a transaction without a savepoint each: one whose reading
    fails after some of its records were written is skipped whole, and the files before and
    after it in its transaction are kept, as if it had never been there."""
    from hansard.ingest import prepare, reader

    _copy(samples, CC_SAMPLE, tmp_path / "t", "a.jsonl")
    _copy(samples, CODEX_SAMPLE, tmp_path / "t", "b.jsonl")
    _copy(samples, "gemini-cli/gitai_gemini-session-simple.jsonl", tmp_path / "t", "c.jsonl")
    real = reader.iter_jsonl

    def unreadable_midway(path, *args, **kwargs):  # b.jsonl: its records, then a read refused
        yield from real(path, *args, **kwargs)
        if Path(path).name == "b.jsonl":
            raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(reader, "iter_jsonl", unreadable_midway)
    monkeypatch.setattr(prepare, "CHUNK_RECORDS", 1)  # b's records written before the failure
    db = connect()
    s = index(db, [tmp_path / "t"])
    assert s is not None and s.skipped.get("unreadable") == 1
    assert sorted(Path(r[0]).name for r in db.execute("SELECT path FROM sources")) == ["a.jsonl", "c.jsonl"]
    monkeypatch.undo()
    (tmp_path / "t" / "b.jsonl").unlink()
    os.environ["HANSARD_HOME"] = str(tmp_path / "alone")
    alone = connect()
    both = index(alone, [tmp_path / "t"])  # the same two files, nothing failing
    assert both is not None and (s.messages, s.edits) == (both.messages, both.edits) and s.messages > 0
    assert dump(db) == dump(alone)


def _titled_session(path: Path, sid: str, n: int, leaf: int, summary_at: int) -> None:
    """A Claude Code session of ``n`` messages, with a summary record naming its message
    ``leaf`` as the record before message ``summary_at`` (``n``: last)."""
    keys = [f"{sid[:8]}-0000-4000-8000-{i:012d}" for i in range(n)]
    lines: list[dict] = []
    for i, k in enumerate(keys):
        if i == summary_at:
            lines.append({"type": "summary", "summary": f"titled {sid[:4]}", "leafUuid": keys[leaf]})
        role = "user" if i % 2 == 0 else "assistant"
        lines.append({"type": role, "uuid": k, "parentUuid": keys[i - 1] if i else None, "sessionId": sid,
                      "timestamp": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z", "cwd": "/work/proj",
                      "message": {"role": role, "content": f"message {i} of {sid[:4]}"}})
    if summary_at == n:
        lines.append({"type": "summary", "summary": f"titled {sid[:4]}", "leafUuid": keys[leaf]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_summaries_title_the_same_sessions_whether_leaves_are_looked_up_or_read_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that has looked up enough new messages' keys one by one reads every titled leaf
    at once: the summaries title the same sessions either way, the one read before the
    message it names, the one read after it, and one added after the leaves were read."""
    from hansard.store.sqlite import writer

    d = tmp_path / "projects" / "-work-proj"
    d.mkdir(parents=True)
    _titled_session(d / "a.jsonl", "aaaaaaaa-1111-4111-8111-000000000001", 5, leaf=3, summary_at=5)
    _titled_session(d / "b.jsonl", "bbbbbbbb-1111-4111-8111-000000000002", 90, leaf=80, summary_at=0)
    _titled_session(d / "c.jsonl", "cccccccc-1111-4111-8111-000000000003", 90, leaf=70, summary_at=40)
    dumps = []
    for lookups in (1, 10**9):  # the leaves read at the first look-up; never
        monkeypatch.setattr(writer, "LEAF_LOOKUPS", lookups)
        os.environ["HANSARD_HOME"] = str(tmp_path / f"h{lookups}")
        db = connect()
        index(db, [tmp_path / "projects"])
        ranks = {r[0][:1]: r[1] for r in db.execute("SELECT session_id, title_rank FROM sessions")}
        assert ranks == {"a": writer.SUMMARY_RANK, "b": writer.SUMMARY_RANK, "c": writer.SUMMARY_RANK}
        dumps.append(dump(db))
    assert dumps[0] == dumps[1]


def test_status_and_sessions_cli(samples: Path) -> None:
    code, out, err = run_cli("index", str(samples))
    assert code == 0, err
    assert "sessions touched" in out
    st = cli_json("status")
    assert st["counts"]["sessions"] > 0 and st["indexed_through"] >= st["indexed_from"]
    assert st["last_run"]["files"] > 0
    sessions = cli_json("sessions", "--limit", "100")["sessions"]
    stamps = [s["last_at"] for s in sessions]
    # Newest first; a session whose transcript has no timestamps (a Cursor sample) comes last.
    assert stamps == sorted(stamps, key=lambda t: t or "", reverse=True)
    codex = cli_json("sessions", "--provider", "codex")["sessions"]
    assert codex and all(s["provider"] == "codex" for s in codex)


def test_show_around_window(samples: Path) -> None:
    run_cli("index", str(samples / "codex"))
    sid = cli_json("sessions", "--provider", "codex", "--limit", "1")["sessions"][0]["session_id"]
    win = cli_json("show", sid, "--around", "20", "--limit", "5")["messages"]
    assert [m["message_index"] for m in win] == [18, 19, 20, 21, 22]
    assert all(m["source"]["path"].endswith(".jsonl") for m in win)
    code, _, err = run_cli("show", "no-such-session")
    assert code == 10 and "not_found" in err


def _fts_consistent(db) -> None:
    """The full-text indexes hold exactly the rows they should (FTS5's own check), and the
    watermark is the largest id."""
    for table in ("messages_fts", "tool_calls_fts"):  # every row indexed: compare with the content
        db.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    # The trigram index holds prose only, by design, so only its structure can be checked.
    db.execute("INSERT INTO messages_tri(messages_tri) VALUES ('integrity-check')")
    for name in ("messages", "tool_calls"):
        mark = db.execute("SELECT last_id FROM fts_watermark WHERE name=?", (name,)).fetchone()[0]
        assert mark == (db.execute(f"SELECT MAX(id) FROM {name}").fetchone()[0] or 0)


def test_full_text_indexes_follow_rereads_rewinds_and_reindex(samples: Path, tmp_path: Path) -> None:
    d = tmp_path / "t"
    f = _copy(samples, CC_SAMPLE, d, "cc.jsonl")
    _copy(samples, "gemini-cli/gitai_gemini-session-simple.jsonl", d, "g.jsonl")
    db = connect()
    index(db, [d])
    _fts_consistent(db)
    # A Gemini rewind deletes the newest messages; new ones may reuse their row ids.
    g = d / "g.jsonl"
    first_id = json.loads(g.read_text().splitlines()[1])["id"]
    with g.open("a") as fh:
        fh.write(json.dumps({"$rewindTo": first_id}) + "\n")
        fh.write(json.dumps({"id": "after-rewind", "timestamp": "2025-12-06T19:00:00Z", "type": "user",
                             "content": "zebrafish quantum parser"}) + "\n")
    index(db, [d])
    _fts_consistent(db)
    # A file that shrank is re-read: its rows are deleted and written again.
    lines = f.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[:12]))
    index(db, [d])
    _fts_consistent(db)
    rebuild(db)
    _fts_consistent(db)
    from hansard.answers.search.sessions import search_past_sessions

    hits = search_past_sessions(as_store(db), "zebrafish quantum")["results"]
    assert hits and hits[0]["session_id"].startswith("gemini:")


def test_sessions_repo_outside_git_exits_5(tmp_path: Path) -> None:
    """`hansard sessions --repo` reads only (no repository is registered), and a folder outside
    git is refused with the documented exit code 5."""
    import subprocess

    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = run_cli("sessions", "--repo", str(plain))
    assert code == 5 and "not_a_repository" in err
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert cli_json("sessions", "--repo", str(repo))["sessions"] == []
    assert cli_json("status")["counts"].get("repos", 0) == 0


def test_progress_by_bytes_on_a_terminal_only(samples: Path, tmp_path: Path) -> None:
    """`hansard index` draws bytes read of bytes to read, rate and time left on stderr when it
    is a terminal; into a pipe, or with --quiet, it writes no progress at all."""
    import pty
    import subprocess
    import sys

    for i, rel in enumerate((CC_SAMPLE, CODEX_SAMPLE)):
        _copy(samples, rel, tmp_path / "t", f"{i}.jsonl")

    def run(*args: str, tty: bool) -> str:
        home = tmp_path / f"h{len(list(tmp_path.iterdir()))}"
        env = dict(os.environ, HANSARD_HOME=str(home))
        cmd = [sys.executable, "-m", "hansard", "index", *args, str(tmp_path / "t")]
        if not tty:
            return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stderr
        main, side = pty.openpty()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=side)
        os.close(side)
        out = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal's other side closed
                break
            if not chunk:
                break
            out += chunk
        assert p.wait(timeout=120) == 0
        os.close(main)
        return out.decode(errors="replace")

    shown = run(tty=True)
    # sizes in a unit that suits them (not "0.0 of 0.0 MB" for a small store): these samples are kB
    assert re.search(r"\d of [\d.,]+ [kMG]?B \(", shown) and "B/s" in shown and " left " in shown and "\r" in shown, shown
    assert str(tmp_path / "t") in shown or "…" in shown  # the file being read
    assert run(tty=False) == ""
    assert run("--quiet", tty=True) == ""
