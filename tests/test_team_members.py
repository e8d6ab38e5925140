"""Members of a team are PostgreSQL roles and the server keeps them apart, on a real
PostgreSQL: the owner makes team ``core`` with Alice and Bob, and team ``other`` with Carol.
With her own credentials Alice cannot forge a row as Bob, change or delete his rows, or push
as him by copying his email and machine id into her config; Carol reads none of core's rows.
Each refusal reaches hansard's caller as a typed error. Also: `team push` sends only sessions
that ran in an opted-in repository, and the team config's low items (a key=value password,
a failed init, the give-up bound of a push to a server that stops answering).
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import cli_json, run_cli
from tests.pg_cluster import Cluster, cluster
from tests.test_team import Member, _git, _need_postgres, _owner_adds

SID_B = "b0b0b0b0-1111-4222-8333-444455556666"


@pytest.fixture(scope="module")
def pg() -> Cluster:
    _need_postgres()
    with cluster() as c:
        yield c


def _repo(path: Path) -> str:
    """A repository with one commit; its root commit."""
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    (path / "app.py").write_text("def total(items):\n    return sum(items)\n")
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "start")
    return _git(path, "rev-list", "--max-parents=0", "HEAD").strip()


def _server(dsn: str, email: str, **kw: Any) -> Any:
    from hansard.store.postgres.store import PostgresTeamStore

    return PostgresTeamStore(dsn, me=(email, "m-" + email), **kw)


def _push_session(server: Any, email: str, root: str, sid: str, word: str, command: str = "{}") -> None:
    """One session with a message, a tool call, an applied edit with its line hashes and a
    passage vector, through hansard's own upload path."""
    up = server.uploads
    member = up.member(email, "m-" + email, None)
    repo = up.repo(root, None, "shop")
    rows = {"messages": [{"message_index": 0, "role": "user", "kind": "text", "text": f"the {word} change",
                          "timestamp": "2026-11-20T10:00:00.000Z"}],
            "tool_calls": [{"message_index": 0, "call_id": "c1", "name": "Bash", "input": command, "output": "ok",
                            "exit_code": 0, "status": "ok", "timestamp": None, "cwd": None}],
            "edits": [{"message_index": 0, "call_id": "c2", "seq": 0, "tool": "Edit", "kind": "edit",
                       "rel_path": "app.py", "timestamp": None, "user_modified": False, "hunks": "[]",
                       "after_text": None, "lines": [("+", 0, 12345, 678, False)]}],
            "model": "m", "passages": [(0, 0, 4, b"\x00\x3c" * 4)]}
    up.put_sessions(member, [(repo, {"session_id": sid, "provider": "claude_code", "title": word}, rows, "h", 0)])


@pytest.fixture
def teams(pg: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    pg.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public AUTHORIZATION hansard")
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "5")
    dsn = _owner_adds(tmp_path, monkeypatch, pg, "alice@example.com", "bob@example.com")
    dsn |= _owner_adds(tmp_path, monkeypatch, pg, "carol@example.com", team="other")
    root = _repo(tmp_path / "origin")
    bob = _server(dsn["bob@example.com"], "bob@example.com")
    try:
        _push_session(bob, "bob@example.com", root, SID_B, "zebra")
    finally:
        bob.close()
    return {"dsn": dsn, "root": root, "pg": pg, "mp": monkeypatch, "tmp": tmp_path}


def _bob_rows(pg: Cluster) -> str:
    """Every row of Bob's, as the superuser reads them (row-level security does not hold it)."""
    return "".join(pg.psql(f"SELECT COALESCE(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM {t} t"
                           " WHERE member_role='core_bob'")
                   for t in ("members", "repos", "sessions", "messages", "tool_calls", "edits", "edit_lines",
                             "passage_vectors"))


def _ids(pg: Cluster) -> dict[str, str]:
    one = lambda sql: pg.psql(sql).strip()
    return {"member": one("SELECT id FROM members WHERE member_role='core_bob'"),
            "repo": one("SELECT id FROM repos WHERE member_role='core_bob'"),
            "session": one("SELECT id FROM sessions WHERE member_role='core_bob'"),
            "message": one("SELECT id FROM messages WHERE member_role='core_bob'"),
            "edit": one("SELECT id FROM edits WHERE member_role='core_bob'")}


def _refused(server: Any, sql: str) -> str:
    from hansard.errors import TeamForbidden

    with pytest.raises(TeamForbidden) as exc:
        server.run(sql)
    assert exc.value.code == "team_forbidden" and exc.value.exit_code == 33
    return exc.value.message


def test_alice_cannot_forge_a_row_as_bob(teams) -> None:
    pg = teams["pg"]
    before, b = _bob_rows(pg), _ids(pg)
    alice = _server(teams["dsn"]["alice@example.com"], "alice@example.com")
    try:
        _push_session(alice, "alice@example.com", teams["root"], "a11ce000-1111-4222-8333-444455556666", "heron")
        mine = alice.run("SELECT id FROM members WHERE member_role=current_user")[0]["id"]
        my_repo = alice.run("SELECT id FROM repos WHERE member_role=current_user")[0]["id"]
        sess = "INSERT INTO sessions(member_id, repo_id, session_id, provider, content_hash{}) VALUES ({}, {}, 'x', 'p', 'h'{})"
        for sql in (
            # Naming Bob as the writer, outright.
            sess.format(", member_role", mine, my_repo, ", 'core_bob'"),
            "INSERT INTO members(email, machine, member_role) VALUES ('bob@example.com', 'm', 'core_bob')",
            # Her role, his rows as parents: a session of his member row, a message in his
            # session, a line in his edit, a vector on his message, an edit in his repository.
            sess.format("", b["member"], my_repo, ""),
            f"INSERT INTO messages(session_row, message_index, role, kind, text) VALUES ({b['session']}, 9, 'user',"
            " 'text', 'FORGED BY ALICE')",
            f"INSERT INTO edit_lines(edit_id, side, ordinal, hash, exact, trivial) VALUES ({b['edit']}, '+', 9, 1, 1, false)",
            f"INSERT INTO passage_vectors(message_id, model, start, \"end\", vector) VALUES ({b['message']}, 'x', 9, 9, '')",
            f"INSERT INTO tool_calls(session_row, call_id, name) VALUES ({b['session']}, 'c', 'Bash')",
            # Bob's email on a member row of her own.
            "INSERT INTO members(email, machine) VALUES ('bob@example.com', 'm-bob@example.com')",
            # The registry is the owner's.
            "INSERT INTO team_members(role, team, email) VALUES ('core_alice', 'core', 'bob@example.com')",
        ):
            _refused(alice, sql)
    finally:
        alice.close()
    assert _bob_rows(pg) == before
    assert "FORGED" not in pg.psql("SELECT string_agg(text, ' ') FROM messages")


def test_alice_cannot_change_or_delete_bob_s_rows(teams) -> None:
    pg = teams["pg"]
    before, b = _bob_rows(pg), _ids(pg)
    alice = _server(teams["dsn"]["alice@example.com"], "alice@example.com")
    try:
        assert alice.run("SELECT count(*) AS n FROM messages")[0]["n"] == 1  # she reads her teammate's
        for sql in (
            f"UPDATE messages SET text='FORGED BY ALICE' WHERE id={b['message']}",
            f"UPDATE sessions SET title='FORGED', first_prompt='FORGED BY ALICE' WHERE id={b['session']}",
            f"UPDATE sessions SET member_role='core_alice' WHERE id={b['session']}",
            f"UPDATE edits SET after_text='FORGED' WHERE id={b['edit']}",
            f"UPDATE edit_lines SET hash=1 WHERE edit_id={b['edit']}",
            f"UPDATE members SET name='FORGED' WHERE id={b['member']}",
            f"UPDATE repos SET name='FORGED' WHERE id={b['repo']}",
            f"DELETE FROM sessions WHERE id={b['session']}",
            f"DELETE FROM messages WHERE id={b['message']}",
            f"DELETE FROM edit_lines WHERE edit_id={b['edit']}",
            "DELETE FROM tool_calls",
            "UPDATE passage_vectors SET vector=''",
        ):
            assert "own rows" in _refused(alice, sql), sql
        # Her own row cannot be handed to Bob either.
        _push_session(alice, "alice@example.com", teams["root"], "a11ce000-1111-4222-8333-444455556666", "heron")
        _refused(alice, "UPDATE sessions SET member_role='core_bob' WHERE member_role=current_user")
    finally:
        alice.close()
    assert _bob_rows(pg) == before


def test_alice_cannot_push_as_bob_by_copying_his_email_and_machine(teams) -> None:
    pg, tmp, mp = teams["pg"], teams["tmp"], teams["mp"]
    alice = Member(tmp / "alice", "Alice", "alice@example.com")
    alice.enter(mp)
    repo = tmp / "alice" / "shop"
    _git(tmp, "clone", "-q", str(tmp / "origin"), str(repo))
    cli_json("team", "join", teams["dsn"]["alice@example.com"])
    mp.chdir(repo)
    cli_json("team", "add-repo", ".")
    # What members exposes to a teammate: Bob's email and machine id.
    seen = _server(teams["dsn"]["alice@example.com"], "alice@example.com")
    try:
        bob = seen.run("SELECT email, machine FROM members WHERE member_role='core_bob'")[0]
    finally:
        seen.close()
    cfg_path = tmp / "alice" / "hansard" / "team" / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["member"].update(email=bob["email"], machine=bob["machine"], name="Bob")
    cfg_path.write_text(json.dumps(cfg))
    before = _bob_rows(pg)
    rc, out, err = run_cli("team", "push", "--json")
    e = json.loads(out)["error"]
    assert rc == 33 and e["code"] == "team_forbidden" and e["retryable"] is False, (out, err)
    assert "core_alice is registered as alice@example.com" in e["message"] and "Traceback" not in err
    assert _bob_rows(pg) == before
    assert pg.psql("SELECT count(*) FROM members WHERE email='bob@example.com'").strip() == "1"
    # His machine id with her own email: the rows are hers, and say so.
    cfg["member"].update(email="alice@example.com")
    cfg_path.write_text(json.dumps(cfg))
    assert run_cli("team", "push", "--json")[0] == 0
    assert pg.psql(f"SELECT member_role FROM members WHERE machine='{bob['machine']}' ORDER BY 1").split() == [
        "core_alice", "core_bob"]
    assert _bob_rows(pg) == before


def test_carol_of_another_team_reads_nothing_of_core(teams) -> None:
    tmp, mp = teams["tmp"], teams["mp"]
    carol = _server(teams["dsn"]["carol@example.com"], "carol@example.com")
    try:
        for t in ("members", "repos", "sessions", "messages", "tool_calls", "edits", "edit_lines", "passage_vectors",
                  "memories"):
            assert carol.run(f"SELECT count(*) AS n FROM {t}")[0]["n"] == 0, t
        assert [r["name"] for r in carol.run("SELECT name FROM teams")] == ["other"]
        assert [r["role"] for r in carol.run("SELECT role FROM team_members")] == ["other_carol"]
        # Nor can she make herself one of them.
        _refused(carol, "GRANT hansard_team__core TO other_carol")
        _refused(carol, "SET ROLE hansard_team__core")
        _refused(carol, "ALTER TABLE messages NO FORCE ROW LEVEL SECURITY")
    finally:
        carol.close()
    # Through hansard: Carol, with a clone of the same repository opted in, neither finds nor
    # opens Bob's session; Alice, of his team, does.
    for name, email, visible in (("carol", "carol@example.com", False), ("alice", "alice@example.com", True)):
        Member(tmp / name, name.title(), email).enter(mp)
        clone = tmp / name / "shop"
        _git(tmp, "clone", "-q", str(tmp / "origin"), str(clone))
        mp.chdir(clone)
        joined = cli_json("team", "join", teams["dsn"][email])
        assert joined["team"] == ("core" if visible else "other")
        cli_json("team", "add-repo", ".")
        hits = cli_json("history", "zebra", "--include-team-sessions", "--no-sync")["results"]
        assert [h["session_id"] for h in hits] == ([SID_B] if visible else [])
        rc, out, _ = run_cli("show", SID_B, "--json")
        if visible:
            assert rc == 0 and json.loads(out)["session"]["member"] == "bob@example.com"
        else:
            assert rc == 10 and json.loads(out)["error"]["code"] == "not_found"
    # A member's credentials do not join another team.
    rc, out, _ = run_cli("team", "join", teams["dsn"]["carol@example.com"], "--name", "core", "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "invalid_argument"


def test_a_pull_brings_what_the_role_may_read_and_carol_pulls_nothing(teams, tmp_path: Path) -> None:
    """A pull reads through the member's role: Alice, of Bob's team, pulls his session, its
    message, tool call, edit, line hashes and passage vector into her store; Carol of another
    team, with the same repository opted in, pulls no row of any table, even asking for Bob's
    session by its row id (which she cannot see, but could guess)."""
    from hansard.store.sqlite.store import SqliteStore
    from hansard.team.pull import pull

    pg, root = teams["pg"], teams["root"]
    bob_row = int(pg.psql("SELECT id FROM sessions WHERE member_role='core_bob'"))
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(tmp_path / "origin"), str(clone))
    held: dict[str, dict[str, int]] = {}
    for who in ("alice", "carol"):
        s = _server(teams["dsn"][f"{who}@example.com"], f"{who}@example.com")
        try:
            asked = s.uploads.export([root], [bob_row])
            assert (asked["sessions"] != []) is (who == "alice"), asked
            if who == "carol":
                assert all(rows == [] for rows in asked.values()), asked
                assert s.uploads.digests([root]) == [] and s.uploads.memories([root]) == []
        finally:
            s.close()
        store = SqliteStore.open(tmp_path / f"{who}.db")
        try:
            cfg = {"name": "core" if who == "alice" else "other", "url": teams["dsn"][f"{who}@example.com"],
                   "member": {"email": f"{who}@example.com", "machine": f"m-{who}@example.com"},
                   "repos": [{"root_commit": root, "path": str(clone), "name": "shop"}]}
            pull(store, cfg)
            held[who] = {t: store.db.execute(f"SELECT COUNT(*) FROM {t} WHERE {col} < 0").fetchone()[0]
                         for t, col in (("sessions", "id"), ("messages", "id"), ("tool_calls", "id"), ("edits", "id"),
                                        ("edit_lines", "edit_id"), ("passage_vectors", "message_id"),
                                        ("memories", "id"))}
        finally:
            store.close()
    assert held["alice"] == {"sessions": 1, "messages": 1, "tool_calls": 1, "edits": 1, "edit_lines": 1,
                             "passage_vectors": 1, "memories": 0}
    assert held["carol"] == dict.fromkeys(held["carol"], 0)


def test_the_search_functions_keep_teams_apart_when_called_outright(teams) -> None:
    """The owner's search functions (t006) stay on the server, callable by members: called
    outright, Carol of another team finds nothing of core's, even given core's root commit and
    repository row; a role of no team may not call them."""
    pg, root = teams["pg"], teams["root"]
    bob_repo = int(pg.psql("SELECT id FROM repos WHERE member_role='core_bob'"))
    for who in ("alice", "carol"):
        s = _server(teams["dsn"][f"{who}@example.com"], f"{who}@example.com")
        try:
            outright = [
                s.run("SELECT * FROM hansard_messages_matching('zebra', %s, '', '', NULL, NULL, 100)", [[root]]),
                s.run("SELECT * FROM hansard_messages_containing('%%zebra%%', NULL, %s, '', '', NULL, NULL, 100)",
                      [[root]]),
                s.run("SELECT * FROM hansard_tool_calls_containing('%%', ARRAY['Bash'], %s, '', '')", [bob_repo])]
            assert [len(r) > 0 for r in outright] == [who == "alice"] * 3, (who, outright)
        finally:
            s.close()
    # A login role of no team.
    pg.psql("DROP ROLE IF EXISTS stranger; CREATE ROLE stranger LOGIN PASSWORD 'stranger-pw';"
            " GRANT USAGE ON SCHEMA public TO stranger")
    stranger = _server(f"postgresql://stranger:stranger-pw@127.0.0.1:{pg.port}/{pg.database}", "s@example.com")
    try:
        for sql in ("SELECT * FROM hansard_messages_matching('zebra', ARRAY['x'], '', '', NULL, NULL, 100)",
                    "SELECT * FROM hansard_tool_calls_containing('%%', ARRAY['Bash'], 1, '', '')"):
            assert "permission denied" in _refused(stranger, sql)
    finally:
        stranger.close()


def test_add_member_again_gives_new_credentials_and_the_old_ones_stop_working(teams) -> None:
    from hansard.errors import TeamUnreachable

    old = teams["dsn"]["bob@example.com"]
    new = _owner_adds(teams["tmp"], teams["mp"], teams["pg"], "bob@example.com")["bob@example.com"]
    assert new != old and new.startswith("postgresql://core_bob:")
    with pytest.raises(TeamUnreachable):
        _server(old, "bob@example.com").close()
    s = _server(new, "bob@example.com")
    try:
        assert s.run("SELECT current_user AS u")[0]["u"] == "core_bob"
    finally:
        s.close()
    # The password never reached the server in clear: the role holds a SCRAM verifier.
    assert teams["pg"].psql("SELECT rolpassword FROM pg_authid WHERE rolname='core_bob'").startswith("SCRAM-SHA-256$")


# -- push sends only sessions of opted-in repositories --------------------------------------------


def test_push_leaves_out_a_session_that_ran_in_a_repository_not_opted_in(teams) -> None:
    """A session that ran in `private` (not opted in) and edited a file of `shop` (opted in)
    stays on this machine, whole: its transcript is private's."""
    from fixtures_repos.writers import ClaudeWriter

    pg, tmp, mp = teams["pg"], teams["tmp"], teams["mp"]
    alice = Member(tmp / "alice", "Alice", "alice@example.com")
    alice.enter(mp)
    shop = tmp / "alice" / "shop"
    _git(tmp, "clone", "-q", str(tmp / "origin"), str(shop))
    private = tmp / "alice" / "private"
    _repo(private)
    at = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
    w = ClaudeWriter(alice.root / ".claude", private, "0d0d0d0d-1111-4222-8333-444455556666", at)
    w.prompt("the private walrus plan; also fix shop's total")
    w.edit(shop / "app.py", "    return sum(items)\n", "    return sum(items) or 0\n")
    w = ClaudeWriter(alice.root / ".claude", shop, "5e5e5e5e-1111-4222-8333-444455556666", at)
    w.prompt("shop's own heron change")
    w.edit(shop / "app.py", "def total(items):\n", "def total(items):  # heron\n")
    assert run_cli("index")[0] == 0
    cli_json("team", "join", teams["dsn"]["alice@example.com"])
    mp.chdir(shop)
    cli_json("team", "add-repo", ".")
    dry = cli_json("team", "push", "--dry-run")
    assert [s["session_id"] for s in dry["sessions"]] == ["5e5e5e5e-1111-4222-8333-444455556666"]
    assert cli_json("team", "push")["pushed"] == 1
    on_server = pg.psql("SELECT string_agg(text, ' ') FROM messages")
    assert "heron" in on_server and "walrus" not in on_server
    assert pg.psql("SELECT count(*) FROM sessions WHERE session_id LIKE '0d0d0d0d%'").strip() == "0"


# -- role names: groups and members never collide; init adopts no role ---------------------------


def _login(pg: Cluster, role: str) -> bool:
    return pg.psql(f"SELECT rolcanlogin FROM pg_roles WHERE rolname='{role}'").strip() == "t"


def test_a_member_role_never_becomes_another_team_s_group(teams) -> None:
    """Team `hansard` with member team_zeta@ (login role hansard_team_zeta), then team `zeta`:
    zeta's group is a role of its own, and that member reads none of zeta's rows."""
    pg, mp, tmp = teams["pg"], teams["mp"], teams["tmp"]
    dsn = _owner_adds(tmp, mp, pg, "team_zeta@example.com", team="hansard")
    dsn |= _owner_adds(tmp, mp, pg, "zed@example.com", team="zeta")
    grp = pg.psql("SELECT grp FROM teams WHERE name='zeta'").strip()
    assert grp != "hansard_team_zeta" and not _login(pg, grp) and _login(pg, "hansard_team_zeta")
    zed = _server(dsn["zed@example.com"], "zed@example.com")
    try:
        _push_session(zed, "zed@example.com", teams["root"], "2e2e2e2e-1111-4222-8333-444455556666", "quokka")
    finally:
        zed.close()
    member = _server(dsn["team_zeta@example.com"], "team_zeta@example.com")
    try:
        for t in ("sessions", "messages", "edits"):
            assert member.run(f"SELECT count(*) AS n FROM {t}")[0]["n"] == 0, t
    finally:
        member.close()


def test_init_adopts_no_role_it_did_not_make_as_a_group(teams) -> None:
    pg, mp, tmp = teams["pg"], teams["mp"], teams["tmp"]
    _owner_adds(tmp, mp, pg)  # the owner's config
    # Roles of the names a team's group takes (old and new), made by someone else: a login role,
    # and a NOLOGIN one hansard did not make.
    for team, how in (("evil", "LOGIN PASSWORD 'x'"), ("stranger", "NOLOGIN")):
        for name in (f"hansard_team_{team}", f"hansard_team__{team}"):
            pg.psql(f"CREATE ROLE {name} {how}")
        rc, out, err = run_cli("team", "init", pg.url(password=True), "--name", team, "--json")
        assert rc == 2 and json.loads(out)["error"]["code"] == "invalid_argument", (out, err)
        assert "not adopted" in json.loads(out)["error"]["message"] or "can log in" in json.loads(out)["error"]["message"]
        assert pg.psql(f"SELECT count(*) FROM teams WHERE name='{team}'").strip() == "0"
    # Its own group, after the tables were made again, it takes back.
    grp = pg.psql("SELECT grp FROM teams WHERE name='core'").strip()
    pg.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public AUTHORIZATION hansard")
    assert cli_json("team", "init", pg.url(password=True), "--name", "core")["group_role"] == grp


def test_add_member_takes_no_group_and_no_role_that_is_not_a_member(teams) -> None:
    pg, mp, tmp = teams["pg"], teams["mp"], teams["tmp"]
    _owner_adds(tmp, mp, pg)
    grp = pg.psql("SELECT grp FROM teams WHERE name='core'").strip()
    pg.psql("DROP ROLE IF EXISTS outsider; CREATE ROLE outsider LOGIN PASSWORD 'x'")
    for role in (grp, "hansard", "outsider", "core__x"):
        rc, out, err = run_cli("team", "add-member", "x@example.com", "--role", role, "--json")
        assert rc == 2 and json.loads(out)["error"]["code"] == "invalid_argument", (role, out, err)
    assert not _login(pg, grp)
    assert pg.psql("SELECT count(*) FROM team_members WHERE email='x@example.com'").strip() == "0"
    # A member of core is not made a member of other too.
    rc, out, _ = run_cli("team", "add-member", "alice@example.com", "--team", "other", "--role", "core_alice", "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "invalid_argument"


# -- team config: passwords, failed init, the give-up bound ----------------------------------------


def _kv(pg: Cluster, user: str, password: str) -> str:
    return f"host=127.0.0.1 port={pg.port} dbname=team user={user} password={password}"


def test_a_key_value_password_is_kept_only_in_pgpass_and_never_printed(teams, tmp_path: Path) -> None:
    from urllib.parse import urlsplit

    pg, mp = teams["pg"], teams["mp"]
    secret = urlsplit(teams["dsn"]["alice@example.com"]).password
    assert secret
    Member(tmp_path / "kv", "Alice", "alice@example.com").enter(mp)
    outputs = [run_cli("team", "join", _kv(pg, "core_alice", secret))[1], run_cli("team", "status")[1],
               run_cli("team", "status", "--json")[1]]
    home = tmp_path / "kv" / "hansard" / "team"
    cfg = (home / "config.json").read_text()
    assert secret not in cfg and "password" not in cfg
    from psycopg.conninfo import conninfo_to_dict

    assert conninfo_to_dict(json.loads(cfg)["url"]) == {"host": "127.0.0.1", "port": str(pg.port), "dbname": "team",
                                                        "user": "core_alice"}
    assert secret in (home / "pgpass").read_text()
    assert json.loads(outputs[2])["server"]["reachable"] is True  # the password came from pgpass
    assert all(out and secret not in out for out in outputs)
    # The owner's init, the same.
    Member(tmp_path / "kvowner", "Owner", "owner@example.com").enter(mp)
    out = run_cli("team", "init", _kv(pg, "hansard", pg.password), "--name", "core")[1]
    out += run_cli("team", "status")[1]
    assert pg.password not in out and pg.password not in (tmp_path / "kvowner/hansard/team/config.json").read_text()
    # A config an older hansard wrote with the password in it: status does not print it.
    cfg_path = tmp_path / "kvowner/hansard/team/config.json"
    old = json.loads(cfg_path.read_text())
    cfg_path.write_text(json.dumps({**old, "url": _kv(pg, "hansard", pg.password)}))
    for out in (run_cli("team", "status")[1], run_cli("team", "status", "--json")[1]):
        assert out and pg.password not in out


def test_init_and_join_over_a_unix_socket_keep_a_password_libpq_finds_there(teams, tmp_path: Path) -> None:
    """A socket's folder is the host libpq looks the password file up by (``localhost`` only for
    the folder it was built with): init and join over the cluster's own socket folder, then
    commands that connect with no password but the file's."""
    from urllib.parse import urlsplit

    pg, mp = teams["pg"], teams["mp"]
    mp.delenv("PGPASSWORD", raising=False)
    mp.delenv("PGPASSFILE", raising=False)
    secret = urlsplit(teams["dsn"]["alice@example.com"]).password
    Member(tmp_path / "sock", "Alice", "alice@example.com").enter(mp)
    cli_json("team", "join", f"host={pg.folder} port={pg.port} dbname=team user=core_alice password={secret}")
    pgpass = (tmp_path / "sock" / "hansard" / "team" / "pgpass").read_text()
    assert f"{pg.folder}:{pg.port}:team:core_alice:" in pgpass
    assert cli_json("team", "status")["server"]["reachable"] is True
    Member(tmp_path / "sockowner", "Owner", "owner@example.com").enter(mp)
    cli_json("team", "init", pg.socket_url(password=True), "--name", "core")
    assert cli_json("team", "status")["server"]["reachable"] is True
    assert cli_json("team", "add-member", "dave@example.com")["role"] == "core_dave"


def test_a_failed_init_or_join_writes_nothing(teams, tmp_path: Path) -> None:
    pg, mp = teams["pg"], teams["mp"]
    Member(tmp_path / "nobody", "N", "n@example.com").enter(mp)
    home = tmp_path / "nobody" / "hansard" / "team"
    wrong = f"postgresql://hansard:not-the-password@127.0.0.1:{pg.port}/team"
    for cmd in (("team", "init", wrong, "--name", "core"), ("team", "join", wrong),
                ("team", "join", _kv(pg, "core_alice", "not-the-password")),
                # The owner is no member: joining with its credentials is refused.
                ("team", "join", pg.url(password=True))):
        rc, out, err = run_cli(*cmd, "--json")
        assert rc in (30, 33) and json.loads(out)["error"]["code"] in ("team_unreachable", "team_forbidden"), (out, err)
        assert not (home / "config.json").exists() and not (home / "pgpass").exists(), cmd
    # A member who had joined and fails to join again keeps the config and password file they had.
    cli_json("team", "join", teams["dsn"]["alice@example.com"])
    before = {n: (home / n).read_bytes() for n in ("config.json", "pgpass")}
    assert run_cli("team", "join", wrong.replace("hansard:", "core_alice:"))[0] == 30
    assert {n: (home / n).read_bytes() for n in ("config.json", "pgpass")} == before


def test_a_push_to_a_server_that_stops_answering_gives_up_within_the_documented_bound(teams) -> None:
    """docs/team.md: the statement timeout plus the connect timeout (about 33 s at the defaults;
    here 2 + 1 s). A push writes several statements in one transaction: the bound is the one of
    a statement, not a multiple of it (it was 4x: 133 s)."""
    from hansard.errors import TeamUnreachable
    from hansard.team.config import TIMEOUT

    assert TIMEOUT == 3.0  # the documented default: 30 s + 3 s
    pg = teams["pg"]
    alice = _server(teams["dsn"]["alice@example.com"], "alice@example.com", timeout=1, statement_timeout_ms=2000)
    try:
        assert alice.deadline == 3
        up = alice.uploads
        member, repo = up.member("alice@example.com", "m", None), up.repo(teams["root"], None, "shop")
        pg.pause()
        try:
            t0 = time.monotonic()
            with pytest.raises(TeamUnreachable):
                up.put_sessions(member, [(repo, {"session_id": "s", "provider": "p"},
                                          {"messages": [], "tool_calls": [], "edits": []}, "h", 0)])
            waited = time.monotonic() - t0
        finally:
            pg.resume()
    finally:
        alice.close()
    assert waited < 3 * alice.deadline  # generous; four deadlines (the old bound) is 12 s
    # A member's config says how long a connection may take.
    Member(teams["tmp"] / "t", "T", "t@example.com").enter(teams["mp"])
    cli_json("team", "join", teams["dsn"]["alice@example.com"])
    cfg = json.loads((teams["tmp"] / "t/hansard/team/config.json").read_text())
    assert cfg["timeout"] == 3.0 and not os.environ.get("HANSARD_TEAM_TIMEOUT")


def test_a_member_cannot_add_members_or_migrate(teams) -> None:
    """Alice, joined with her own credentials, tries the owner's commands: the server refuses
    each (a typed error, no traceback), and no role is made."""
    Member(teams["tmp"] / "alice", "Alice", "alice@example.com").enter(teams["mp"])
    cli_json("team", "join", teams["dsn"]["alice@example.com"])
    for cmd in (("team", "add-member", "mallory@example.com"), ("team", "add-member", "bob@example.com"),
                ("team", "init", teams["dsn"]["alice@example.com"], "--name", "core")):
        rc, out, err = run_cli(*cmd, "--json")
        assert rc == 33 and json.loads(out)["error"]["code"] == "team_forbidden", (cmd, out, err)
        assert "Traceback" not in err
    assert teams["pg"].psql("SELECT count(*) FROM pg_roles WHERE rolname='core_mallory'").strip() == "0"
