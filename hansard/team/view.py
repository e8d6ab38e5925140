"""The local store seen together with the team's: a store whose ``evidence``, ``sessions``
and ``memories`` facets answer from this machine's rows and from other members' rows in the
opted-in repositories.

Team rows keep their own ids, negated: an edit, session or memory row below zero is the
team's, so answer code passes ids back without knowing where they came from. A repository is
matched by identity (its root commit), never by path. Team sessions and memories carry
``member`` (git email) and ``member_name``. Round trips to the server are per question, not
per line: from PostgreSQL, a file's edit lines with their sessions and prompts in one query.
Everything else (archive, search index, audit, ...) is the local store's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

# Columns of a local sessions row that the team store does not keep.
_LOCAL_ONLY = {"source_id": None, "title_rank": 0, "agent_id": None, "spawn_call_id": None, "git_commit": None,
               "git_remote": None, "extra": None, "resolved": 1}


class TeamView:
    def __init__(self, local: Any, team: Any, roots: Collection[str], *, source: str, closer: Any = None,
                 server: Any = None, paths: dict[str, str] | None = None) -> None:
        self._local = local
        self.team_paths = paths or {}  # root commit -> this member's checkout of it
        self.team_server = server  # the PostgresTeamStore, when answering from the server
        self.team = team  # TeamQueries over the server or the offline copy
        self.team_roots = set(roots)
        self.team_source = source  # "server" or "offline copy"
        self._closer = closer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._local, name)

    @property
    def local(self) -> Any:
        return self._local

    def close_team(self) -> None:
        """Let go of the team server (or offline copy); the local store stays open."""
        if self._closer is not None:
            self._closer()
            self._closer = None

    def close(self) -> None:
        self.close_team()
        self._local.close()

    _evidence = None
    _sessions = None

    @property
    def sessions(self) -> MergedSessions:
        if self._sessions is None:
            self._sessions = MergedSessions(self._local.sessions, self.evidence, self.team_paths)
        return self._sessions

    _memories = None

    @property
    def memories(self) -> MergedMemories:
        if self._memories is None:
            self._memories = MergedMemories(self._local.memories, self.team, self.team_roots, self.team_paths,
                                            self._local)
        return self._memories

    @property
    def evidence(self) -> MergedEvidence:
        if self._evidence is None:
            self._evidence = MergedEvidence(self._local, self.team, self.team_roots)
        return self._evidence


def team_session_row(r: dict[str, Any], repo_id: int | None) -> dict[str, Any]:
    d = {**_LOCAL_ONLY, **r}
    d["id"] = -r["id"]
    d["repo_id"] = repo_id
    d.pop("root_commit", None)
    d.pop("member_machine", None)
    return d


class MergedSessions:
    """The local session queries; a teammate's session (of an opted-in repository) is found by
    its id or a unique prefix when no local one is, and read in windows like a local one. Its
    row id is negative; its messages have no source file (the archive stays on their machine)."""

    # Answered from this machine's store alone, by decision (tests/test_team_view.py holds
    # every other method to being written here): listings and counts of this machine's
    # sessions (teammates' come through hansard.team.search), its raw records and index state,
    # and its repository rows.
    LOCAL_ONLY = frozenset({"data_version", "index_state", "list", "provider_counts", "raw_record",
                            "records_between", "repo_ids_at", "repo_ids_named", "repo_ids_with_root",
                            "repo_path", "status", "subagents"})

    def __init__(self, local: Any, evidence: MergedEvidence, paths: dict[str, str] | None = None) -> None:
        self._local = local
        self._evidence = evidence
        self._paths = paths or {}  # root commit -> this member's checkout, from the team config

    def __getattr__(self, name: str) -> Any:
        return getattr(self._local, name)

    def _team_find(self, ref: str) -> dict[str, Any] | None:
        from hansard.errors import NotFound

        rows = [r for r in self._evidence.team.find(ref) if r["root_commit"] in self._evidence.roots]
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
            return team_session_row(r, self._evidence._local_repo(r["root_commit"]))

    def repo_path_of(self, ref: str) -> tuple[bool, str | None]:
        found, path = self._local.repo_path_of(ref)
        if found:
            return found, path
        r = self._team_find(ref)
        if r is None:
            return False, None
        rid = self._evidence._local_repo(r["root_commit"])
        return True, (self._local.repo_path(rid) if rid else None) or self._paths.get(r["root_commit"])

    def indexes_before(self, sid: int, before: int, roles: Any, limit: int) -> list[int]:
        if sid >= 0:
            return self._local.indexes_before(sid, before, roles, limit)
        return self._evidence.team.indexes_before(-sid, before, roles, limit)

    def messages_from(self, sid: int, first: int, roles: Any, limit: int) -> list[Any]:
        if sid >= 0:
            return self._local.messages_from(sid, first, roles, limit)
        return self._evidence.team.messages_from(-sid, first, roles, limit)

    def message_heads(self, sid: int, prefix: int) -> list[Any]:
        if sid >= 0:
            return self._local.message_heads(sid, prefix)
        return self._evidence.team.message_heads(-sid, prefix)

    def tool_calls_between(self, sid: int, lo: int, hi: int) -> list[Any]:
        if sid >= 0:
            return self._local.tool_calls_between(sid, lo, hi)
        return self._evidence.team.tool_calls_between(-sid, lo, hi)

    def call_details(self, sid: int, call_ids: Any) -> dict[str, Any]:
        # A teammate's calls are shown without their diffs: the server keeps their messages
        # and tool calls, not what `hansard show` renders them with.
        return self._local.call_details(sid, call_ids) if sid >= 0 else {}


class MergedEvidence:
    """The evidence facet over both stores. Every method of the local evidence facet is
    written here (tests/test_team_view.py checks it): one forwarded to the local store alone
    would silently leave teammates' edits out of `why`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.local, name)

    def __init__(self, local: Any, team: Any, roots: set[str]) -> None:
        self.local = local.evidence
        self._store = local
        self.team = team
        self.roots = roots
        self._root_of: dict[int, str | None] = {}
        self._sessions: dict[str, dict[str, Any] | None] = {}  # team sessions by id, loaded in batches
        self._wanted: set[str] = set()  # team session ids seen, not loaded yet
        self._prompts: dict[str, list[tuple[int, str]]] = {}
        self._content: dict[int, dict[str, Any] | None] = {}
        self._repo_of_root: dict[str, int] = {}

    def _root(self, repo_id: int | None) -> str | None:
        if repo_id is None or repo_id < 0:
            return None
        if repo_id not in self._root_of:
            root = self._store.team_export.repo_identity(repo_id)[0]
            self._root_of[repo_id] = root if root in self.roots else None
            if root in self.roots:
                self._repo_of_root.setdefault(root, repo_id)
        return self._root_of[repo_id]

    def _local_repo(self, root: str | None) -> int | None:
        if root is None:
            return None
        if root not in self._repo_of_root:
            ids = self._store.team_export.repo_ids_with_root(root)
            if not ids:
                return None
            self._repo_of_root[root] = ids[0]
        return self._repo_of_root[root]

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
        rows, elsewhere = self.local.edit_lines_at(repo_id, hl, paths, side, others=others)
        rows, wanted, placed = list(rows), set(paths), set()
        for d in self._team_rows(repo_id, hl, side):
            if d["rel_path"] in wanted:
                self._seen(d["session_id"])
                rows.append(d)
            elif (d["hash"], d["id"]) not in placed:
                placed.add((d["hash"], d["id"]))
                elsewhere.append((d["hash"], d["rel_path"], d["timestamp"]))
        return rows, elsewhere

    def _team_rows(self, repo_id: int, hashes: list[int], side: str) -> list[dict[str, Any]]:
        """The team's edit lines of ``hashes`` in this repository, their ids negated (a team
        row never collides with a local one)."""
        root = self._root(repo_id)
        if not root:
            return []
        out = []
        for r in self._with_sessions(root, hashes, side):
            d = dict(r)
            d["id"] = -d["id"]
            d["srow"] = -d["srow"]
            out.append(d)
        return out

    def _with_sessions(self, root: str, hashes: list[int], side: str) -> list[dict[str, Any]]:
        """The team's edit lines of these hashes; from the server, with their sessions and
        prompts in the same round trip (kept for ``session`` and ``prompt_before``)."""
        if not self.team.combined:  # the offline copy: SQLite, three cheap local queries
            return self.team.edit_lines(root, hashes, side)
        lines, sessions, prompts = self.team.edit_lines_with_sessions(root, hashes, side)
        got: dict[str, list[tuple[int, str]]] = {r["session_id"]: [] for r in sessions}
        for p in prompts:
            got[p["session_id"]].append((p["message_index"], p["text"]))
        for r in sessions:
            self._sessions[r["session_id"]] = team_session_row(r, self._local_repo(r["root_commit"]))
        self._prompts.update(got)
        return lines

    def removed_lines(self, edit_ids: Collection[int]) -> list[tuple[int, int]]:
        mine = [i for i in edit_ids if i >= 0]
        theirs = [-i for i in edit_ids if i < 0]
        out = list(self.local.removed_lines(mine)) if mine else []
        return out + [(-e, h) for e, h in self.team.removed_lines(theirs)]

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
        root = self._root(repo_id)
        return bool(root) and self.team.has_applied_edits(root, list(paths))

    def unlinked_hashes(self, hashes: Iterable[int], basename: str) -> set[int]:
        return self.local.unlinked_hashes(hashes, basename)

    def applied_edits(self, repo_id: int, paths: Collection[str]) -> list[Any]:
        rows: list[Any] = list(self.local.applied_edits(repo_id, paths))
        root = self._root(repo_id)
        if root:
            for r in self.team.applied_edits(root, list(paths)):
                d = dict(r)
                d["id"], d["srow"] = -d["id"], -d["srow"]
                rows.append(d)
        return rows

    def session_edits(self, session_row: int) -> list[Any]:
        if session_row >= 0:
            return self.local.session_edits(session_row)
        return [{**r, "id": -r["id"]} for r in self.team.session_edits(-session_row)]

    def sessions_editing_repo(self, repo_id: int, except_row: int) -> list[int]:
        out = list(self.local.sessions_editing_repo(repo_id, except_row))
        root = self._root(repo_id)
        if root:
            out += [-r for r in self.team.sessions_editing_repo(root, -except_row)]
        return out

    # -- tool calls and steps ---------------------------------------------------------------------

    def repo_tool_inputs(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str | None, str | None]]:
        out = list(self.local.repo_tool_inputs(repo_id, tools, needle))
        root = self._root(repo_id)
        if root:
            out += self.team.repo_tool_inputs(root, list(tools), needle)
        return out

    def repo_shell_calls(self, repo_id: int, tools: Collection[str], needle: str
                         ) -> list[tuple[str, str | None, str | None, str | None]]:
        out = list(self.local.repo_shell_calls(repo_id, tools, needle))
        root = self._root(repo_id)
        if root:
            out += self.team.repo_shell_calls(root, list(tools), needle)
        return out

    def session_tool_calls(self, session_row: int, tools: Collection[str]) -> list[Any]:
        if session_row >= 0:
            return self.local.session_tool_calls(session_row, tools)
        return self.team.session_tool_calls(-session_row, list(tools))

    def steps(self, session_rows: Collection[int]) -> list[dict[str, Any]]:
        mine = [r for r in session_rows if r >= 0]
        return self.local.steps(mine) if mine else []

    # -- sessions -----------------------------------------------------------------------------

    def _team_session(self, session_id: str) -> dict[str, Any] | None:
        if session_id not in self._sessions:
            want = self._wanted | {session_id}
            self._wanted = set()
            found = {r["session_id"]: r for r in self.team.sessions(sorted(want))}
            for sid in want:
                r = found.get(sid)
                self._sessions[sid] = team_session_row(r, self._local_repo(r["root_commit"])) if r else None
        return self._sessions[session_id]

    def session(self, session_id: str) -> Any:
        row = self.local.session(session_id)
        if row is None and self.roots:
            return self._team_session(session_id)
        return row

    def session_at(self, session_row: int) -> Any:
        if session_row >= 0:
            return self.local.session_at(session_row)
        r = self.team.session_at(-session_row)
        return team_session_row(r, self._local_repo(r["root_commit"])) if r else None

    def prompt_before(self, session_id: str, message_index: int) -> tuple[int, str] | None:
        if self.local.session(session_id) is not None or not self.roots:
            return self.local.prompt_before(session_id, message_index)
        if session_id not in self._prompts:
            want = {s for s in self._sessions if self._sessions[s] is not None} | self._wanted | {session_id}
            want -= set(self._prompts)
            for sid in want:
                self._prompts[sid] = []
            for r in self.team.prompts(sorted(want)):
                self._prompts[r["session_id"]].append((r["message_index"], r["text"]))
        best = None
        for idx, text in self._prompts[session_id]:
            if idx <= message_index:
                best = (idx, text)
        return best

    def top_sessions_in_repo(self, repo_id: int) -> list[Any]:
        rows: list[Any] = list(self.local.top_sessions_in_repo(repo_id))
        root = self._root(repo_id)
        if root:
            rows += [team_session_row(r, repo_id) for r in self.team.top_sessions_in_repo(root)]
            rows.sort(key=lambda r: r["last_at"] or "", reverse=True)
        return rows

    def sessions_resuming(self, session_id: str) -> list[Any]:
        return self.local.sessions_resuming(session_id)

    def sessions_summarised_by(self, session_id: str) -> list[Any]:
        return self.local.sessions_summarised_by(session_id)

    def sessions_summarising(self, session_row: int) -> list[Any]:
        return self.local.sessions_summarising(session_row) if session_row >= 0 else []

    def compactions(self, session_row: int) -> int:
        return self.local.compactions(session_row) if session_row >= 0 else 0

    def subagents(self, session_id: str) -> list[Any]:
        return self.local.subagents(session_id)

    def session_sources(self) -> list[Any]:
        return self.local.session_sources()


class MergedMemories:
    """The local memories, and other members' project memories of the opted-in repositories
    (their current text, pushed redacted). A team memory's id is ``team-<n>`` and its row id
    negative; its ``repo_path`` is this member's checkout of the repository, so a server held
    to one repository (``--scope repo``) serves it only there. A few files per repository and
    member: matched here, with the words of the query, not ranked by the server."""

    # Answered from this machine's store alone, by decision (tests/test_team_view.py holds
    # every other method to being written here): the mirror's bookkeeping, which only this
    # machine's indexer writes.
    LOCAL_ONLY = frozenset({"count", "known", "mark_missing", "mark_root_scanned", "project_of_folder",
                            "project_roots", "root_scanned_at", "save", "set_scope", "transaction"})

    def __init__(self, local: Any, team: Any, roots: set[str], paths: dict[str, str], store: Any) -> None:
        self._local = local
        self._team = team
        self._roots = roots
        self._paths = paths
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._local, name)

    def _row(self, r: dict[str, Any]) -> dict[str, Any]:
        return {"id": -r["id"], "version_id": -r["id"], "memory_id": f"team-{r['id']}", "kind": r["kind"],
                "source": r["source"], "scope": "project", "title": r["title"],
                "path": r["rel_path"] or f"team-{r['id']}", "repo_path": self._paths.get(r["root_commit"]),
                "rel_path": r["rel_path"], "last_seen": r["seen_at"], "first_seen": None, "missing": 0,
                "text": r["text"], "member": r["member"], "member_name": r["member_name"], "sha256": r["sha256"]}

    def current(self, q: Any, *, project: Any = None, sources: Any = ()) -> list[dict[str, Any]]:
        rows = list(self._local.current(q, project=project, sources=sources))
        roots = set(self._roots)
        if project is not None:
            repo_ids, root = project
            ids = set(repo_ids or ())
            exp = self._store.team_export
            roots = {c for c in roots if ids & set(exp.repo_ids_with_root(c)) or (root and self._paths.get(c) == root)}
        if not roots:
            return rows
        groups = [[w.casefold() for t in g for w in ([t.text] if t.identifier else t.words)] for g in q.groups]
        excluded = [[w.casefold() for w in t.words] for t in q.exclude]
        for r in self._team.memories(sorted(roots)):
            if any(v not in (r["source"], r["kind"]) for v in sources):
                continue
            low = (r["text"] or "").casefold()
            if groups and not any(w in low for g in groups for w in g):
                continue
            if any(ws and all(w in low for w in ws) for ws in excluded):
                continue
            rows.append(self._row(r) | {"relevance": 0.0})
        return rows

    def get(self, memory_id: str) -> dict[str, Any] | None:
        if not memory_id.startswith("team-") or not memory_id[5:].isdigit():
            return self._local.get(memory_id)
        found = [r for r in self._team.memories([], int(memory_id[5:])) if r["root_commit"] in self._roots]
        return self._row(found[0]) if found else None

    def versions(self, row_id: int) -> list[dict[str, Any]]:
        if row_id >= 0:
            return self._local.versions(row_id)
        found = self._team.memories([], -row_id)
        return [{"id": row_id, "sha256": r["sha256"], "seen_at": r["seen_at"], "text": r["text"]} for r in found]
