"""Both stores against the protocols of hansard/store/interfaces.py (issue 26): every facet of
``Store`` that an engine implements has every method of its protocol, with the same parameter
names, kinds and defaults, and every attribute. mypy holds the types (``open_store`` returns a
``Store``; hansard.store.postgres.queries and hansard.team.view hold the team store and the team
view to ``Store``); this test holds the shape at run time, for both engines and the view.

``PG_NOT_YET`` would list a facet the PostgreSQL store does not implement, with why; it is empty."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest

from hansard.store import interfaces
from hansard.store.interfaces import ItemWriter, Redactor, Store


def _store_facets() -> dict[str, type]:
    """Store's facet name -> its protocol, from the protocol's own property annotations."""
    out = {}
    for name, member in vars(Store).items():
        if isinstance(member, property):
            hint = typing.get_type_hints(member.fget, vars(interfaces))["return"]
            if isinstance(hint, type) and getattr(hint, "_is_protocol", False):
                out[name] = hint
    return out


FACETS = _store_facets()


def _methods(proto: type) -> dict[str, Any]:
    return {n: m for n, m in vars(proto).items() if inspect.isfunction(m) and not n.startswith("_")}


def _attributes(proto: type) -> list[str]:
    return [n for n in getattr(proto, "__annotations__", {}) if not n.startswith("_")]


def _shape(fn: Any, *, drop_self: bool) -> list[tuple[str, Any, Any]]:
    params = list(inspect.signature(fn).parameters.values())
    if drop_self:
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


def problems(impl: Any, proto: type) -> list[str]:
    """What ``impl`` (an instance, a class or a module) lacks of ``proto``: missing methods and
    attributes, and methods whose parameters differ in name, kind or default."""
    out = []
    for name, fn in _methods(proto).items():
        got = getattr(impl, name, None)
        if got is None or not callable(got):
            out.append(f"{name}: missing")
            continue
        want = _shape(fn, drop_self=True)
        have = _shape(got, drop_self=inspect.isclass(impl))
        if have != want:
            out.append(f"{name}: {[(n, k.name, d) for n, k, d in have]} != {[(n, k.name, d) for n, k, d in want]}")
    for name in _attributes(proto):
        if not hasattr(impl, name):
            out.append(f"{name}: attribute missing")
    return out


def test_the_store_protocol_lists_its_facets() -> None:
    assert len(FACETS) == 16, FACETS
    assert {"archive", "items", "evidence", "repos", "sessions", "search"} <= set(FACETS)


@pytest.fixture
def sqlite_store(tmp_path: Any) -> Any:
    from hansard.store.sqlite.store import SqliteStore

    store = SqliteStore.open(tmp_path / "store.db")
    yield store
    store.close()


@pytest.mark.parametrize("facet", sorted(FACETS))
def test_sqlite_store_facet_satisfies_its_protocol(sqlite_store: Any, facet: str) -> None:
    assert problems(getattr(sqlite_store, facet), FACETS[facet]) == []


def test_sqlite_store_has_every_store_member(sqlite_store: Any) -> None:
    assert problems(sqlite_store, Store) == []
    assert isinstance(sqlite_store.readonly, bool)


def test_sqlite_item_writer_and_the_redactor(sqlite_store: Any) -> None:
    """The item sink's writer (``items.writer(...)``) is an ``ItemWriter``, and the redaction
    module handed to it is a ``Redactor``."""
    from hansard.ingest import redact

    assert problems(redact, Redactor) == []
    assert problems(sqlite_store.items.writer(0, "claude_code", redact), ItemWriter) == []


# --- the PostgreSQL team store ---------------------------------------------------------------

# Every Store facet is implemented by the team store (issue 26, item 1: one store contract): the
# facets it keeps rows of read them (hansard.store.postgres.queries), and those it keeps nothing
# of are the empty ones of hansard.store.absent (a team store is filled by `hansard team push`,
# never by an index run or the link stage). A facet that stops conforming goes here, with why.
PG_NOT_YET: dict[str, str] = {}


def _facets_of(cls: type) -> dict[str, type]:
    """A store class's facet name -> class, from its cached properties' annotations along its
    bases (no server needed)."""
    import sys

    out: dict[str, type] = {}
    for klass in reversed(cls.__mro__):
        for name, member in vars(klass).items():
            fn = getattr(member, "func", None)
            if fn is not None:
                out[name] = typing.get_type_hints(fn, vars(sys.modules[klass.__module__]))["return"]
    return out


def _pg_facets() -> dict[str, type]:
    from hansard.store.postgres import store as pg

    return _facets_of(pg.PostgresTeamStore)


def test_every_store_facet_is_accounted_for_on_postgres() -> None:
    assert set(PG_NOT_YET) <= set(FACETS)
    assert all(reason.strip() for reason in PG_NOT_YET.values())
    assert set(_pg_facets()) | set(PG_NOT_YET) >= set(FACETS)


@pytest.mark.parametrize("facet", sorted(FACETS))
def test_postgres_store_facet_satisfies_its_protocol(facet: str) -> None:
    pg = _pg_facets()
    if facet in PG_NOT_YET:
        assert facet not in pg or problems(pg[facet], FACETS[facet]) != [], \
            f"{facet} conforms now: remove it from PG_NOT_YET"
        return
    assert problems(pg[facet], FACETS[facet]) == []


def test_postgres_store_has_every_store_member() -> None:
    from hansard.store.postgres.store import PostgresTeamStore

    assert problems(PostgresTeamStore, Store) == []


def test_the_offline_team_copy_is_the_same_store(tmp_path: Any) -> None:
    """The offline copy of `hansard team pull` is read through the same facets as the server,
    and an instance of it satisfies every protocol (facets built, not only declared)."""
    from hansard.store.postgres.queries import TeamQueries
    from hansard.store.sqlite.team_copy import SqliteTeamCopy

    copy = SqliteTeamCopy(str(tmp_path / "team" / "offline.db"))
    store = TeamQueries(copy.run, ("me@example.com", "laptop"), closer=copy.close)
    try:
        assert problems(store, Store) == []
        for facet, proto in FACETS.items():
            assert problems(getattr(store, facet), proto) == [], facet
        assert store.sessions.list() == [] and store.evidence.edit_lines(1, [1, 2]) == []
        assert store.repos.id_by_identity("a" * 40, None) is None
    finally:
        store.close()


def test_the_team_view_is_a_store_of_two_stores(sqlite_store: Any, tmp_path: Any) -> None:
    """The local store and the team's composed: every facet conforms, with no forwarding."""
    from hansard.store.postgres.queries import TeamQueries
    from hansard.store.sqlite.team_copy import SqliteTeamCopy
    from hansard.team.view import TeamView

    copy = SqliteTeamCopy(str(tmp_path / "team" / "offline.db"))
    view = TeamView(sqlite_store, TeamQueries(copy.run, ("me@example.com", "laptop"), closer=copy.close),
                    ["a" * 40], source="offline copy")
    try:
        assert problems(view, Store) == []
        for facet, proto in FACETS.items():
            assert problems(getattr(view, facet), proto) == [], facet
        assert not hasattr(type(view), "__getattr__")
    finally:
        view.close_team()


def test_both_stores_take_a_repository_by_their_own_row(sqlite_store: Any) -> None:
    """Where a method needs a repository, both stores take the same key: the store's own
    repository row (``repo_id``), found by identity (``repos.id_by_identity(root commit,
    remote)``, or every row of a root commit, ``repos.ids_by_root``; ``repos.root_commit`` goes back).
    No other protocol method takes a root commit instead."""
    pg = _pg_facets()
    keyed = 0
    for facet, proto in FACETS.items():
        for name, fn in _methods(proto).items():
            names = [n for n, _, _ in _shape(fn, drop_self=True)]
            if "root_commit" in names:
                assert name in ("id_by_identity", "ids_by_root", "repo_ids_with_root", "register"), (facet, name)
            keyed += "repo_id" in names
            for impl in (pg[facet], getattr(sqlite_store, facet)):
                have = [n for n, _, _ in _shape(getattr(impl, name), drop_self=isinstance(impl, type))]
                assert have == names, (facet, name, impl)
    assert keyed > 10


def test_a_live_postgres_store_satisfies_every_protocol_and_answers_its_reads() -> None:
    """On a real server (tests/pg_cluster.py): the store's facets, built, conform, and every read
    the team view or team search makes runs (an empty team: each finds nothing)."""
    import importlib.util

    from tests.pg_cluster import cluster, pg_bindir

    if pg_bindir() is None or importlib.util.find_spec("psycopg") is None:
        pytest.skip("needs PostgreSQL's server binaries and psycopg")
    from hansard.answers.search.query import parse
    from hansard.store.postgres.store import PostgresTeamStore
    from hansard.store.types import SearchFilters

    with cluster() as c:
        store = PostgresTeamStore(c.url(password=True), me=("me@example.com", "laptop"))
        try:
            store.migrate()
            store.check_schema(["a" * 40])
            assert problems(store, Store) == []
            for facet, proto in FACETS.items():
                assert problems(getattr(store, facet), proto) == [], facet
            ev, ses, mem, search = store.evidence, store.sessions, store.memories, store.search
            assert store.repos.id_by_identity("a" * 40, None) is None and store.repos.root_commit(1) is None
            assert ev.edit_lines(1, [1, 2]) == [] and ev.edit_lines_with_sessions(1, [1, 2]) == ([], [], [])
            assert ev.edit_lines_at(1, [1], ["a.py"]) == ([], []) and not ev.has_applied_edits(1, ["a.py"])
            assert ev.applied_edits(1, ["a.py"]) == [] and ev.sessions_editing_repo(1, 0) == []
            assert ev.repo_shell_calls(1, ["Bash"], "git") == [] and ev.top_sessions_in_repo(1) == []
            assert ev.session("s") is None and ev.session_at(1) is None and ev.user_prompts("s") == []
            assert ev.sessions_resuming("s") == [] and ev.subagents("s") == [] and ev.compactions(1) == 0
            assert ses.matches("abcd") == [] and ses.list(repo_ids=[1], since="2026") == []
            assert ses.status()["sessions"] == 0 and ses.provider_counts() == {} and ses.data_version() == 0
            assert ses.index_state()["indexed_through"] is None and ses.repo_ids_with_root("a" * 40) == []
            assert ses.messages_from(1, 0, ["user"], 5) == [] and ses.message_heads(1, 10) == []
            assert mem.count() == 0 and mem.current(parse("walrus"), project=([1], None)) == [] and mem.get("team-1") is None
            q, f = parse("retry_policy -flaky"), SearchFilters(repo_ids=[1], roles=("user",), since="2026")
            assert search.keyword_candidates(q, f, 10) == ([], 0, True) and search.recent_candidates(f, 10, 2) == []
            assert search.hit_rows([1]) == {} and search.passing([1], f) == set() and search.vectors("m") == ([], [])
            assert search.keyword_messages(q, ["a" * 40], None, None, 5) == []
            assert search.messages_containing([["retry"]], [], ["a" * 40], None, None, 5) == []
        finally:
            store.close()


def test_a_team_repository_row_stands_for_its_identity(tmp_path: Any) -> None:
    """A store where each member writes its own rows holds one repository row per member and
    root commit: any of them, as ``repos.id_by_identity`` gives it, reaches every member's edits,
    sessions and memories of that repository, and none of another's."""
    from hansard.store.postgres.queries import TeamQueries
    from hansard.store.sqlite.team_copy import SqliteTeamCopy
    from hansard.store.types import Query, SearchFilters, Term

    root, other = "a" * 40, "b" * 40
    copy = SqliteTeamCopy(str(tmp_path / "team" / "offline.db"))
    copy.replace({
        "members": [{"id": m, "email": f"m{m}@example.com", "machine": "desk", "name": f"M{m}"} for m in (1, 2, 3)],
        "repos": [{"id": 1, "root_commit": root, "remote": None, "name": "app"},
                  {"id": 2, "root_commit": root, "remote": None, "name": "app"},
                  {"id": 3, "root_commit": other, "remote": None, "name": "lib"}],
        "sessions": [{"id": s, "member_id": s, "repo_id": s, "session_id": f"s{s}", "provider": "claude_code",
                      "last_at": f"2026-11-0{s}T00:00:00Z"} for s in (1, 2, 3)],
        "messages": [{"id": s, "session_row": s, "message_index": 0, "role": "user", "kind": "text",
                      "text": "walrus", "timestamp": f"2026-11-0{s}T00:00:00Z"} for s in (1, 2, 3)],
        "edits": [{"id": s, "session_row": s, "repo_id": s, "message_index": 0, "call_id": f"c{s}", "seq": 0,
                   "rel_path": "app.py", "timestamp": f"2026-11-0{s}T00:00:00Z", "user_modified": 0} for s in (1, 2, 3)],
        "edit_lines": [{"edit_id": s, "side": "+", "ordinal": 0, "hash": 42, "exact": 42, "trivial": 0} for s in (1, 2, 3)],
        "memories": [{"id": s, "member_id": s, "repo_id": s, "memory_id": f"m{s}", "kind": "claude_md",
                      "source": "claude_code", "text": "walrus notes", "sha256": "x"} for s in (1, 2, 3)],
    }, "2026-11-10T00:00:00Z")
    store = TeamQueries(copy.run, ("me@example.com", "laptop"), closer=copy.close)
    try:
        rid = store.repos.id_by_identity(root, None)
        assert rid == 1 and store.repos.root_commit(2) == root and store.sessions.repo_ids_with_root(root) == [1, 2]
        for key in (1, 2):
            assert sorted(r["session_id"] for r in store.evidence.edit_lines(key, [42])) == ["s1", "s2"]
            assert store.evidence.has_applied_edits(key, ["app.py"])
            assert sorted(r["session_id"] for r in store.sessions.list(repo_ids=[key])) == ["s1", "s2"]
            assert sorted(r["memory_id"] for r in store.memories.current(Query("walrus"), project=([key], None))) \
                == ["team-1", "team-2"]
            cands, _, _ = store.search.keyword_candidates(Query("x", [[Term("walrus")]]), SearchFilters(repo_ids=[key]), 10)
            assert sorted(c.id for c in cands) == [1, 2]
        assert [r["session_id"] for r in store.evidence.edit_lines(3, [42])] == ["s3"]
    finally:
        store.close()
