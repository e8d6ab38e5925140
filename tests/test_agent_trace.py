"""Agent Trace: `hansard trace export` writes records valid against the
specification's own JSON schema, and `hansard trace import` reads them (and other tools') back as
recorded evidence, so an exported record round-trips into `why`'s ``recorded``; a planted record
that contradicts hansard shows ``disagrees_with``; bad records are counted skips, oversized input
a typed error, and no command writes to the repository or its refs."""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.gitrepo import GitRepo
from hansard.trace import read as trace_read
from hansard.trace.validate import SCHEMA, problems
from tests.helpers import AGENT_LINE, HUMAN_LINE, git_dir_files, retry_repo, run_cli, why_lines

T0 = datetime(2026, 11, 10, 9, 0, 0)
SID = "4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"
SAMPLES = Path(__file__).resolve().parent / "agent_trace_samples"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    r = retry_repo(tmp_path, T0, SID, "Cap the backoff and log retries")
    assert run_cli("index")[0] == 0
    monkeypatch.chdir(r.path)
    return r


def _export(*args: str) -> list[dict[str, Any]]:
    rc, out, err = run_cli("trace", "export", *args, "--json")
    assert rc == 0, (out, err)
    return [json.loads(x) for x in out.splitlines() if x.strip()]


def _import(*paths: str | Path) -> tuple[int, dict[str, Any]]:
    rc, out, err = run_cli("trace", "import", *map(str, paths), "--json")
    assert "Traceback" not in err
    return rc, json.loads(out)


def _fresh_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Another machine: its own store, and no transcript in its agent homes."""
    monkeypatch.setenv("HANSARD_HOME", str(tmp_path / name))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / name / "claude"))


def _record(revision: str, convs: list[dict[str, Any]], path: str = "retry.py", **extra: Any) -> dict[str, Any]:
    return {"version": "0.1.0", "id": str(uuid.uuid4()), "timestamp": "2026-11-10T10:00:00Z",
            "vcs": {"type": "git", "revision": revision}, "tool": {"name": "cursor", "version": "2.4.0"},
            "files": [{"path": path, "conversations": convs}], **extra}


def test_export_is_valid_and_says_who_wrote_each_line(repo: GitRepo) -> None:
    before = git_dir_files(repo.path / ".git")
    [rec] = _export()
    assert problems(rec) == []
    # The schema itself, with jsonschema's own checker (not hansard's): valid too.
    from jsonschema import Draft202012Validator

    assert list(Draft202012Validator(json.loads(SCHEMA.read_text())).iter_errors(rec)) == []
    assert rec["vcs"] == {"type": "git", "revision": repo.head()} and rec["tool"]["name"] == "hansard"
    [f] = rec["files"]
    assert f["path"] == "retry.py"
    by_type = {c["contributor"]["type"]: c for c in f["conversations"]}
    ai = by_type["ai"]
    assert ai["url"] == f"hansard://session/{SID}"
    assert ai["ranges"] == [{"start_line": 3, "end_line": 3, "content_hash": ai["ranges"][0]["content_hash"]}]
    assert ai["related"] and all(r["url"].startswith(f"hansard://session/{SID}#message-") for r in ai["related"])
    assert [(r["start_line"], r["end_line"]) for r in by_type["human"]["ranges"]] == [(4, 4)]
    assert "url" not in by_type["human"]
    assert rec["metadata"]["dev.hansard"]["lines"] == {"ai": 1, "human": 1}
    assert _export()[0]["id"] == rec["id"]  # the same answers, the same id
    assert git_dir_files(repo.path / ".git") == before


def test_a_range_and_out_folder(repo: GitRepo, tmp_path: Path) -> None:
    before = git_dir_files(repo.path / ".git")
    out = tmp_path / "traces"
    rc, text, err = run_cli("trace", "export", "HEAD~1..HEAD", "--out", str(out))
    assert rc == 0, err
    assert (out / f"{repo.head()}.json").is_file() and len(list(out.iterdir())) == 1
    assert "ai 1, human 1" in text and "wrote" in text
    assert err.startswith("trace export: 1 commits in ")  # stderr is no terminal: one line at the end
    [root] = _export("--commit", "HEAD~1")  # the root commit: all its lines are a person's
    assert problems(root) == [] and {c["contributor"]["type"] for c in root["files"][0]["conversations"]} == {"human"}
    assert git_dir_files(repo.path / ".git") == before
    rc, out2, err = run_cli("trace", "export", "--commit", "nope", "--json")
    assert rc != 0 and json.loads(out2)["error"]["code"] == "unknown_revision"


def test_a_range_answered_by_worker_processes_is_the_range_answered_here(repo: GitRepo,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """On more than one CPU a range's files are answered by forked workers: the records are
    those of its files answered one at a time in this process."""
    from datetime import timedelta

    from hansard.app import workers

    for i in range(3):
        for name in ("a", "b"):
            repo.write(f"pkg/{name}.py", "".join(f"value_{name}_{k} = {k * (i + 1)}\n" for k in range(5 + i)))
        repo.commit(f"pkg: values, round {i}", T0 + timedelta(hours=1 + i))
    forked: list[int] = []
    monkeypatch.setattr(workers, "jobs_for", lambda store, n: forked.append(n) or 2)
    parallel = _export("HEAD~4..HEAD")
    monkeypatch.setattr(workers, "jobs_for", lambda store, n: 0)
    serial = _export("HEAD~4..HEAD")
    assert forked == [7] and len(parallel) == 4  # retry.py, then pkg/a.py and pkg/b.py thrice
    assert [{k: v for k, v in r.items() if k != "timestamp"} for r in parallel] == \
        [{k: v for k, v in r.items() if k != "timestamp"} for r in serial]


def test_a_merge_exports_what_it_changed_against_its_first_parent(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A merge's own lines are none (git blames them to the branch's commits): its record holds
    what it brought in against its first parent, says it is a merge, and a merge that brought
    nothing says why its record is empty."""
    import os
    from datetime import timedelta

    from fixtures_repos.writers import ClaudeWriter

    r = GitRepo.init(tmp_path / "app")
    r.write("retry.py", "def retry(call, base, cap):\n    attempt = 0\n    return call()\n")
    r.commit("retry", T0)
    r.checkout("feature", create=True)
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r.path, SID, T0 + timedelta(minutes=1))
    w.prompt("cap the backoff")
    w.edit(r.path / "retry.py", "    attempt = 0\n", "    attempt = 0\n" + AGENT_LINE)
    r.commit("Cap the backoff", T0 + timedelta(minutes=5))
    r.checkout("main")
    r.write("README.md", "# app\n")
    r.commit("readme", T0 + timedelta(minutes=6))
    r.git("merge", "--no-ff", "-q", "-m", "Merge feature", "feature", when=T0 + timedelta(minutes=7))
    assert run_cli("index")[0] == 0
    monkeypatch.chdir(r.path)
    [rec] = _export()
    assert problems(rec) == [] and rec["vcs"]["revision"] == r.head()
    [f] = rec["files"]
    assert f["path"] == "retry.py"
    assert [(c["contributor"]["type"], c.get("url")) for c in f["conversations"]] == [("ai", f"hansard://session/{SID}")]
    meta = rec["metadata"]["dev.hansard"]
    assert meta["merge"] == {"first_parent": r.rev_parse("HEAD^1"), "commits_brought_in": 1}
    assert meta["lines"] == {"ai": 1} and "note" not in meta
    rc, text, err = run_cli("trace", "export")
    assert rc == 0 and "1 file: ai 1  (a merge: what it changed against its first parent, 1 commit brought in)" in text

    r.branch("old", r.rev_parse("HEAD^1^1"))  # a branch whose change the merge below throws away
    r.checkout("old")
    r.write("notes.txt", "dropped\n")
    r.commit("notes", T0 + timedelta(minutes=8))
    r.checkout("main")
    r.git("merge", "-s", "ours", "-q", "-m", "Merge old", "old", when=T0 + timedelta(minutes=9))
    [empty] = _export()
    assert problems(empty) == [] and empty["files"] == []
    assert empty["metadata"]["dev.hansard"]["note"] == "a merge that changed no file against its first parent"
    rc, text, err = run_cli("trace", "export")
    assert rc == 0 and "0 files: no lines of its own" in text and "a merge that changed no file" in text, text


def test_trace_export_out_never_writes_through_a_planted_link(repo: GitRepo, tmp_path: Path) -> None:
    out = repo.path / "traces"  # inside the repository: its content is the repository's to choose
    out.mkdir()
    sha = repo.head()
    by_tmp, by_name = _planted_victim(tmp_path, "by-tmp"), _planted_victim(tmp_path, "by-name")
    (out / f"{sha}.json.tmp").symlink_to(by_tmp)
    (out / f"{sha}.json").symlink_to(by_name)
    rc, _, err = run_cli("trace", "export", "--out", str(out))
    assert rc == 0, err
    assert by_tmp.read_text() == by_name.read_text() == "the victim's own content\n"
    written = out / f"{sha}.json"
    assert not written.is_symlink() and json.loads(written.read_text())["vcs"]["revision"] == sha




def _planted_victim(tmp_path: Path, name: str) -> Path:
    v = tmp_path / "elsewhere" / name
    v.parent.mkdir(exist_ok=True)
    v.write_text("the victim's own content\n")
    return v


def test_an_export_round_trips_through_import(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "traces"
    assert run_cli("trace", "export", "--out", str(out))[0] == 0
    ours = why_lines()
    before = git_dir_files(repo.path / ".git")
    # Into the store that wrote it: the record agrees with every answer.
    rc, summary = _import(out)
    assert rc == 0 and summary["added"] == 1 and summary["skipped"] == {}
    lines = why_lines()
    agent, human = lines[AGENT_LINE], lines[HUMAN_LINE]
    assert agent["kind"] == "agent" and agent["recorded"]["by"] == "agent-trace"
    assert agent["recorded"]["kind"] == "agent" and agent["recorded"]["session_id"] == SID
    assert agent["recorded"]["commit"] == repo.head() and agent["recorded"]["tool"] == "hansard"
    assert "disagrees_with" not in agent and agent["confidence"] == ours[AGENT_LINE]["confidence"]
    assert human["recorded"]["kind"] == "human" and "disagrees_with" not in human
    assert "recorded" not in lines["def retry(call, base, cap):\n"]  # no record of its commit
    assert _import(out)[1]["unchanged"] == 1  # idempotent
    # Into a fresh store (no sessions of its own): the record is shown, hansard claims nothing.
    _fresh_store(tmp_path, monkeypatch, "fresh")
    assert _import(out)[1]["added"] == 1
    fresh = why_lines()
    assert fresh[AGENT_LINE]["kind"] == "unknown" and fresh[AGENT_LINE]["recorded"]["session_id"] == SID
    assert fresh[AGENT_LINE]["recorded"]["kind"] == "agent" and "disagrees_with" not in fresh[AGENT_LINE]
    assert git_dir_files(repo.path / ".git") == before


def test_a_planted_disagreement_is_said(repo: GitRepo, tmp_path: Path) -> None:
    first = why_lines()
    other = "https://api.cursor.com/v1/conversations/12345"
    rec = _record(repo.head(), [
        {"url": other, "contributor": {"type": "ai", "model_id": "openai/gpt-4o"}, "ranges": [{"start_line": 4, "end_line": 4}]},
        {"contributor": {"type": "human"}, "ranges": [{"start_line": 3, "end_line": 3}]},
    ])
    f = tmp_path / "planted.json"
    f.write_text(json.dumps(rec))
    assert _import(f)[1]["added"] == 1
    lines = why_lines()
    human, agent = lines[HUMAN_LINE], lines[AGENT_LINE]
    assert human["kind"] == "human" and human["disagrees_with"] == ["agent-trace"]
    assert human["recorded"] == {"by": "agent-trace", "commit": repo.head(), "kind": "agent", "model": "openai/gpt-4o",
                                 "url": other, "tool": "cursor", "record": rec["id"]}
    assert human["confidence"] == pytest.approx(first[HUMAN_LINE]["confidence"] / 2, abs=0.01)
    assert agent["disagrees_with"] == ["agent-trace"] and agent["recorded"]["kind"] == "human"
    # The same id with other content replaces it: the disagreement goes with it.
    rec["files"][0]["conversations"] = [{"contributor": {"type": "unknown"}, "ranges": [{"start_line": 3, "end_line": 4}]}]
    f.write_text(json.dumps(rec))
    assert _import(f)[1]["replaced"] == 1
    lines = why_lines()
    assert all("disagrees_with" not in ln for ln in lines.values())
    assert lines[AGENT_LINE]["recorded"]["kind"] == "unknown"


def test_bad_records_are_counted_skips(repo: GitRepo, tmp_path: Path) -> None:
    head = repo.head()
    good = _record(head, [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 3, "end_line": 3}]}])
    reversed_ = _record(head, [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 9, "end_line": 2},
                                                                           {"start_line": 1, "end_line": 1}]}])
    records = [good, {"files": []}, _record(head, [], version="1.0"), {**good, "id": "not-a-uuid"},
               {k: v for k, v in _record(head, []).items() if k != "vcs"}, _record("abc123", []),
               {**_record(head, []), "vcs": {"type": "hg", "revision": head}}, reversed_,
               _record(head, [{"ranges": [{"start_line": 1, "end_line": 1}]}], path="../outside.py"), 7, "x", None]
    d = tmp_path / "many"
    (d / "sub").mkdir(parents=True)
    (d / "all.json").write_text(json.dumps(records))
    (d / "sub" / "lines.jsonl").write_text(json.dumps(_record(head, [])) + "\n{not json\n\n" + json.dumps([1]) + "\n")
    (d / "broken.json").write_bytes(b"\xff\xfe{")
    (d / "notes.txt").write_text("not read: not a .json file")
    os.symlink(d / "all.json", d / "link.json")  # not followed inside a folder
    rc, s = _import(d)
    assert rc == 0, s
    assert s["files"] == 3 and s["records"] == 4 and s["added"] == 4
    assert s["skipped"] == {"bad_path": 1, "invalid_json": 2, "invalid_record": 3, "no_git_revision": 3,
                            "not_a_record": 4, "reversed_range": 1}, s
    assert all(":" in p for p in s["problems"])
    rc, out, err = run_cli("trace", "import", str(tmp_path / "missing"), "--json")
    assert rc != 0 and json.loads(out)["error"]["code"] == "not_found"


@pytest.mark.parametrize("bound, code, build", [
    ("MAX_FILE_BYTES", "trace_too_large", lambda rec: json.dumps([rec] * 50)),
    ("MAX_DEPTH", "trace_too_deep", lambda rec: json.dumps({**rec, "metadata": {"a": [[[[[[[[[[[[1]]]]]]]]]]]]}})),
    ("MAX_RECORDS", "trace_too_many_records", lambda rec: "\n".join(json.dumps({**rec, "id": str(uuid.uuid4())})
                                                                    for _ in range(20))),
])
def test_bounds_stop_the_import_and_write_nothing(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 bound: str, code: str, build: Any) -> None:
    monkeypatch.setattr(trace_read, bound, {"MAX_FILE_BYTES": 4096, "MAX_DEPTH": 8, "MAX_RECORDS": 10}[bound])
    rec = _record(repo.head(), [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 3, "end_line": 3}]}])
    d = tmp_path / "in"
    d.mkdir()
    (d / "a-good.json").write_text(json.dumps(rec))  # read first, and still not kept
    (d / "b-bad.jsonl").write_text(build(rec))
    rc, out = _import(d)
    assert rc == 23 and out["error"]["code"] == code, out
    assert "recorded" not in why_lines()[AGENT_LINE]


def test_the_specifications_own_examples(repo: GitRepo) -> None:
    """The records of the specification's README (tests/agent_trace_samples, see PROVENANCE.md):
    the full example is kept (its revision is no commit here, so `why` shows nothing of it); the
    minimal one names no revision and is skipped."""
    for f in sorted(SAMPLES.glob("*.json")):
        assert problems(json.loads(f.read_text())) == [], f
    rc, s = _import(SAMPLES)
    assert rc == 0 and s["added"] == 1 and s["skipped"] == {"no_git_revision": 1}, s
    assert all("recorded" not in ln for ln in why_lines().values())


def test_secrets_in_a_record_are_never_kept(repo: GitRepo, tmp_path: Path) -> None:
    token = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    url = f"https://api.example.com/v1/conversations/abc?api_key={token}"
    rec = _record(repo.head(), [{"url": url, "contributor": {"type": "human"}, "ranges": [{"start_line": 4, "end_line": 4}]}],
                  metadata={"dev.example": {"stripe": token}})
    f = tmp_path / "secret.json"
    f.write_text(json.dumps(rec))
    assert _import(f)[1]["added"] == 1
    shown = why_lines()[HUMAN_LINE]["recorded"]
    assert shown["kind"] == "human" and token not in json.dumps(shown) and "REDACTED" in shown["url"]
    import sqlite3

    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")
    import zlib

    for table in ("agent_trace_records", "agent_trace_ranges"):
        for row in db.execute(f"SELECT * FROM {table}"):
            for v in row:
                raw = zlib.decompress(v) if isinstance(v, bytes) else str(v).encode()
                assert token.encode() not in raw, table


def test_export_outside_a_repository_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli("trace", "export", "--json")
    assert rc == 5 and json.loads(out)["error"]["code"] == "not_a_repository"
    rc, out, err = run_cli("trace", "export", "--commit", "HEAD", "HEAD~1..HEAD", "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "invalid_argument"


def test_the_sqlite_facet_has_its_protocols_shape(tmp_path: Path) -> None:
    from hansard.store.interfaces import AgentTraces
    from hansard.store.sqlite.store import SqliteStore
    from tests.test_store_contract import problems as shape_problems

    store = SqliteStore.open(tmp_path / "store.db")
    try:
        assert shape_problems(store.agent_traces, AgentTraces) == []
        assert store.agent_traces.any() is False and store.agent_traces.counts() == (0, 0)
    finally:
        store.close()


def test_beside_a_git_ai_note_the_note_is_shown_and_both_can_disagree(repo: GitRepo, tmp_path: Path) -> None:
    from tests.test_git_ai_notes import _hash, _note

    h = _hash("claude-code", SID)
    note = tmp_path / "note.txt"
    note.write_text(_note({"retry.py": [(h, "3")]}, {h: {"tool": "claude", "id": SID, "model": "claude-opus-4-7"}}))
    repo.git("notes", "--ref=ai", "add", "-f", "-F", str(note), "HEAD")
    first = why_lines()
    f = tmp_path / "planted.json"
    human = [{"contributor": {"type": "human"}, "ranges": [{"start_line": 3, "end_line": 3}]}]
    f.write_text(json.dumps(_record(repo.head(), human)))
    assert _import(f)[1]["added"] == 1
    agent = why_lines()[AGENT_LINE]
    assert agent["recorded"]["by"] == "git-ai" and agent["disagrees_with"] == ["agent-trace"]
    assert agent["confidence"] == pytest.approx(first[AGENT_LINE]["confidence"] / 2, abs=0.01)


def test_imported_records_survive_a_rebuild(repo: GitRepo, tmp_path: Path) -> None:
    """`doctor --rebuild` makes a new store from the archive, which never held imported records
    (their files may be gone by then): they are copied over, not lost."""
    out = tmp_path / "traces"
    assert run_cli("trace", "export", "--out", str(out))[0] == 0
    assert _import(out)[1]["added"] == 1
    before = why_lines()[AGENT_LINE]["recorded"]
    for f in out.rglob("*"):
        if f.is_file():
            f.unlink()
    code, report, _ = run_cli("doctor", "--rebuild")
    assert code == 0, report
    assert why_lines()[AGENT_LINE]["recorded"] == before
    assert _import(out)[1]["added"] == 0  # (nothing left to import: the store kept them)
