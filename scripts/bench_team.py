"""Bench team sessions on a real PostgreSQL (a throwaway cluster, as the tests start one).

Member Alice has N Claude Code sessions in one repository (written as real transcripts and
indexed): the first ``--why-sessions`` of them each appended a block to ``app.py``, which is
committed; the others edited files of their own. Member Bob has a clone and no sessions; the
team's rows reach him by a pull, into his store's own tables (hansard.team.pull). It measures:

- ``hansard team push`` of the N sessions (sessions/s, rows/s), beside the baseline: a
  ``COPY`` of the very same rows into empty tables of the same shape, with row-level security
  on and off (``ALTER TABLE ... DISABLE ROW LEVEL SECURITY`` and the own-rows triggers off, as
  the superuser);
- Bob's pull: the first (every session), and one with nothing new (the digests' round trip);
- ``why app.py`` for Bob from the pulled rows beside Alice's from her own (target: within
  1.2x), each computed afresh, the ways taking turns round by round: the store opened per
  question (one CLI call: Bob's includes the freshness check), a store kept open (the language
  and MCP servers), Bob pulling at every question (``HANSARD_TEAM_FRESH=0``), and one request
  of the application each (``Hansard.request``: what the adapters ask through, Alice's with the
  team off); each answer's lines are compared with Alice's;
- team keyword search over the pulled rows with ``--messages`` messages on the server (added in
  bulk by SQL beside the pushed ones, then pulled): p50/p95 of a set of queries, beside the
  same queries over this machine's sessions alone;
- what a member of another team pulls (row-level security: nothing).

``--tool-calls N`` adds N shell calls to Alice's sessions first (why looks for a shell command
that may have written the file). Printed, never asserted.

    python scripts/bench_team.py [--sessions 1000] [--messages 100000] [--rounds 20] [--tool-calls 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("retry backoff upload cache token parser schema commit branch index query session window merge "
         "rebase deploy rollout metric latency budget handler socket stream buffer worker thread queue lock "
         "timeout config secret redact vector embed search filter memory prompt agent review release").split()


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _as(home: Path, name: str, email: str) -> None:
    os.environ.update(HANSARD_HOME=str(home / "hansard"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                      GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
                      GIT_COMMITTER_EMAIL=email)


def build(base: Path, n: int, why_sessions: int) -> Path:
    from fixtures_repos.writers import ClaudeWriter

    repo = base / "alice" / "shop"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    app = repo / "app.py"
    app.write_text('"""The shop."""\n')
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "start")
    t0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    text = app.read_text()
    for i in range(n):
        w = ClaudeWriter(base / "alice" / ".claude", repo, f"00000000-0000-4000-8000-{i:012d}", t0 + timedelta(minutes=7 * i))
        w.prompt(f"session {i}: make the {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} faster")
        w.say(" ".join(WORDS[(i + k) % len(WORDS)] for k in range(40)))
        if i < why_sessions:
            text += (f"\n\ndef step_{i}(items, rate={i}):\n    kept = [x * rate for x in items if x]\n"
                     f"    total_{i} = sum(kept) + {i}\n    return round(total_{i}, 2)\n")
            w.write(app, text)
        else:
            w.write(repo / f"mod_{i}.py", f"def f_{i}(x):\n    return x + {i}\n")
        w.bash("pytest -q", stdout="3 passed")
    _git(repo, "add", "app.py")
    _git(repo, "commit", "-q", "-m", "steps")
    return repo


def world(prefix: str, sessions: int, why_sessions: int) -> tuple[Path, Path]:
    """A fresh folder with Alice's and Bob's homes, Alice's repository built and indexed (Alice is
    the current identity afterwards): (the folder, the repository)."""
    from hansard.cli import main as cli

    base = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", TZ="UTC")
    for h in (base / "alice", base / "bob"):
        (h / "hansard").mkdir(parents=True)
        (h / ".claude").mkdir()
    _as(base / "alice", "Alice", "alice@example.com")
    t = time.perf_counter()
    repo = build(base, sessions, why_sessions)
    assert cli(["index"]) == 0
    print(f"built and indexed {sessions} sessions in {time.perf_counter() - t:.1f}s")
    return base, repo


def team(base: Path, url: str) -> dict[str, str]:
    """The owner makes the team and a role for Alice and Bob; Alice joins with hers and opts the
    current folder's repository in. Each member's connection string, by email."""
    from hansard.cli import main as cli
    from hansard.team import commands

    (base / "owner" / "hansard").mkdir(parents=True)
    os.environ["HANSARD_HOME"] = str(base / "owner" / "hansard")
    assert cli(["team", "init", url, "--name", "bench"]) == 0
    dsn = {e: commands.add_member(e)["dsn"] for e in ("alice@example.com", "bob@example.com")}
    _as(base / "alice", "Alice", "alice@example.com")
    assert cli(["team", "join", dsn["alice@example.com"]]) == 0
    assert cli(["team", "add-repo", "."]) == 0
    return dsn


def bob_joins(base: Path, repo: Path, dsn: dict[str, str]) -> Path:
    """Bob clones the repository, joins the team, opts it in and indexes (no session of his
    own); he is the current identity, in his clone, afterwards. His clone."""
    import contextlib
    import io

    from hansard.cli import main as cli

    bob = base / "bob"
    repo_b = bob / "shop"
    _git(bob, "clone", "-q", str(repo), str(repo_b))
    _as(bob, "Bob", "bob@example.com")
    os.chdir(repo_b)
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli(["team", "join", dsn["bob@example.com"]]) == 0
        assert cli(["team", "add-repo", "."]) == 0
        assert cli(["index"]) == 0
    return repo_b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--why-sessions", type=int, default=50)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--tool-calls", type=int, default=0,
                    help="shell calls added in bulk to the member's sessions before `why` is measured (its look"
                         " into teammates' shell commands reads them)")
    a = ap.parse_args()

    from hansard.cli import main as cli
    from tests.pg_cluster import cluster

    os.environ["HANSARD_NO_BACKGROUND"] = "1"
    base, repo = world("hansard-bench-team-", a.sessions, a.why_sessions)
    alice = base / "alice"

    with cluster() as pg:
        os.chdir(repo)
        import contextlib
        import io

        from hansard.store.postgres.migrations import MEMBER_TABLES

        def rls(on: bool) -> None:
            verb = "ENABLE" if on else "DISABLE"
            pg.psql("; ".join(f"ALTER TABLE {tb} {verb} ROW LEVEL SECURITY; ALTER TABLE {tb} {verb} TRIGGER USER"
                              for tb in MEMBER_TABLES))

        with contextlib.redirect_stdout(io.StringIO()):
            dsn = team(base, pg.url(password=True))
        from hansard.store import open_store
        from hansard.team import commands

        local = open_store()
        # Each into empty tables, the same rows, off and on in turn twice (the machine's load
        # moves under a single pair): the faster of each.
        pushes: dict[bool, float] = {}
        for on in (False, True, False, True):
            pg.psql("TRUNCATE " + ", ".join(tb for tb in MEMBER_TABLES if tb not in ("members", "repos")))
            rls(on)
            t = time.perf_counter()
            res = commands.push(local, None)
            pushes[on] = min(pushes.get(on, 1e9), time.perf_counter() - t)
        push_s = pushes[True]
        rows = {tb: int(pg.psql(f"SELECT COUNT(*) FROM {tb}")) for tb in ("sessions", "messages", "tool_calls", "edits",
                                                                           "edit_lines")}
        total_rows = sum(rows.values())
        print(f"push: {res['pushed']} sessions, {total_rows} rows ({rows}); with row-level security"
              f" {push_s:.2f}s = {res['pushed'] / push_s:.0f} sessions/s, {total_rows / push_s:.0f} rows/s;"
              f" without it {pushes[False]:.2f}s = {total_rows / pushes[False]:.0f} rows/s;"
              f" ratio {push_s / pushes[False]:.2f}x")
        t = time.perf_counter()
        again = commands.push(local, None)
        print(f"push again: {again['pushed']} sent, {again['unchanged']} unchanged in {time.perf_counter() - t:.2f}s")
        # Baseline: COPY of the same rows into empty tables of the same shape, one transaction
        # (what a push did before row-level security, which refuses COPY FROM).
        import psycopg

        rls(False)  # the owner reads every member's rows
        with psycopg.connect(pg.url(password=True)) as conn:
            data = {}
            for tb in rows:
                cols = [r[0] for r in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name=%s AND is_generated='NEVER'"
                    " ORDER BY ordinal_position", (tb,))]
                data[tb] = (cols, conn.execute(f"SELECT {', '.join(cols)} FROM {tb}").fetchall())
                conn.execute(f"CREATE TABLE copy_{tb} (LIKE {tb} INCLUDING DEFAULTS INCLUDING GENERATED"
                             " INCLUDING INDEXES)")
            conn.commit()
            rls(True)
            t = time.perf_counter()
            with conn.transaction():
                for tb, (cols, body) in data.items():
                    with conn.cursor().copy(f"COPY copy_{tb} ({', '.join(cols)}) FROM STDIN") as cp:
                        for r in body:
                            cp.write_row(r)
            copy_s = time.perf_counter() - t
        print(f"COPY baseline: {total_rows} rows in {copy_s:.2f}s = {total_rows / copy_s:.0f} rows/s;"
              f" push is {push_s / copy_s:.1f}x the COPY time with row-level security,"
              f" {pushes[False] / copy_s:.1f}x without")
        rls(True)

        if a.tool_calls:
            t = time.perf_counter()
            sid = int(pg.psql("SELECT MIN(id) FROM sessions"))
            rls(False)
            pg.psql("INSERT INTO tool_calls(member_role, session_row, call_id, name, input, output, timestamp)"
                    f" SELECT 'bench_alice', {sid} + (g % {res['pushed']}), 'bulk_' || g, 'Bash',"
                    " '{\"command\": \"pytest -q tests/test_' || (g % 5000) || '_' || g || '.py\"}', 'ok',"
                    " to_char(timestamp '2026-11-01' + g * interval '1 second', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
                    f" FROM generate_series(1, {a.tool_calls}) g; ANALYZE", timeout=3600)
            rls(True)
            print(f"added {a.tool_calls} shell calls in {time.perf_counter() - t:.1f}s")

        # Bob pulls: everything first, then with nothing new.
        repo_b = bob_joins(base, repo, dsn)
        local_b = open_store()
        from hansard.team.config import load
        from hansard.team.pull import pull

        t = time.perf_counter()
        first = pull(local_b, load())
        first_t = time.perf_counter() - t
        size = os.path.getsize(local_b.path) + (os.path.getsize(local_b.path + "-wal")
                                                if os.path.exists(local_b.path + "-wal") else 0)
        pulls = []
        for _ in range(max(3, a.rounds // 4)):
            t = time.perf_counter()
            pull(local_b, load())
            pulls.append(time.perf_counter() - t)
        print(f"pull: the first {first_t * 1000:.0f} ms ({first['sessions']} sessions, {first['messages']} messages,"
              f" {first['edit_lines']} edit lines; the store {size / 1e6:.1f} MB after it); with nothing new"
              f" {statistics.median(pulls) * 1000:.1f} ms (connect, schema check, the digests)")

        # why app.py: Alice from her own sessions, Bob from the pulled rows, every way in turn.
        from hansard.answers.why import explain
        from hansard.team import refresh

        alice_db = str(alice / "hansard" / "hansard.db")

        def alice_cold() -> dict:
            s = open_store(alice_db)
            try:
                return explain(s, "app.py", cwd=str(repo), cache=False)
            finally:
                s.close()

        def bob_cold() -> dict:
            s = open_store()
            try:
                refresh(s)  # within HANSARD_TEAM_FRESH: a read of the pull's state
                return explain(s, "app.py", cwd=str(repo_b), cache=False)
            finally:
                s.close()

        from hansard.app.house import Hansard

        def asked(home: str, cwd: Path, team: bool) -> dict:
            """why as an adapter asks it: one request of the application (its freshness: the
            repository's facts kept, and the team's rows pulled when stale), no cached answer."""
            was = os.environ["HANSARD_HOME"]
            os.environ["HANSARD_HOME"] = home
            try:
                with Hansard(sync=False, cache=False, team=team).request() as rq:
                    return dict(rq.why_answer("app.py", cwd=str(cwd)))
            finally:
                os.environ["HANSARD_HOME"] = was

        bob_home = os.environ["HANSARD_HOME"]

        def bob_pulling() -> dict:
            os.environ["HANSARD_TEAM_FRESH"] = "0"
            try:
                return bob_cold()
            finally:
                del os.environ["HANSARD_TEAM_FRESH"]

        local_a = open_store(alice_db)
        ways = {
            "Alice, local, opened per question (one CLI call)": alice_cold,
            "Alice, local, kept store": lambda: explain(local_a, "app.py", cwd=str(repo), cache=False),
            "Bob, pulled rows, opened per question": bob_cold,
            "Bob, pulled rows, kept store": lambda: explain(local_b, "app.py", cwd=str(repo_b), cache=False),
            "Bob, pulling at every question (HANSARD_TEAM_FRESH=0)": bob_pulling,
            "Alice, local, one request of the application": lambda: asked(str(alice / "hansard"), repo, False),
            "Bob, pulled rows, one request of the application": lambda: asked(bob_home, repo_b, True),
        }
        baseline = {"Alice, local, opened per question (one CLI call)": "Alice, local, opened per question (one CLI call)",
                    "Alice, local, kept store": "Alice, local, kept store",
                    "Bob, pulled rows, opened per question": "Alice, local, opened per question (one CLI call)",
                    "Bob, pulled rows, kept store": "Alice, local, kept store",
                    "Bob, pulling at every question (HANSARD_TEAM_FRESH=0)":
                        "Alice, local, opened per question (one CLI call)",
                    "Alice, local, one request of the application": "Alice, local, one request of the application",
                    "Bob, pulled rows, one request of the application":
                        "Alice, local, one request of the application"}
        times: dict[str, list[float]] = {k: [] for k in ways}
        answers: dict[str, dict] = {}
        for _ in range(a.rounds):  # in turn, so the machine's load falls on every way alike
            for k, f in ways.items():
                t = time.perf_counter()
                answers[k] = f()
                times[k].append(time.perf_counter() - t)
        med = {k: statistics.median(v) for k, v in times.items()}

        def lines(ans: dict) -> list[tuple]:
            return [(ln["kind"], ln.get("session_id"), ln.get("message_index"), ln.get("tool_call_id"), ln.get("rule"))
                    for ln in ans["lines"]]

        mine = lines(answers["Alice, local, kept store"])
        agent = sum(1 for ln in answers["Alice, local, kept store"]["lines"] if ln["kind"] == "agent")
        print(f"why app.py ({len(mine)} lines, {agent} agent lines for Alice), median of {a.rounds} answers each,"
              " afresh (no why cache), with row-level security, the ways in turn:")
        for label, secs in med.items():
            same = sum(1 for x, y in zip(lines(answers[label]), mine, strict=True) if x == y)
            print(f"  {label:56} {secs * 1000:7.1f} ms  {secs / med[baseline[label]]:5.2f}x"
                  f"   lines as Alice's: {same}/{len(mine)}")
        local_a.close()

        # Team search over the pulled rows, with --messages messages on the server.
        have = int(pg.psql("SELECT COUNT(*) FROM messages"))
        extra = max(0, a.messages - have)
        if extra:
            t = time.perf_counter()
            words = "ARRAY[" + ",".join(f"'{w}'" for w in WORDS) + "]"
            sid = int(pg.psql("SELECT MIN(id) FROM sessions"))
            rls(False)
            step = 200_000
            for lo in range(0, extra, step):
                hi = min(extra, lo + step)
                pg.psql(
                    "INSERT INTO messages(member_role, session_row, message_index, role, kind, text, timestamp)"
                    f" SELECT 'bench_alice', {sid} + (g % {res['pushed']}), 100000 + g, 'assistant', 'text',"
                    f" (SELECT string_agg(({words})[1 + ((g * 31 + k * 17) % {len(WORDS)})], ' ')"
                    " FROM generate_series(1, 24) k) || ' id_' || g,"
                    " to_char(timestamp '2026-11-01' + g * interval '1 second', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
                    f" FROM generate_series({lo}, {hi - 1}) g", timeout=1200)
            # New rows in pushed sessions: their digests say so, as a push of them again would.
            pg.psql("UPDATE sessions SET content_hash = content_hash || '+'; ANALYZE")
            rls(True)
            print(f"added {extra} messages on the server in {time.perf_counter() - t:.1f}s")
            t = time.perf_counter()
            again_pull = pull(local_b, load())
            print(f"pull of the changed sessions: {time.perf_counter() - t:.1f}s ({again_pull['sessions']} sessions,"
                  f" {again_pull['messages']} messages)")
        from hansard.answers.search.sessions import search_past_sessions

        queries = ["retry backoff", "upload token", '"deploy rollout"', "latency budget handler", "schema or parser",
                   "redact -secret", "worker thread queue", "merge rebase", "id_4242", "vector embed search"]
        n = local_b.db.execute("SELECT COUNT(*) FROM messages WHERE id < 0").fetchone()[0]
        for label, team_flag, store in (("Bob, teammates' sessions (--include-team-sessions)", True, local_b),
                                        ("Alice, her own sessions", False, open_store(alice_db))):
            took = []
            for _ in range(max(1, a.rounds // 4)):
                for qtext in queries:
                    t = time.perf_counter()
                    search_past_sessions(store, qtext, include_team_sessions=team_flag, limit=10)
                    took.append(time.perf_counter() - t)
            took.sort()
            print(f"keyword search, {label} ({n} pulled messages in Bob's store): p50 {took[len(took) // 2] * 1000:.1f} ms,"
                  f" p95 {took[int(len(took) * 0.95) - 1] * 1000:.1f} ms ({len(took)} queries)")
        local_b.close()

        # Row-level security decides what a pull brings: a member of another team, with the same
        # repository opted in, pulls nothing of Alice's.
        carol = base / "carol"
        (carol / "hansard").mkdir(parents=True)
        (carol / ".claude").mkdir()
        with contextlib.redirect_stdout(io.StringIO()):
            os.environ["HANSARD_HOME"] = str(base / "owner" / "hansard")
            assert cli(["team", "init", pg.url(password=True), "--name", "other"]) == 0
            carol_dsn = commands.add_member("carol@example.com", team="other")["dsn"]
            _as(carol, "Carol", "carol@example.com")
            assert cli(["team", "join", carol_dsn]) == 0
            assert cli(["team", "add-repo", "."]) == 0
        theirs = open_store()
        got = pull(theirs, load())
        print(f"pull through Carol's role (another team, the same repository opted in): {got}")
        theirs.close()


if __name__ == "__main__":
    main()
