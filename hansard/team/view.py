"""The local store seen together with the team's: :class:`TeamView` is a ``Store`` made of two
``Store``s, this machine's and the team's (PostgreSQL, or the offline copy). Its ``evidence``,
``sessions`` and ``memories`` facets ask both and merge the answers; every other facet is the
local store's, or, for the caches, one that keeps nothing, each written out below.

Team rows keep their own ids, negated: an edit, session or memory row below zero is the
team's, so answer code passes ids back without knowing where they came from. Both stores take
their own repository rows; a local row is carried to the team's by identity (its root commit),
never by path, and only for the opted-in repositories. Team sessions and memories carry
``member`` (git email) and ``member_name``. Round trips to the server are per question, not
per line: a file's edit lines come with their sessions and prompts in one query.
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hansard.store.absent import NoCommitFacts, NoWhyCache
from hansard.store.types import split_at

if TYPE_CHECKING:
    from hansard.store.interfaces import (
        AgentTraces,
        Archive,
        AuditLog,
        CommitDiffCache,
        EvidenceIndex,
        GitSources,
        ItemSink,
        MemoryStore,
        OwnCommits,
        RepoRegistry,
        RepoStats,
        SearchIndex,
        SessionQueries,
        Store,
        SymbolCache,
        TeamEvidenceIndex,
        TeamSessionQueries,
        TeamStore,
        WebChats,
    )
    from hansard.store.types import Row

# Columns of a local sessions row that the team store does not keep.
_LOCAL_ONLY = {"source_id": None, "title_rank": 0, "agent_id": None, "spawn_call_id": None, "git_commit": None,
               "git_remote": None, "extra": None, "resolved": 1}


def team_session_row(r: Row, repo_id: int | None) -> dict[str, Any]:
    """A team sessions row as a local one: its id negated, the local repository row."""
    d = {**_LOCAL_ONLY, **dict(r)}
    d["id"] = -r["id"]
    d["repo_id"] = repo_id
    d.pop("root_commit", None)
    d.pop("member_machine", None)
    return d


def _negated(r: Row, *keys: str) -> dict[str, Any]:
    d = dict(r)
    for k in keys:
        d[k] = -d[k]
    return d


class RepoMap:
    """Repository rows of the two stores, matched by identity (root commit) for the opted-in
    repositories only; each look-up asked once per view."""

    def __init__(self, local: Store, team: Store, roots: set[str]) -> None:
        self._local = local
        self._team = team
        self.roots = roots
        self._root_of: dict[int, str | None] = {}
        self._local_of: dict[str, list[int]] = {}
        self._team_of: dict[str, int | None] = {}

    def root(self, repo_id: int | None) -> str | None:
        """The opted-in root commit of a local repository row (None: not shared)."""
        if repo_id is None or repo_id < 0:
            return None
        if repo_id not in self._root_of:
            root = self._local.repos.root_commit(repo_id)
            self._root_of[repo_id] = root if root in self.roots else None
        return self._root_of[repo_id]

    def local_ids(self, root: str) -> list[int]:
        """This machine's repository rows of a root commit (clones of one repository)."""
        if root not in self._local_of:
            self._local_of[root] = list(self._local.sessions.repo_ids_with_root(root))
        return self._local_of[root]

    def local(self, root: str | None) -> int | None:
        """This machine's (first) repository row of a root commit."""
        ids = self.local_ids(root) if root is not None else []
        return ids[0] if ids else None

    def team_root(self, root: str | None) -> int | None:
        """The team store's repository row of an opted-in root commit."""
        if root is None or root not in self.roots:
            return None
        if root not in self._team_of:
            self._team_of[root] = self._team.repos.id_by_identity(root, None)
        return self._team_of[root]

    def team(self, repo_id: int | None) -> int | None:
        """The team store's row of a local repository row (None: not shared, or no team rows)."""
        return self.team_root(self.root(repo_id))


class TeamView:
    """A ``Store``: this machine's store and the team's, merged facet by facet."""

    def __init__(self, local: Store, team: TeamStore, roots: Collection[str], *, source: str,
                 paths: dict[str, str] | None = None, owned: bool = True, pulled_at: str | None = None) -> None:
        self.local = local
        self.team = team  # the team's Store: the server, or the offline copy
        self.team_roots = set(roots)
        self.team_source = source  # "server" or "offline copy"
        self.team_paths = paths or {}  # root commit -> this member's checkout of it
        self.team_pulled_at = pulled_at  # when the offline copy was pulled (source "offline copy")
        self.repo_map = RepoMap(local, team, self.team_roots)
        self._team_open = owned  # close_team lets go of the team store only when the view holds it alone

    # -- merged: asked of both stores -------------------------------------------------------

    @cached_property
    def evidence(self) -> MergedEvidence:
        return MergedEvidence(self.local.evidence, self.team.evidence, self.repo_map)

    @cached_property
    def sessions(self) -> MergedSessions:
        return MergedSessions(self.local.sessions, self.team.sessions, self.evidence, self.team_paths)

    @cached_property
    def memories(self) -> MergedMemories:
        return MergedMemories(self.local.memories, self.team.memories, self.repo_map, self.team_paths)

    # -- kept nothing of: an answer with teammates' rows changes without a local generation ----

    @cached_property
    def why_cache(self) -> NoWhyCache:
        return NoWhyCache(self.local.why_cache.schema())

    @cached_property
    def commit_facts(self) -> NoCommitFacts:
        """Commit ties are worked out per question from both stores' shell calls (the local
        store's kept ties know this machine's sessions alone)."""
        return NoCommitFacts()

    # -- this machine's alone: its archive, index, caches, repositories and logs -------------

    @property
    def archive(self) -> Archive:
        return self.local.archive

    @property
    def items(self) -> ItemSink:
        return self.local.items

    @property
    def commit_diffs(self) -> CommitDiffCache:
        return self.local.commit_diffs

    @property
    def stats(self) -> RepoStats:
        # Its summaries are read and kept only at a why-cache generation, which this view has not.
        return self.local.stats

    @property
    def repos(self) -> RepoRegistry:
        return self.local.repos

    @cached_property
    def search(self) -> LocalSearch:
        return LocalSearch(self.local.search, self)

    @property
    def audit(self) -> AuditLog:
        return self.local.audit

    @property
    def symbols(self) -> SymbolCache:
        return self.local.symbols

    @property
    def own_commits(self) -> OwnCommits:
        return self.local.own_commits

    @property
    def web_chats(self) -> WebChats:
        return self.local.web_chats

    @property
    def git_sources(self) -> GitSources:
        return self.local.git_sources

    @property
    def agent_traces(self) -> AgentTraces | None:
        """Agent Trace records imported on this machine (SQLite only: None elsewhere)."""
        traces: AgentTraces | None = getattr(self.local, "agent_traces", None)
        return traces

    @property
    def readonly(self) -> bool:
        return self.local.readonly

    def interrupt(self) -> None:
        self.local.interrupt()
        self.team.interrupt()

    def close_team(self) -> None:
        """Let go of the team server (or offline copy); the local store stays open."""
        if self._team_open:
            self._team_open = False
            self.team.close()

    def close(self) -> None:
        self.close_team()
        self.local.close()


class LocalSearch:
    """The search index of this machine's store, and the team's sessions as ``shared_hits``
    (hansard.team.search: keyword in PostgreSQL, meaning through the pushed passage vectors,
    or keyword over the offline copy; hits with ``member`` and ``team``). Teammates' messages
    never enter the local candidates: their hits are asked for apart, when the team flags are."""

    def __init__(self, local: SearchIndex, view: TeamView) -> None:
        self._local = local
        self._view = view

    def shared_hits(self, q: Any, *, team: str | None, repo: str | None, since: str | None, until: str | None,
                    limit: int, mode: str, query: str) -> tuple[list[dict[str, Any]], str | None]:
        from hansard.team.search import team_hits

        return team_hits(self._view, q, team=team, repo=repo, since=since, until=until, limit=limit, mode=mode,
                         query=query)

    # -- this machine's index alone ----------------------------------------------------------

    def keyword_candidates(self, q: Any, f: Any, k: int) -> tuple[list[Any], int, bool]:
        return self._local.keyword_candidates(q, f, k)

    def recent_candidates(self, f: Any, k: int, per_session: int) -> list[Any]:
        return self._local.recent_candidates(f, k, per_session)

    def hit_rows(self, ids: Sequence[int]) -> dict[int, Any]:
        return self._local.hit_rows(ids)

    def file_sessions(self, forms: Iterable[str]) -> set[int]:
        return self._local.file_sessions(forms)

    def commit_sessions(self, sha: str) -> set[int]:
        return self._local.commit_sessions(sha)

    def passing(self, ids: Sequence[int], f: Any) -> set[int]:
        return self._local.passing(ids, f)

    def vector_mark(self, model: str) -> tuple[int | None, int]:
        return self._local.vector_mark(model)

    def vector_pending(self, model: str) -> tuple[int, int]:
        return self._local.vector_pending(model)

    def vector_stamp(self, model: str) -> tuple[str, str | None, int, int]:
        return self._local.vector_stamp(model)

    def vectors(self, model: str) -> tuple[list[tuple[int, int, int]], list[bytes]]:
        return self._local.vectors(model)

    def snapshot(self) -> AbstractContextManager[None]:
        return self._local.snapshot()

    def passage_count(self) -> int:
        return self._local.passage_count()

    def vector_dim(self, model: str) -> int | None:
        return self._local.vector_dim(model)

    def passage_keys(self) -> list[tuple[int, int, int, bytes]]:
        return self._local.passage_keys()

    def passages_with_vectors(self, model: str) -> Iterator[tuple[int, int, int, bytes, bytes | None]]:
        return self._local.passages_with_vectors(model)

    def vectors_by_hash(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, bytes]:
        return self._local.vectors_by_hash(model, hashes)

    def to_embed(self, model: str, max_chars: int, batch: int) -> list[tuple[int, str]]:
        return self._local.to_embed(model, max_chars, batch)

    def known_texts(self, model: str, hashes: Sequence[bytes]) -> set[bytes]:
        return self._local.known_texts(model, hashes)

    def add_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                    passages: Sequence[tuple[int, int, int, bytes]], through: int, at: str) -> None:
        self._local.add_vectors(model, vectors, passages, through, at)

    def skip_vectors_to(self, model: str, at: str) -> None:
        self._local.skip_vectors_to(model, at)

    def intent_to_embed(self, model: str, max_chars: int, batch: int) -> list[tuple[int, int, str]]:
        return self._local.intent_to_embed(model, max_chars, batch)

    def add_intent_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                           texts: Sequence[tuple[int, int, bytes]], through: int, at: str) -> None:
        self._local.add_intent_vectors(model, vectors, texts, through, at)

    def intent_stamp(self, model: str) -> tuple[str, int, int]:
        return self._local.intent_stamp(model)

    def intent_vectors(self, model: str) -> tuple[list[tuple[int, int, int]], list[bytes]]:
        return self._local.intent_vectors(model)

    def message_sessions(self, ids: Sequence[int]) -> dict[int, int]:
        return self._local.message_sessions(ids)


class LocalSessions:
    """The session questions answered from this machine's store alone, by decision
    (tests/test_team_view.py holds every other one to being merged): listings and counts of
    this machine's sessions (teammates' come through hansard.team.search), its raw records and
    index state, and its repository rows."""

    def __init__(self, local: SessionQueries) -> None:
        self._local = local

    def data_version(self) -> int:
        return self._local.data_version()

    def status(self) -> dict[str, Any]:
        return self._local.status()

    def index_state(self) -> dict[str, Any]:
        return self._local.index_state()

    def provider_counts(self) -> dict[str, dict[str, int]]:
        return self._local.provider_counts()

    def list(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
             since: str | None = None, limit: int = 20, exclude_providers: Sequence[str] = ()) -> list[dict[str, Any]]:
        return self._local.list(repo_ids=repo_ids, provider=provider, since=since, limit=limit,
                                exclude_providers=exclude_providers)

    def list_count(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
                   since: str | None = None, exclude_providers: Sequence[str] = ()) -> int:
        return self._local.list_count(repo_ids=repo_ids, provider=provider, since=since,
                                      exclude_providers=exclude_providers)

    def repo_path(self, repo_id: int | None) -> str | None:
        return self._local.repo_path(repo_id)

    def repo_ids_at(self, paths: Sequence[str]) -> builtins.list[int]:
        return self._local.repo_ids_at(paths)

    def repo_ids_with_root(self, root_commit: str) -> builtins.list[int]:
        return self._local.repo_ids_with_root(root_commit)

    def repo_ids_named(self, name: str) -> builtins.list[int]:
        return self._local.repo_ids_named(name)

    def subagents(self, session_id: str) -> builtins.list[str]:
        return self._local.subagents(session_id)

    def closing_message(self, session_id: str) -> tuple[int, str] | None:
        return self._local.closing_message(session_id)

    def last_edit_index(self, session_id: str) -> int | None:
        return self._local.last_edit_index(session_id)

    def redactions(self, session_ids: Sequence[str]) -> dict[str, int]:
        return self._local.redactions(session_ids)

    def records_between(self, source_id: int, generation: int, lo: int, hi: int) -> int:
        return self._local.records_between(source_id, generation, lo, hi)

    def raw_record(self, source_id: int, offset: int) -> str | None:
        return self._local.raw_record(source_id, offset)


class MergedSessions(LocalSessions):
    """The local session queries; a teammate's session (of an opted-in repository) is found by
    its id or a unique prefix when no local one is, and read in windows like a local one. Its
    row id is negative; its messages have no source file (the archive stays on their machine)."""

    LOCAL_ONLY = frozenset(n for n in vars(LocalSessions) if not n.startswith("_"))

    def __init__(self, local: SessionQueries, team: TeamSessionQueries, evidence: MergedEvidence,
                 paths: dict[str, str]) -> None:
        super().__init__(local)
        self._team = team
        self._evidence = evidence
        self._paths = paths  # root commit -> this member's checkout, from the team config

    def _team_find(self, ref: str) -> Row | None:
        from hansard.errors import NotFound

        roots = self._evidence.repos.roots
        rows = [r for r in self._team.matches(ref) if r["root_commit"] in roots]
        if len(rows) > 1:
            raise NotFound(f"session prefix {ref!r} is ambiguous")
        return rows[0] if rows else None

    def find(self, ref: str) -> Any:
        from hansard.errors import NotFound

        try:
            return self._local.find(ref)
        except NotFound:
            r = self._team_find(ref)
            if r is None:
                raise
            return team_session_row(r, self._evidence.repos.local(r["root_commit"]))

    def repo_path_of(self, ref: str) -> tuple[bool, str | None]:
        found, path = self._local.repo_path_of(ref)
        if found:
            return found, path
        r = self._team_find(ref)
        if r is None:
            return False, None
        rid = self._evidence.repos.local(r["root_commit"])
        return True, (self._local.repo_path(rid) if rid else None) or self._paths.get(r["root_commit"])

    def repo_paths_of(self, ref: str) -> builtins.list[tuple[str, str | None]]:
        found = self._local.repo_paths_of(ref)
        if found:
            return found
        roots = self._evidence.repos.roots
        out: builtins.list[tuple[str, str | None]] = []
        for r in self._team.matches(ref):
            if r["root_commit"] in roots:
                rid = self._evidence.repos.local(r["root_commit"])
                out.append((r["session_id"], (self._local.repo_path(rid) if rid else None)
                            or self._paths.get(r["root_commit"])))
        return out

    def indexes_before(self, sid: int, before: int, roles: Iterable[str] | None, limit: int) -> builtins.list[int]:
        if sid >= 0:
            return self._local.indexes_before(sid, before, roles, limit)
        return self._team.indexes_before(-sid, before, roles, limit)

    def messages_from(self, sid: int, first: int, roles: Iterable[str] | None, limit: int) -> builtins.list[Any]:
        if sid >= 0:
            return self._local.messages_from(sid, first, roles, limit)
        return self._team.messages_from(-sid, first, roles, limit)

    def message_heads(self, sid: int, prefix: int) -> builtins.list[Any]:
        if sid >= 0:
            return self._local.message_heads(sid, prefix)
        return self._team.message_heads(-sid, prefix)

    def tool_calls_between(self, sid: int, lo: int, hi: int) -> builtins.list[Any]:
        if sid >= 0:
            return self._local.tool_calls_between(sid, lo, hi)
        return self._team.tool_calls_between(-sid, lo, hi)

    def call_details(self, sid: int, call_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if sid >= 0:
            return self._local.call_details(sid, call_ids)
        return self._team.call_details(-sid, call_ids)


class MergedEvidence:
    """The evidence facet over both stores. Every method of the protocol is written here
    (tests/test_team_view.py checks it): one answered by the local store alone would silently
    leave teammates' edits out of `why`."""

    def __init__(self, local: EvidenceIndex, team: TeamEvidenceIndex, repos: RepoMap) -> None:
        self.local = local
        self.team = team
        self.repos = repos
        self._sessions: dict[str, dict[str, Any] | None] = {}  # team sessions by id, loaded in batches
        self._wanted: set[str] = set()  # team session ids seen, not loaded yet
        self._prompts: dict[str, list[tuple[int, str]]] = {}
        self._content: dict[int, dict[str, Any] | None] = {}

    def _seen(self, session_id: str) -> None:
        if session_id not in self._sessions:
            self._wanted.add(session_id)

    # -- edits ------------------------------------------------------------------------------

    def edit_lines(self, repo_id: int, hashes: Iterable[int], side: str = "+") -> list[Any]:
        hl = list(hashes)
        rows: list[Any] = list(self.local.edit_lines(repo_id, hl, side))
        for d in self._team_rows(repo_id, hl, side):
            self._seen(d["session_id"])
            rows.append(d)
        return rows

    def edit_lines_at(self, repo_id: int, hashes: Iterable[int], paths: Collection[str], side: str = "+", *,
                      others: bool = True) -> tuple[list[Any], list[tuple[int, str | None, str | None]]]:
        """As the local store's: the team's edits of ``paths`` whole, of other paths where and
        when (the team's rows come in one round trip either way)."""
        hl = list(hashes)
        local_rows, local_elsewhere = self.local.edit_lines_at(repo_id, hl, paths, side, others=others)
        team_rows, team_elsewhere = split_at(self._team_rows(repo_id, hl, side), paths, others=others)
        for d in team_rows:
            self._seen(d["session_id"])
        return [*local_rows, *team_rows], [*local_elsewhere, *team_elsewhere]

    def _team_rows(self, repo_id: int, hashes: list[int], side: str) -> list[dict[str, Any]]:
        """The team's edit lines of ``hashes`` in this repository, their ids negated (a team
        row never collides with a local one), with their sessions and prompts kept for
        ``session`` and ``user_prompts`` (one round trip to the server)."""
        team_repo = self.repos.team(repo_id)
        if team_repo is None:
            return []
        lines, sessions, prompts = self.team.edit_lines_with_sessions(team_repo, hashes, side)
        got: dict[str, list[tuple[int, str]]] = {r["session_id"]: [] for r in sessions}
        for p in prompts:
            got[p["session_id"]].append((p["message_index"], p["text"]))
        for r in sessions:
            self._sessions[r["session_id"]] = team_session_row(r, self.repos.local(r["root_commit"]))
        self._prompts.update(got)
        return [_negated(r, "id", "srow") for r in lines]

    def removed_lines(self, edit_ids: Collection[int]) -> list[tuple[int, int]]:
        mine = [i for i in edit_ids if i >= 0]
        theirs = [-i for i in edit_ids if i < 0]
        out = list(self.local.removed_lines(mine)) if mine else []
        return out + [(-e, h) for e, h in (self.team.removed_lines(theirs) if theirs else [])]

    def edit_hashes(self, edit_id: int) -> tuple[set[int], set[int]]:
        return self.local.edit_hashes(edit_id) if edit_id >= 0 else self.team.edit_hashes(-edit_id)

    def edit_content(self, edit_id: int) -> dict[str, Any] | None:
        if edit_id >= 0:
            return self.local.edit_content(edit_id)
        if edit_id not in self._content:
            self._content[edit_id] = self.team.edit_content(-edit_id)
        return self._content[edit_id]

    def has_applied_edits(self, repo_id: int, paths: Collection[str]) -> bool:
        if self.local.has_applied_edits(repo_id, paths):
            return True
        team_repo = self.repos.team(repo_id)
        return team_repo is not None and bool(self.team.has_applied_edits(team_repo, list(paths)))

    def unlinked_hashes(self, hashes: Iterable[int], basename: str) -> set[int]:
        # Every pushed edit belongs to a repository: the team has none unlinked.
        return self.local.unlinked_hashes(hashes, basename)

    def added_anywhere(self, hashes: Iterable[int]) -> set[int]:
        hl = list(hashes)
        return self.local.added_anywhere(hl) | self.team.added_anywhere(hl)

    def applied_edits(self, repo_id: int, paths: Collection[str]) -> list[Any]:
        rows: list[Any] = list(self.local.applied_edits(repo_id, paths))
        team_repo = self.repos.team(repo_id)
        if team_repo is not None:
            rows += [_negated(r, "id", "srow") for r in self.team.applied_edits(team_repo, list(paths))]
        return rows

    def session_edits(self, session_row: int) -> list[Any]:
        if session_row >= 0:
            return list(self.local.session_edits(session_row))
        return [_negated(r, "id") for r in self.team.session_edits(-session_row)]

    def sessions_editing_repo(self, repo_id: int, except_row: int) -> list[int]:
        out = list(self.local.sessions_editing_repo(repo_id, except_row))
        team_repo = self.repos.team(repo_id)
        if team_repo is not None:
            out += [-r for r in self.team.sessions_editing_repo(team_repo, -except_row if except_row < 0 else 0)]
        return out

    # -- tool calls and steps ---------------------------------------------------------------------

    def repo_tool_inputs(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str | None, str | None]]:
        out = list(self.local.repo_tool_inputs(repo_id, tools, needle))
        team_repo = self.repos.team(repo_id)
        if team_repo is not None:
            out += self.team.repo_tool_inputs(team_repo, list(tools), needle)
        return out

    def repo_shell_calls(self, repo_id: int, tools: Collection[str], needle: str
                         ) -> list[tuple[str, str | None, str | None, str | None]]:
        out = list(self.local.repo_shell_calls(repo_id, tools, needle))
        team_repo = self.repos.team(repo_id)
        if team_repo is not None:
            out += self.team.repo_shell_calls(team_repo, list(tools), needle)
        return out

    def session_tool_calls(self, session_row: int, tools: Collection[str]) -> list[Any]:
        if session_row >= 0:
            return list(self.local.session_tool_calls(session_row, tools))
        return list(self.team.session_tool_calls(-session_row, list(tools)))

    def steps(self, session_rows: Collection[int]) -> list[dict[str, Any]]:
        mine = [r for r in session_rows if r >= 0]
        return self.local.steps(mine) if mine else []  # step snapshots are not pushed

    # -- sessions -----------------------------------------------------------------------------

    def _team_session(self, session_id: str) -> dict[str, Any] | None:
        if session_id not in self._sessions:
            want = self._wanted | {session_id}
            self._wanted = set()
            found = {r["session_id"]: r for r in self.team.sessions_named(sorted(want))
                     if r["root_commit"] in self.repos.roots}
            for sid in want:
                r = found.get(sid)
                self._sessions[sid] = team_session_row(r, self.repos.local(r["root_commit"])) if r else None
        return self._sessions[session_id]

    def session(self, session_id: str) -> Any:
        row = self.local.session(session_id)
        if row is None and self.repos.roots:
            return self._team_session(session_id)
        return row

    def session_at(self, session_row: int) -> Any:
        if session_row >= 0:
            return self.local.session_at(session_row)
        r = self.team.session_at(-session_row)
        return team_session_row(r, self.repos.local(r["root_commit"])) if r else None

    def user_prompts(self, session_id: str) -> list[tuple[int, str]]:
        if self.local.session(session_id) is not None or not self.repos.roots:
            return self.local.user_prompts(session_id)
        if session_id not in self._prompts:
            want = {s for s in self._sessions if self._sessions[s] is not None} | self._wanted | {session_id}
            want -= set(self._prompts)
            for sid in want:
                self._prompts[sid] = []
            for r in self.team.prompts(sorted(want)):
                self._prompts[r["session_id"]].append((r["message_index"], r["text"]))
        return sorted(self._prompts[session_id])

    def top_sessions_in_repo(self, repo_id: int) -> list[Any]:
        rows: list[Any] = list(self.local.top_sessions_in_repo(repo_id))
        team_repo = self.repos.team(repo_id)
        if team_repo is not None:
            rows += [team_session_row(r, repo_id) for r in self.team.top_sessions_in_repo(team_repo)]
            rows.sort(key=lambda r: r["last_at"] or "", reverse=True)
        return rows

    def sessions_resuming(self, session_id: str) -> list[Any]:
        # A teammate's session resumes one of theirs: the relation stays within each store.
        return list(self.local.sessions_resuming(session_id))

    def sessions_summarised_by(self, session_id: str) -> list[Any]:
        return list(self.local.sessions_summarised_by(session_id))

    def sessions_summarising(self, session_row: int) -> list[Any]:
        return list(self.local.sessions_summarising(session_row)) if session_row >= 0 else []

    def compactions(self, session_row: int) -> int:
        return self.local.compactions(session_row) if session_row >= 0 else 0

    def subagents(self, session_id: str) -> list[Any]:
        return list(self.local.subagents(session_id))

    def session_sources(self) -> list[Any]:
        return list(self.local.session_sources())  # a teammate's transcript files stay on their machine


class LocalMemories:
    """The memory questions answered from this machine's store alone, by decision
    (tests/test_team_view.py holds every other one to being merged): the mirror's bookkeeping,
    which only this machine's indexer writes."""

    def __init__(self, local: MemoryStore) -> None:
        self._local = local

    def transaction(self) -> AbstractContextManager[None]:
        return self._local.transaction()

    def project_roots(self) -> list[tuple[str, int]]:
        return self._local.project_roots()

    def project_of_folder(self, folder: str) -> tuple[int | None, str | None]:
        return self._local.project_of_folder(folder)

    def root_scanned_at(self, path: str) -> float | None:
        return self._local.root_scanned_at(path)

    def mark_root_scanned(self, path: str, repo_id: int | None, at: float) -> None:
        self._local.mark_root_scanned(path, repo_id, at)

    def known(self) -> dict[str, dict[str, Any]]:
        return self._local.known()

    def mark_missing(self, row_id: int) -> None:
        self._local.mark_missing(row_id)

    def set_scope(self, row_id: int, scope: str, repo_id: int | None) -> None:
        self._local.set_scope(row_id, scope, repo_id)

    def save(self, row_id: int | None, *, memory_id: str, path: str, kind: str, source: str, scope: str,
             repo_id: int | None, root: str | None, rel_path: str | None, title: str, sha256: str, text: str,
             mtime_ns: int, size: int, at: str) -> bool:
        return self._local.save(row_id, memory_id=memory_id, path=path, kind=kind, source=source, scope=scope,
                                repo_id=repo_id, root=root, rel_path=rel_path, title=title, sha256=sha256, text=text,
                                mtime_ns=mtime_ns, size=size, at=at)

    def count(self) -> int:
        return self._local.count()


class MergedMemories(LocalMemories):
    """The local memories, and other members' project memories of the opted-in repositories
    (their current text, pushed redacted). A team memory's id is ``team-<n>`` and its row id
    negative; its ``repo_path`` is this member's checkout of the repository, so a server held
    to one repository (``--scope repo``) serves it only there."""

    LOCAL_ONLY = frozenset(n for n in vars(LocalMemories) if not n.startswith("_"))

    def __init__(self, local: MemoryStore, team: MemoryStore, repos: RepoMap, paths: dict[str, str]) -> None:
        super().__init__(local)
        self._team = team
        self._repos = repos
        self._paths = paths

    def _row(self, r: dict[str, Any]) -> dict[str, Any]:
        d = dict(r)
        d["id"] = d["version_id"] = -r["id"]
        d["repo_path"] = self._paths.get(r["root_commit"])
        d.pop("root_commit", None)
        return d

    def current(self, q: Any, *, project: tuple[Sequence[int], str | None] | None = None,
                sources: Sequence[str] = ()) -> list[dict[str, Any]]:
        rows = list(self._local.current(q, project=project, sources=sources))
        roots = set(self._repos.roots)
        if project is not None:
            repo_ids, root = project
            ids = set(repo_ids or ())
            roots = {c for c in roots if ids & set(self._repos.local_ids(c)) or (root and self._paths.get(c) == root)}
        team_ids = [t for t in (self._repos.team_root(c) for c in sorted(roots)) if t is not None]
        if not team_ids:
            return rows
        return rows + [self._row(r) for r in self._team.current(q, project=(team_ids, None), sources=sources)]

    def get(self, memory_id: str) -> dict[str, Any] | None:
        if not memory_id.startswith("team-") or not memory_id[5:].isdigit():
            return self._local.get(memory_id)
        r = self._team.get(memory_id)
        return self._row(r) if r is not None and r["root_commit"] in self._repos.roots else None

    def versions(self, row_id: int) -> list[dict[str, Any]]:
        if row_id >= 0:
            return self._local.versions(row_id)
        return [{**v, "id": row_id} for v in self._team.versions(-row_id)]


if TYPE_CHECKING:
    def _a_store(view: TeamView) -> Store:
        """mypy holds the view to every protocol of the Store."""
        return view

    def _evidence(facet: MergedEvidence) -> EvidenceIndex:
        return facet

    def _sessions(facet: MergedSessions) -> SessionQueries:
        return facet

    def _memories(facet: MergedMemories) -> MemoryStore:
        return facet

    def _search(facet: LocalSearch) -> SearchIndex:
        return facet
