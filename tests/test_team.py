"""Team sessions on a real PostgreSQL: two members, two HANSARD_HOMEs, two clones
of one repository. A line member A's session wrote is explained to member B with A's session,
pulled into B's store; search shows team sessions only with the team flags; push is idempotent,
refuses repositories not opted in and never sends pulled rows; nothing unredacted reaches the
server (its tables are read directly); a server that is down fails push/pull with a retryable
error and `why` answers from the last pull.

Needs PostgreSQL's server binaries (Debian's ``postgresql``) and psycopg: without them the
tests skip, unless ``CI`` is set (``.ci/run`` installs both), when they fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.helpers import cli_json, run_cli
from tests.pg_cluster import Cluster, cluster, pg_bindir

# A token shape the redactor knows (GitHub personal access token), random enough to be real.
SECRET = "ghp_" + "Zq8vR2mK4tW9xL1pN6bC3dF7gH0jS5aE2yU8"
SID_A = "7c1e9a40-1b2c-4d3e-8f40-5a6b7c8d9e01"


def _need_postgres() -> None:
    missing = []
    if pg_bindir() is None:
        missing.append("PostgreSQL server binaries (initdb)")
    if importlib.util.find_spec("psycopg") is None or importlib.util.find_spec("psycopg_pool") is None:
        missing.append("psycopg and psycopg-pool (pip install 'hansard[team]')")
    if missing:
        reason = "team tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(reason + "; CI is set", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def pg() -> Cluster:
    _need_postgres()
    with cluster() as c:
        yield c


def _git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-11-20T12:00:00+00:00", GIT_COMMITTER_DATE="2026-11-20T12:00:00+00:00")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


class Member:
    """One person on one machine: their own HANSARD_HOME, agent home and git identity."""

    def __init__(self, root: Path, name: str, email: str) -> None:
        self.root, self.name, self.email = root, name, email
        (root / "hansard").mkdir(parents=True)
        (root / ".claude").mkdir()

    def enter(self, mp: pytest.MonkeyPatch) -> None:
        mp.setenv("HANSARD_HOME", str(self.root / "hansard"))
        mp.setenv("CLAUDE_CONFIG_DIR", str(self.root / ".claude"))
        mp.setenv("GIT_AUTHOR_NAME", self.name)
        mp.setenv("GIT_AUTHOR_EMAIL", self.email)


def _owner_adds(root: Path, mp: pytest.MonkeyPatch, pg: Cluster, *emails: str, team: str = "core") -> dict[str, str]:
    """The database owner (its own HANSARD_HOME) creates the team and a role per email; the
    connection strings add-member printed, by email."""
    owner = root / "owner"
    if not owner.exists():
        Member(owner, "Owner", "owner@example.com")
    mp.setenv("HANSARD_HOME", str(owner / "hansard"))
    cli_json("team", "init", pg.url(password=True), "--name", team)
    return {e: cli_json("team", "add-member", e)["dsn"] for e in emails}


@pytest.fixture
def team(pg: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Member A wrote part of app.py through Claude Code (with a secret planted in the prompt,
    the edit, and a shell command's output), committed it and pushed; member B has a clone.
    Each is a role of their own, made by the database owner."""
    from fixtures_repos.writers import ClaudeWriter

    pg.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public AUTHORIZATION hansard")
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "5")
    monkeypatch.setenv("HANSARD_TEAM_FRESH", "0")  # every question pulls first: a push is read at once
    dsn = _owner_adds(tmp_path, monkeypatch, pg, "alice@example.com", "bob@example.com")
    alice = Member(tmp_path / "alice", "Alice", "alice@example.com")
    bob = Member(tmp_path / "bob", "Bob", "bob@example.com")
    alice.enter(monkeypatch)
    repo_a = tmp_path / "alice" / "shop"
    repo_a.mkdir()
    _git(repo_a, "init", "-q", "-b", "main")
    app = repo_a / "app.py"
    app.write_text("def total(items):\n    return sum(items)\n")
    _git(repo_a, "add", "app.py")
    _git(repo_a, "commit", "-q", "-m", "start")
    w = ClaudeWriter(alice.root / ".claude", repo_a, SID_A, datetime(2026, 11, 20, 10, 0, tzinfo=UTC))
    w.prompt(f"add a discount helper; the deploy token is {SECRET}, the zebra rollout needs it")
    w.edit(app, "    return sum(items)\n",
           "    return sum(items)\n\n\ndef discounted(items, rate):\n    kept = [i * (1 - rate) for i in items]\n"
           f"    token = \"{SECRET}\"\n    return round(sum(kept), 2)\n")
    w.bash("env | grep TOKEN", stdout=f"GITHUB_TOKEN={SECRET}\n")
    _git(repo_a, "commit", "-q", "-am", "discounted")
    assert run_cli("index")[0] == 0
    d = cli_json("team", "join", dsn["alice@example.com"])
    assert d["member"]["email"] == "alice@example.com" and d["team"] == "core" and d["role"] == "core_alice"
    monkeypatch.chdir(repo_a)
    cli_json("team", "add-repo", ".")
    repo_b = tmp_path / "bob" / "shop"
    _git(tmp_path / "bob", "clone", "-q", str(repo_a), str(repo_b))
    return {"alice": alice, "bob": bob, "repo_a": repo_a, "repo_b": repo_b, "mp": monkeypatch, "pg": pg, "dsn": dsn}


def _line_of(path: Path, text: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if text in ln)


def _password(dsn: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(dsn).password or ""


def test_password_moves_to_a_private_pgpass_file(team) -> None:
    home = team["alice"].root / "hansard" / "team"
    cfg = (home / "config.json").read_text()
    secret = _password(team["dsn"]["alice@example.com"])
    assert len(secret) >= 24 and secret not in cfg
    assert json.loads(cfg)["url"] == f"postgresql://core_alice@127.0.0.1:{team['pg'].port}/team"
    for name in ("config.json", "pgpass"):
        assert stat.S_IMODE((home / name).stat().st_mode) == 0o600
    assert secret in (home / "pgpass").read_text()


def test_dry_run_lists_what_leaves_and_sends_nothing(team) -> None:
    d = cli_json("team", "push", "--dry-run")
    assert [s["session_id"] for s in d["sessions"]] == [SID_A]
    s = d["sessions"][0]
    assert s["repo"] == "shop" and s["bytes"] > 0 and s["redactions"] >= 3
    assert d["redactions"] == s["redactions"]
    assert team["pg"].psql("SELECT COUNT(*) FROM sessions").strip() == "0"


def test_push_is_idempotent_and_nothing_unredacted_reaches_the_server(team) -> None:
    first = cli_json("team", "push")
    assert first["pushed"] == 1 and first["unchanged"] == 0
    again = cli_json("team", "push")
    assert again["pushed"] == 0 and again["unchanged"] == 1
    pg = team["pg"]
    assert pg.psql("SELECT COUNT(*) FROM sessions").strip() == "1"
    assert int(pg.psql("SELECT COUNT(*) FROM edit_lines").strip()) > 0
    # Every column of every table, as text, straight from the server.
    everything = "".join(pg.psql(f"SELECT COALESCE(string_agg(t::text, E'\\n'), '') FROM {table} t")
                         for table in ("members", "repos", "sessions", "messages", "tool_calls", "edits", "edit_lines"))
    assert "discounted" in everything and "zebra rollout" in everything
    assert SECRET not in everything and SECRET[:12] not in everything
    assert "[REDACTED:" in everything


def test_pushing_a_repository_not_opted_in_is_refused(team, tmp_path: Path) -> None:
    other = tmp_path / "alice" / "other"
    other.mkdir()
    _git(other, "init", "-q", "-b", "main")
    (other / "x.py").write_text("x = 1\n")
    _git(other, "add", ".")
    _git(other, "commit", "-q", "-m", "x")
    rc, out, _ = run_cli("team", "push", "--repo", str(other), "--json")
    assert rc == 32 and json.loads(out)["error"]["code"] == "repo_not_opted_in"
    assert team["pg"].psql("SELECT COUNT(*) FROM sessions").strip() == "0"


def _as_bob(team, pushed: int = 1) -> Path:
    assert cli_json("team", "push")["pushed"] == pushed
    mp = team["mp"]
    team["bob"].enter(mp)
    mp.chdir(team["repo_b"])
    # Bob's password comes from his own libpq password file, not from the URL.
    pgpass = team["bob"].root / ".pgpass"
    pgpass.write_text(f"127.0.0.1:{team['pg'].port}:team:core_bob:{_password(team['dsn']['bob@example.com'])}\n")
    pgpass.chmod(0o600)
    mp.setenv("PGPASSFILE", str(pgpass))
    d = cli_json("team", "join", f"postgresql://core_bob@127.0.0.1:{team['pg'].port}/team", "--name", "core")
    assert d["passfile"] is None and d["member"]["email"] == "bob@example.com"
    cli_json("team", "add-repo", ".")
    return team["repo_b"] / "app.py"


def test_a_line_alice_s_session_wrote_is_explained_to_bob(team) -> None:
    app = _as_bob(team)
    n = _line_of(app, "kept = [i * (1 - rate)")
    ans = cli_json("why", f"app.py:{n}", "--no-sync")
    ln = ans["lines"][0]
    assert ln["kind"] == "agent" and ln["session_id"] == SID_A and ln["rule"] == "wrote"
    s = ans["sessions"][SID_A]
    assert s["member"] == "alice@example.com" and s["member_name"] == "Alice"
    assert s["source"] == {"kind": "member", "member": "alice@example.com", "member_name": "Alice",
                           "origin": {"kind": "local"}}  # her machine recorded it
    assert "discount helper" in s["prompt"] and SECRET not in s["prompt"]
    rc, text, _ = run_cli("why", f"app.py:{n}", "--no-sync")
    assert rc == 0 and "written by   alice@example.com (Alice)'s Claude Code session 7c1e9a40-1b2c" in text
    # The whole file: Alice's lines are hers, the first commit's are human.
    whole = cli_json("why", "app.py", "--no-sync")
    kinds = {ln["content"].strip(): ln["kind"] for ln in whole["lines"]}
    assert kinds["def total(items):"] == "human"
    assert kinds["def discounted(items, rate):"] == "agent"
    # log and context see her session too.
    log = cli_json("log", "app.py", "--no-sync")
    entries = [e for e in log["entries"] if e["kind"] == "session"]
    assert [e["session_id"] for e in entries] == [SID_A] and entries[0]["member"] == "alice@example.com"
    assert entries[0]["source"]["kind"] == "member"
    ctx = cli_json("context", "--no-sync")
    assert ctx["session"]["session_id"] == SID_A


def test_bob_s_editor_shows_alice_s_session_on_her_line(team) -> None:
    """The language server asks through the application as the CLI does, so its hover names a
    teammate's session (and its conversation command opens it)."""
    import anyio

    from tests.test_lsp import hover, lsp, open_doc

    app = _as_bob(team)
    n = _line_of(app, "kept = [i * (1 - rate)")

    async def main() -> tuple[str | None, str | None]:
        async with lsp(team["repo_b"], sync=False) as client:
            uri = open_doc(client, app)
            mine, theirs = await hover(client, uri, 0), await hover(client, uri, n - 1)
            return mine, theirs

    mine, theirs = anyio.run(main)
    assert theirs is not None and SID_A[:13] in theirs and "alice\\@example\\.com" in theirs, theirs
    assert "discount helper" in theirs
    assert mine is None or SID_A[:13] not in mine


def test_a_teammate_is_named_by_the_email_the_owner_registered(team) -> None:
    """Alice calls herself "Bob Example" (her config's name, as git's user.name at join): Bob
    still reads her session as alice@example.com's, the declared name only in brackets."""
    cfg_path = team["alice"].root / "hansard" / "team" / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["member"]["name"] = "Bob Example"
    cfg_path.write_text(json.dumps(cfg))
    app = _as_bob(team)
    n = _line_of(app, "kept = [i * (1 - rate)")
    for args in (("why", f"app.py:{n}"), ("show", SID_A), ("log", "app.py"), ("context",)):
        rc, text, err = run_cli(*args, "--no-sync") if args[0] != "show" else run_cli(*args)
        assert rc == 0, err
        assert "alice@example.com (Bob Example)'s" in text and "Bob Example's" not in text, (args, text)


SID_A2 = "7c1e9a40-1b2c-4d3e-8f40-5a6b7c8d9e02"


def test_a_pull_brings_what_changed_within_its_period_and_a_push_never_sends_it_back(team) -> None:
    """Bob's first question pulls Alice's session into his store; his push sends nothing of it.
    Within HANSARD_TEAM_FRESH a question asks the server nothing: Alice's next session reaches
    Bob at `team pull` (or when the period is over), and that pull fetches it alone."""
    from fixtures_repos.writers import ClaudeWriter

    app = _as_bob(team)
    mp, pg = team["mp"], team["pg"]
    mp.setenv("HANSARD_TEAM_FRESH", "3600")
    assert cli_json("why", f"app.py:{_line_of(app, 'kept = [i * (1 - rate)')}", "--no-sync")["lines"][0][
        "session_id"] == SID_A
    assert cli_json("team", "push", "--dry-run")["sessions"] == []
    assert cli_json("team", "push")["pushed"] == 0
    assert pg.psql("SELECT COUNT(*) FROM sessions").strip() == "1"
    assert cli_json("team", "pull")["counts"]["sessions"] == 0  # nothing new: only the digests were asked for
    # Alice's next session.
    team["alice"].enter(mp)
    mp.delenv("PGPASSFILE", raising=False)
    mp.chdir(team["repo_a"])
    w = ClaudeWriter(team["alice"].root / ".claude", team["repo_a"], SID_A2, datetime(2026, 11, 20, 11, 0, tzinfo=UTC))
    w.prompt("add a tax helper")
    text = (team["repo_a"] / "app.py").read_text()
    w.edit(team["repo_a"] / "app.py", text, text + "\n\ndef with_tax(amount, tax_rate):\n    return amount * (1 + tax_rate)\n")
    _git(team["repo_a"], "commit", "-q", "-am", "tax")
    assert run_cli("index")[0] == 0
    assert cli_json("team", "push")["pushed"] == 1
    team["bob"].enter(mp)
    mp.setenv("PGPASSFILE", str(team["bob"].root / ".pgpass"))
    mp.chdir(team["repo_b"])
    _git(team["repo_b"], "pull", "-q", "--ff-only")
    n = _line_of(app, "return amount * (1 + tax_rate)")
    assert cli_json("why", f"app.py:{n}", "--no-sync")["lines"][0].get("session_id") is None  # not pulled yet
    pulled = cli_json("team", "pull")
    assert pulled["counts"]["sessions"] == 1 and pulled["held"]["sessions"] == 2
    ans = cli_json("why", f"app.py:{n}", "--no-sync")
    assert ans["lines"][0]["session_id"] == SID_A2 and ans["sessions"][SID_A2]["member"] == "alice@example.com"


def test_alice_sees_her_own_session_once(team) -> None:
    cli_json("team", "push")
    n = _line_of(team["repo_a"] / "app.py", "kept = [i * (1 - rate)")
    ans = cli_json("why", f"app.py:{n}", "--no-sync")
    assert ans["lines"][0]["session_id"] == SID_A
    assert "member" not in ans["sessions"][SID_A]  # answered from her own store
    log = cli_json("log", "app.py", "--no-sync")
    assert [e["session_id"] for e in log["entries"] if e["kind"] == "session"] == [SID_A]


def test_search_shows_team_sessions_only_with_the_flags(team) -> None:
    _as_bob(team)
    plain = cli_json("history", "zebra", "--no-sync")
    assert plain["results"] == []
    flagged = cli_json("history", "zebra", "--include-team-sessions", "--no-sync")
    assert [h["session_id"] for h in flagged["results"]] == [SID_A]
    hit = flagged["results"][0]
    assert hit["member"] == "alice@example.com" and SECRET not in json.dumps(flagged)
    named = cli_json("history", "zebra", "--team", "core", "--no-sync")
    assert [h["session_id"] for h in named["results"]] == [SID_A]
    # --repo (and so the MCP server's --scope repo) narrows team sessions like local ones.
    other = team["repo_b"].parent / "other"
    other.mkdir()
    _git(other, "init", "-q", "-b", "main")
    (other / "x.py").write_text("x = 1\n")
    _git(other, "add", ".")
    _git(other, "commit", "-q", "-m", "x")
    assert cli_json("history", "zebra", "--include-team-sessions", "--repo", str(other), "--no-sync")["results"] == []
    assert [h["session_id"] for h in cli_json("history", "zebra", "--include-team-sessions", "--repo",
                                               str(team["repo_b"]), "--no-sync")["results"]] == [SID_A]
    wrong = cli_json("history", "zebra", "--team", "another", "--no-sync")
    assert wrong["results"] == [] and "no team named 'another'" in wrong["notice"]
    listed = cli_json("sessions")
    assert listed["sessions"] == []
    listed = cli_json("sessions", "--include-team-sessions")
    assert [s["session_id"] for s in listed["sessions"]] == [SID_A]


def _local_state(home: Path) -> tuple:
    """This member's store (the team's rows it pulled with it) and team config, as they stand
    (what a failed push or pull must leave untouched)."""
    import sqlite3

    from tests.helpers import dump

    db = sqlite3.connect(home / "hansard.db")
    db.row_factory = sqlite3.Row
    try:
        return dump(db), (home / "team/config.json").read_bytes()
    finally:
        db.close()


def test_server_down_push_fails_retryably_and_why_answers_from_the_last_pull(team) -> None:
    app = _as_bob(team)
    pulled = cli_json("team", "pull")
    assert pulled["counts"]["sessions"] == 1 and pulled["held"]["sessions"] == 1
    assert run_cli("index")[0] == 0
    home = team["bob"].root / "hansard"

    before = _local_state(home)
    pg = team["pg"]
    pg.stop()
    try:
        team["mp"].setenv("HANSARD_TEAM_TIMEOUT", "1")
        for cmd in (("team", "push"), ("team", "pull")):
            rc, out, _ = run_cli(*cmd, "--json")
            err = json.loads(out)["error"]
            assert rc == 30 and err["code"] == "team_unreachable" and err["retryable"] is True
        assert _local_state(home) == before
        n = _line_of(app, "kept = [i * (1 - rate)")
        ans = cli_json("why", f"app.py:{n}", "--no-sync")
        assert ans["lines"][0]["session_id"] == SID_A
        assert ans["sessions"][SID_A]["member"] == "alice@example.com"
        status = cli_json("team", "status")
        assert status["server"]["reachable"] is False and status["pulled"]["sessions"] == 1
        assert "cannot be reached" in status["pulled"]["error"]  # the question's pull tried, and says so
    finally:
        pg.start()


def _read_only_home(home: Path, where: Path) -> bool:
    """A copy of a member's hansard home (the store, checkpointed, and the team config) that
    cannot be written: by its modes, or, for root (whom modes do not stop), on a tmpfs mounted
    read-only. False when neither can be made here."""
    import shutil
    import sqlite3

    db = sqlite3.connect(home / "hansard.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    where.mkdir()
    if os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(where)],
                                            capture_output=True).returncode:
        return False
    shutil.copy(home / "hansard.db", where / "hansard.db")
    shutil.copytree(home / "team", where / "team")
    if os.geteuid() == 0:
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
    else:
        for p in (where / "hansard.db", *(where / "team").iterdir()):
            p.chmod(0o400)
        (where / "team").chmod(0o500)
        where.chmod(0o500)
    return True


def test_a_read_only_store_answers_a_teammate_s_lines_as_a_writable_one(team, tmp_path: Path) -> None:
    """A pull writes, so the application skips it for a store that cannot be written, and does
    not ask the server: the questions answer from the rows the store holds, as the writable
    store answers them."""
    app = _as_bob(team)
    assert cli_json("team", "pull")["counts"]["sessions"] == 1
    n = _line_of(app, "kept = [i * (1 - rate)")
    asked = [("why", "app.py", "--no-sync", "--no-cache"), ("log", "app.py", "--no-sync"),
             ("sessions", "--include-team-sessions"),
             ("history", "zebra", "--include-team-sessions", "--no-sync"), ("show", SID_A)]
    writable = [cli_json(*a) for a in asked]
    assert writable[0]["lines"][n - 1]["session_id"] == SID_A
    ro = tmp_path / "ro"
    if not _read_only_home(team["bob"].root / "hansard", ro):
        pytest.skip("cannot mount a read-only tmpfs here")
    team["pg"].stop()  # and the server is not asked
    try:
        team["mp"].setenv("HANSARD_HOME", str(ro))
        team["mp"].setenv("HANSARD_TEAM_TIMEOUT", "1")
        assert [cli_json(*a) for a in asked] == writable
    finally:
        team["pg"].start()
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(ro)], capture_output=True)
        else:
            for p in (ro, ro / "team"):
                p.chmod(0o700)


def test_a_server_migrated_by_a_newer_hansard_is_refused(team) -> None:
    team["pg"].psql("INSERT INTO hansard_migrations(name) VALUES ('t999_from_the_future')")
    rc, out, _ = run_cli("team", "push", "--json")
    assert rc == 15 and json.loads(out)["error"]["code"] == "store_too_new"
    assert team["pg"].psql("SELECT COUNT(*) FROM sessions").strip() == "0"


def test_a_question_answers_from_the_last_pull_when_the_server_refuses_it(team) -> None:
    """A server migrated by a newer hansard refuses a pull: `why` still answers, from the rows
    pulled before, and `team status` says why the last attempt failed."""
    app = _as_bob(team)
    n = _line_of(app, "kept = [i * (1 - rate)")
    assert cli_json("why", f"app.py:{n}", "--no-sync")["sessions"][SID_A]["member"] == "alice@example.com"
    team["pg"].psql("INSERT INTO hansard_migrations(name) VALUES ('t999_from_the_future')")
    ans = cli_json("why", f"app.py:{n}", "--no-sync")
    assert ans["lines"][0]["session_id"] == SID_A and ans["sessions"][SID_A]["member"] == "alice@example.com"
    assert "newer hansard" in cli_json("team", "status")["pulled"]["error"]


def test_without_a_team_why_never_imports_psycopg(tmp_path: Path) -> None:
    """Local commands of a member with no team pay one stat for it."""
    import sys

    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "a")
    code = ("import sys; from hansard.cli import main; rc = main(['why', 'a.py', '--no-sync', '--json']);"
            " sys.exit(rc or (3 if any(m.startswith('psycopg') for m in sys.modules) else 0))")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_bob_opens_alice_s_session_by_id_or_prefix(team) -> None:
    _as_bob(team)
    win = cli_json("show", SID_A)
    assert win["session"]["member"] == "alice@example.com" and win["session"]["member_name"] == "Alice"
    assert win["session"]["source"]["kind"] == "member"
    texts = [m["text"] for m in win["messages"]]
    assert any("discount helper" in t for t in texts) and SECRET not in json.dumps(win)
    assert all(m["source"] is None for m in win["messages"])  # her archive stays on her machine
    assert any(c["name"] == "Bash" for m in win["messages"] for c in m.get("tool_calls", []))
    users = cli_json("show", SID_A[:8], "--roles", "user")
    assert users["messages"] and all(m["role"] == "user" for m in users["messages"])
    rc, text, _ = run_cli("show", SID_A[:8])
    assert rc == 0 and "alice@example.com (Alice)'s session (hansard team)" in text
    rc, out, _ = run_cli("show", "0000dead", "--json")
    assert rc != 0 and json.loads(out)["error"]["code"] == "not_found"


def _second_repo(team, name: str, sid: str, word: str) -> None:
    """Alice works in a second opted-in repository (a session mentioning ``word``), pushes it;
    Bob clones it and opts it in too."""
    from fixtures_repos.writers import ClaudeWriter

    mp = team["mp"]
    team["alice"].enter(mp)
    mp.delenv("PGPASSFILE", raising=False)
    repo = team["repo_a"].parent / name
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "lib.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "start")
    w = ClaudeWriter(team["alice"].root / ".claude", repo, sid, datetime(2026, 11, 21, 9, 0, tzinfo=UTC))
    w.prompt(f"the {word} rework of lib")
    w.edit(repo / "lib.py", "x = 1\n", "x = 1\ny = 2\n")
    _git(repo, "commit", "-q", "-am", "y")
    assert run_cli("index")[0] == 0
    (repo / "CLAUDE.md").write_text(f"# {name}\n\nThe {word} guidance of {name}.\n")
    (team["repo_a"] / "CLAUDE.md").write_text(f"# shop\n\nThe {word} guidance of shop.\n")
    mp.chdir(repo)
    assert run_cli("memory", "scan")[0] == 0
    cli_json("team", "add-repo", ".")
    assert cli_json("team", "push")["pushed"] >= 1
    team["bob"].enter(mp)
    mp.setenv("PGPASSFILE", str(team["bob"].root / ".pgpass"))
    clone = team["repo_b"].parent / name
    _git(team["repo_b"].parent, "clone", "-q", str(repo), str(clone))
    mp.chdir(clone)
    cli_json("team", "add-repo", ".")
    mp.chdir(team["repo_b"])


SID_O = "3d2b1a00-aaaa-4bbb-8ccc-0123456789ab"


@pytest.mark.slow
def test_scope_repo_holds_team_sessions_in_every_mcp_tool(team) -> None:
    """A real stdio MCP client, as agents drive it: Bob's server limited to his clone of shop
    reads Alice's shop session through every tool, and never her session of another
    repository (though both are opted in and on the server)."""
    import anyio
    from mcp import Client, StdioServerParameters

    app = _as_bob(team)
    _second_repo(team, "other", SID_O, "walrus")
    n = _line_of(app, "kept = [i * (1 - rate)")
    params = StdioServerParameters(command=sys.executable, args=["-m", "hansard", "mcp", "serve", "--scope", "repo"],
                                   env=dict(os.environ), cwd=str(team["repo_b"]))

    async def drive() -> str:
        def data(r):
            assert r.structured_content is not None, r
            return r.structured_content

        async def refused(tool: str, args: dict) -> None:
            r = await c.call_tool(tool, args)
            assert r.is_error and data(r)["reason"] == "scope_not_granted", (tool, data(r))

        async with Client(params, mode="legacy") as c:
            win = data(await c.call_tool("get_past_session", {"session_id": SID_A, "limit": 3}))
            assert win["session"]["member"] == "alice@example.com" and win["messages"]
            await refused("get_past_session", {"session_id": SID_O})
            await refused("get_past_session", {"session_id": SID_O[:8]})
            line = data(await c.call_tool("code_history", {"path": f"app.py:{n}"}))
            assert line["entries"][0]["session_id"] == SID_A
            hist = data(await c.call_tool("code_history", {"path": "app.py"}))
            assert SID_A in [e.get("session_id") for e in hist["entries"]]
            await refused("code_history", {"path": "lib.py", "repo": str(team["repo_b"].parent / "other")})
            ctx = data(await c.call_tool("work_context", {"session_id": SID_A}))
            assert ctx["session"]["session_id"] == SID_A
            await refused("work_context", {"session_id": SID_O})
            hits = data(await c.call_tool("search_past_sessions", {"query": "zebra or walrus",
                                                                   "include_team_sessions": True}))
            assert [h["session_id"] for h in hits["results"]] == [SID_A]
            plain = data(await c.call_tool("search_past_sessions", {"query": "zebra or walrus"}))
            assert plain["results"] == []
            mems = data(await c.call_tool("search_memories", {"query": "walrus guidance", "include_team_sessions": True}))
            theirs = [m for m in mems["results"] if m.get("member")]
            assert [m["repo"] for m in theirs] == [str(team["repo_b"])]  # shop's, never other's
            ids = {m["repo"]: m["memory_id"] for m in data(await c.call_tool(
                "search_memories", {"query": "walrus guidance", "include_team_sessions": True}))["results"]}
            got = data(await c.call_tool("get_memory", {"memory_id": ids[str(team["repo_b"])]}))
            assert "walrus guidance of shop" in got["content"]
        # Without --scope repo the other repository's session is Bob's to read.
        async with Client(StdioServerParameters(command=params.command, args=params.args[:-2], env=params.env,
                                                cwd=params.cwd), mode="legacy") as c:
            win = data(await c.call_tool("get_past_session", {"session_id": SID_O}))
            assert win["session"]["member"] == "alice@example.com"
            hits = data(await c.call_tool("search_past_sessions", {"query": "walrus", "include_team_sessions": True}))
            assert [h["session_id"] for h in hits["results"]] == [SID_O]
            mems = data(await c.call_tool("search_memories", {"query": "walrus guidance", "include_team_sessions": True}))
            others = {m["repo"]: m["memory_id"] for m in mems["results"] if m.get("member")}
            assert set(others) == {str(team["repo_b"]), str(team["repo_b"].parent / "other")}
            return others[str(team["repo_b"].parent / "other")]

    other_memory = anyio.run(drive)

    async def refused_memory() -> None:
        async with Client(params, mode="legacy") as c:
            r = await c.call_tool("get_memory", {"memory_id": other_memory})
            assert r.is_error and r.structured_content["reason"] == "scope_not_granted"

    anyio.run(refused_memory)


def test_project_memories_are_shared_redacted_and_searchable_with_the_flags(team) -> None:
    repo_a = team["repo_a"]
    (repo_a / "CLAUDE.md").write_text(f"# Shop\n\nAlways round prices with the quokka rule.\nstaging token {SECRET}\n")
    assert run_cli("memory", "scan")[0] == 0
    dry = cli_json("team", "push", "--dry-run")
    assert [m["rel_path"] for m in dry["memories"]] == ["CLAUDE.md"] and dry["memories"][0]["redactions"] >= 1
    first = cli_json("team", "push")
    assert [m["rel_path"] for m in first["memories"]] == ["CLAUDE.md"]
    assert cli_json("team", "push")["memories"] == []  # unchanged: nothing sent again
    on_server = team["pg"].psql("SELECT COALESCE(string_agg(t::text, E'\\n'), '') FROM memories t")
    assert "quokka rule" in on_server and SECRET not in on_server and SECRET[:12] not in on_server
    _as_bob(team, pushed=0)
    assert cli_json("memory", "search", "quokka")["results"] == []
    hits = cli_json("memory", "search", "quokka", "--include-team-sessions")["results"]
    assert len(hits) == 1 and hits[0]["member"] == "alice@example.com" and hits[0]["rel_path"] == "CLAUDE.md"
    assert hits[0]["memory_id"].startswith("team-") and hits[0]["repo"] == str(team["repo_b"])
    assert cli_json("memory", "search", "quokka", "--team", "core", "--repo", str(team["repo_b"]))["results"]
    shown = cli_json("memory", "show", hits[0]["memory_id"])
    assert "quokka rule" in shown["content"] and SECRET not in shown["content"] and "[REDACTED:" in shown["content"]
    wrong = cli_json("memory", "search", "quokka", "--team", "another")
    assert wrong["results"] == [] and "no team named" in wrong["notice"]
    # Pulled into Bob's store with the sessions.
    assert cli_json("team", "pull")["held"]["memories"] == 1


def test_team_meaning_search_uses_the_pushed_passage_vectors(team) -> None:
    pytest.importorskip("wordllama", reason="meaning search needs the semantic extra")
    _as_bob(team)
    assert int(team["pg"].psql("SELECT COUNT(*) FROM passage_vectors").strip()) > 0
    query = "function that lowers prices by a percentage"
    kw = cli_json("history", query, "--include-team-sessions", "--no-sync")
    assert kw["results"] == []  # no message holds these words
    sem = cli_json("history", query, "--mode", "meaning", "--include-team-sessions", "--no-sync")
    hits = [h for h in sem["results"] if h.get("member")]
    assert [h["session_id"] for h in hits] == [SID_A] and hits[0]["matched_by"] == "meaning"
    both = cli_json("history", "discount helper", "--mode", "hybrid", "--include-team-sessions", "--no-sync")
    hits = [h for h in both["results"] if h.get("member")]
    assert [h["session_id"] for h in hits] == [SID_A] and hits[0]["matched_by"] == "both"
    # Without the flags, meaning search leaves team sessions out too.
    assert not [h for h in cli_json("history", query, "--mode", "meaning", "--no-sync")["results"] if h.get("member")]


def test_team_search_answers_from_the_last_pull_when_the_server_is_down(team) -> None:
    _as_bob(team)
    cli_json("team", "pull")
    pg = team["pg"]
    pg.stop()
    try:
        team["mp"].setenv("HANSARD_TEAM_TIMEOUT", "1")
        d = cli_json("history", "zebra", "--include-team-sessions", "--no-sync")
        assert [h["session_id"] for h in d["results"]] == [SID_A] and d["results"][0]["member"] == "alice@example.com"
        assert d["results"][0]["team"] == "core"
        assert "team sessions as pulled at" in d["notice"] and "did not answer" in d["notice"]
        assert cli_json("history", "zebra", "--no-sync")["results"] == []
    finally:
        pg.start()


def test_a_hung_server_fails_push_and_pull_retryably_and_local_commands_do_not_wait(team) -> None:
    """A server that accepts connections and never answers (SIGSTOP): push and pull give up
    after the team timeout with a retryable error and change nothing locally; commands that
    do not read the team never touch it; why answers from the last pull."""
    import time

    app = _as_bob(team)
    cli_json("team", "pull")
    assert run_cli("index")[0] == 0
    home = team["bob"].root / "hansard"
    local = cli_json("sessions")

    before = _local_state(home)
    pg = team["pg"]
    team["mp"].setenv("HANSARD_TEAM_TIMEOUT", "2")
    pg.pause()
    try:
        for cmd in (("team", "push"), ("team", "pull")):
            t0 = time.monotonic()
            rc, out, _ = run_cli(*cmd, "--json")
            err = json.loads(out)["error"]
            assert rc == 30 and err["code"] == "team_unreachable" and err["retryable"] is True, (cmd, out)
            assert time.monotonic() - t0 < 15, cmd
        assert _local_state(home) == before
        n = _line_of(app, "kept = [i * (1 - rate)")
        t0 = time.monotonic()
        ans = cli_json("why", f"app.py:{n}", "--no-sync")
        assert ans["lines"][0]["session_id"] == SID_A and ans["sessions"][SID_A]["member"] == "alice@example.com"
        assert time.monotonic() - t0 < 12
        # With a long team timeout, a command that tried the server would take at least that long.
        team["mp"].setenv("HANSARD_TEAM_TIMEOUT", "10")
        t0 = time.monotonic()
        assert cli_json("sessions") == local
        assert cli_json("history", "zebra", "--no-sync")["results"] == []
        assert time.monotonic() - t0 < 10  # neither waited for the team timeout
        # Rows pulled (or last tried) within HANSARD_TEAM_FRESH seconds answer without asking the server at all.
        team["mp"].setenv("HANSARD_TEAM_FRESH", "3600")
        t0 = time.monotonic()
        ans = cli_json("why", f"app.py:{n}", "--no-sync")
        assert ans["sessions"][SID_A]["member"] == "alice@example.com"
        assert time.monotonic() - t0 < 10  # less than the team timeout: it never tried to connect
    finally:
        pg.resume()
    assert cli_json("team", "status")["server"]["reachable"] is True  # and it answers again once resumed


def test_a_server_that_hangs_mid_question_fails_within_the_deadline(team) -> None:
    """Connected, then the server stops (SIGSTOP): the waiting statement does not hang, it fails
    as team_unreachable once the client's deadline (statement timeout + connect timeout) passes."""
    import time

    from hansard.errors import TeamUnreachable
    from hansard.store.postgres.store import PostgresTeamStore

    pg = team["pg"]
    server = PostgresTeamStore(pg.url(password=True), me=("x@example.com", "m"), timeout=1, statement_timeout_ms=1000)
    try:
        assert server.run("SELECT 1 AS one") == [{"one": 1}]
        pg.pause()
        try:
            t0 = time.monotonic()
            with pytest.raises(TeamUnreachable):
                server.run("SELECT 2 AS two")
            assert time.monotonic() - t0 < 6
        finally:
            pg.resume()
    finally:
        server.close()
