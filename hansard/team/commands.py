"""`hansard team init | add-member | join | add-repo | push | pull | status`: who may write
what, what leaves this machine and when, and what comes to it.

The database owner runs ``init`` (schema, the team's group role) and ``add-member`` (a login
role per member, its password printed once); a member runs ``join`` with those credentials.
The server, not this code, keeps members apart (row-level security on every table, see
:mod:`hansard.store.postgres.roles`); a refusal is ``TeamForbidden``. Configuration and
password file are written only once the server has accepted the connection.

A push sends the sessions that ran in an opted-in repository (never one that ran elsewhere,
even if it edited an opted-in repository's files), each session's derived rows as the local
store holds them (redacted at ingest), and the current text of their project memory files,
passed through the redactor once more on the way out; never the raw archive, never a global
memory. It is incremental and idempotent: a session whose content digest the
server already has for this member-machine is not sent again (a memory: its text's digest).
Rows pulled from the team (hansard.team.pull) are never sent: a push reads this machine's own.
A pull brings the team's sessions of the opted-in repositories into the local store now,
whatever ``HANSARD_TEAM_FRESH`` says. A server that is down or slow fails push and pull with
``TeamUnreachable`` (retryable) and nothing changes locally.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hansard.errors import InvalidArgument, NotARepository, RepoNotOptedIn, TeamForbidden
from hansard.team import config as tconfig


def _identity(cwd: str) -> tuple[str, str | None]:
    """(git user.email, git user.name) as git would sign a commit here."""
    from hansard.git.identity import user_identity

    email, name = user_identity(cwd)
    if not email:
        raise InvalidArgument("git has no user.email here: set it with `git config --global user.email ...`")
    return email, name


def _repo_at(path: str) -> dict[str, Any]:
    from hansard.git import identity

    tops = identity.find_toplevel(os.path.abspath(path))
    if tops is None:
        raise NotARepository(f"{path} is not inside a git repository")
    ident = identity.identify(tops[1])
    if not ident.root_commit:
        raise InvalidArgument(f"{tops[1]} has no commit yet: a repository is known to the team by its first commit")
    return {"root_commit": ident.root_commit, "remote": ident.remote, "path": tops[1],
            "name": os.path.basename(tops[1].rstrip(os.sep))}


# -- init / add-repo ----------------------------------------------------------------------------


def _config(name: str | None, clean: str, email: str | None, display: str | None) -> dict[str, Any]:
    import uuid

    old = tconfig.load() if tconfig.configured() else {}
    machine = (old.get("member") or {}).get("machine") or uuid.uuid4().hex
    return {"name": name, "url": clean, "timeout": tconfig.TIMEOUT,
            "member": {"email": email, "name": display, "machine": machine}, "repos": old.get("repos", [])}


def _write(cfg: dict[str, Any], clean: str, password: str | None) -> str | None:
    """Config and password file, once the server has said yes."""
    passfile = tconfig.store_password(clean, password) if password else None
    tconfig.save(cfg)
    return passfile


def init(url: str, name: str, *, cwd: str | None = None) -> dict[str, Any]:
    """The database owner: the schema brought up to date and the team's group role, then this
    configuration (so that `add-member` reaches the server as the owner)."""
    from hansard.team import open_server

    clean, password = tconfig.split_password(url)
    try:
        email, display = _identity(cwd or os.getcwd())
    except InvalidArgument:  # the owner need not be a member, nor have a git identity
        email, display = None, None
    cfg = _config(name, clean, email, display)
    server = open_server(cfg, migrate=True, conninfo=tconfig.with_password(clean, password) if password else None)
    try:
        group = server.roles.create_team(name)
    finally:
        server.close()
    passfile = _write(cfg, clean, password)
    return {"team": name, "url": clean, "group_role": group, "member": cfg["member"],
            "config": tconfig.config_path(), "passfile": passfile}


def _dsn_for(url: str, role: str, password: str) -> str:
    """The owner's connection string with the member's role and password in it."""
    from urllib.parse import quote, urlsplit, urlunsplit

    if "://" in url and "password=" not in url and "user=" not in url:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = quote(role, safe="") + ":" + quote(password, safe="") + "@" + host + (
            f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    from psycopg import conninfo

    return conninfo.make_conninfo(url, user=role, password=password)


def add_member(email: str, team: str | None = None, role: str | None = None) -> dict[str, Any]:
    """The database owner: a login role for ``email`` in the team, with one-time credentials."""
    from hansard.team import open_server

    cfg = tconfig.load()
    team = team or cfg["name"]
    server = open_server(cfg, current=True)
    try:
        d = server.roles.add_member(team, email, role)
    finally:
        server.close()
    return {**d, "dsn": _dsn_for(cfg["url"], d["role"], d["password"])}


def join(dsn: str, name: str | None = None, *, cwd: str | None = None) -> dict[str, Any]:
    """A member: connect with the credentials the owner printed; the team and this member's
    email are the ones the server has for the role."""
    from hansard.team import open_server

    clean, password = tconfig.split_password(dsn)
    try:
        git_email, display = _identity(cwd or os.getcwd())
    except InvalidArgument:
        git_email, display = None, None
    cfg = _config(name, clean, git_email, display)
    server = open_server(cfg, current=True, conninfo=tconfig.with_password(clean, password) if password else None)
    try:
        me_ = server.roles.whoami()
    finally:
        server.close()
    if me_["team"] is None:
        raise TeamForbidden(f"role {me_['role']} is not a member of any team here: the database owner runs"
                            " `hansard team add-member EMAIL` and gives you what it prints")
    if name is not None and name != me_["team"]:
        raise InvalidArgument(f"role {me_['role']} is a member of team {me_['team']!r}, not {name!r}")
    cfg["name"] = me_["team"]
    cfg["member"].update(email=me_["email"], role=me_["role"])
    passfile = _write(cfg, clean, password)
    out = {"team": me_["team"], "url": clean, "role": me_["role"], "member": cfg["member"],
           "config": tconfig.config_path(), "passfile": passfile}
    if git_email and git_email != me_["email"]:
        out["notice"] = f"git's user.email here is {git_email}; the team knows this member as {me_['email']}"
    return out


def add_repo(path: str) -> dict[str, Any]:
    cfg = tconfig.load()
    repo = _repo_at(path)
    repos = [r for r in cfg.get("repos", []) if r["root_commit"] != repo["root_commit"]]
    repos.append(repo)
    cfg["repos"] = repos
    tconfig.save(cfg)
    return {"added": repo, "repos": repos}


def _selected(cfg: dict[str, Any], repo: str | None) -> list[dict[str, Any]]:
    repos = cfg.get("repos", [])
    if repo is None:
        return repos
    want = _repo_at(repo)
    chosen = [r for r in repos if r["root_commit"] == want["root_commit"]]
    if not chosen:
        raise RepoNotOptedIn(f"{want['path']} is not opted in for the team: run `hansard team add-repo {repo}` first",
                             repo=want["path"])
    return chosen


# -- push -----------------------------------------------------------------------------------------


def _redact_all(session: dict[str, Any], rows: dict[str, list[dict[str, Any]]]) -> int:
    """Run every text field through the redactor again (the store's text was redacted at
    ingest; a rule added since is applied on the way out too). Returns secrets withheld now."""
    from hansard.ingest import redact

    n = 0

    def clean(d: dict[str, Any], key: str) -> None:
        nonlocal n
        v = d.get(key)
        if isinstance(v, str) and v:
            d[key], k = redact.redact(v)
            n += k

    for key in ("title", "first_prompt", "cwd"):
        clean(session, key)
    for m in rows["messages"]:
        clean(m, "text")
    for t in rows["tool_calls"]:
        for key in ("input", "output", "cwd"):
            clean(t, key)
    for e in rows["edits"]:
        clean(e, "after_text")
        if e.get("hunks"):
            hunks = json.loads(e["hunks"])
            for h in hunks:
                h[4], k = redact.redact_lines(h[4], prefix=1)
                n += k
            e["hunks"] = json.dumps(hunks)
    return n


# Sessions per transaction of a push: whole batches land or none.
PUSH_BATCH = 200

# What meaning search embeds (as locally): conversation, not tool output.
_EMBEDDED_KINDS = {"text", "compaction_summary", "thinking"}
_EMBEDDED_ROLES = {"user", "assistant", "system"}


def _embedder() -> Any:
    """The local embedder when the `semantic` extra is on, else None (sessions go without
    vectors; pushing again once it is on sends them)."""
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        return None
    from hansard.answers.search.meaning import load_embedder

    return load_embedder()[0]


def _passages(embedder: Any, messages: list[dict[str, Any]]) -> list[tuple[int, int, int, bytes]]:
    """(message_index, start, end, float16 vector) of every passage of the conversation
    messages, embedded from the text being sent (already redacted)."""
    import numpy as np

    from hansard.ingest.embed import passages

    spans = [(m["message_index"], a, b, m["text"][a:b]) for m in messages
             if m["kind"] in _EMBEDDED_KINDS and m["role"] in _EMBEDDED_ROLES and len(m["text"]) >= 8
             for a, b in passages(m["text"])]
    if not spans:
        return []
    vecs = embedder.embed([t for *_, t in spans])
    return [(i, a, b, np.asarray(v, np.float16).tobytes()) for (i, a, b, _), v in zip(spans, vecs, strict=True)]


def collect(local: Any, cfg: dict[str, Any], repo: str | None = None, model: str | None = None
            ) -> list[dict[str, Any]]:
    """What a push would send: one entry per (repository, session) with its rows. ``model``:
    the embedder whose vectors go with them (part of the digest: vectors made later are sent)."""
    from hansard.store.postgres.store import content_hash

    out = []
    exp = local.team
    # The local repository rows of every opted-in repository: a session is sent only when it
    # ran in one of them. One that ran elsewhere (another repository, or none) and edited an
    # opted-in repository's files stays here: its transcript is that other place's.
    opted = {i for r in cfg.get("repos", []) for i in exp.repo_ids_with_root(r["root_commit"])}
    for r in _selected(cfg, repo):
        ids = exp.repo_ids_with_root(r["root_commit"])
        for s in exp.sessions_in(ids):
            if s.get("repo_id") not in opted:
                continue
            rows = exp.session_rows(s["id"], ids)
            # Where this machine read it, sent only when not this machine (so the digest of a
            # session pushed before origins were kept stays the same).
            session = {k: v for k, v in s.items()
                       if k not in ("id", "repo_id") and not (k in ("origin", "origin_ref", "claimed_id") and v is None)}
            extra = _redact_all(session, rows)
            for e in rows["edits"]:
                e.pop("id", None)
                e.pop("repo_id", None)
            payload = json.dumps([session, rows], default=str)
            marks = payload.count("[REDACTED:")
            out.append({"repo": r, "session": session, "rows": rows,
                        "hash": content_hash({**session, "_vectors": model}, rows),
                        "bytes": len(payload.encode("utf-8", "surrogatepass")), "redactions": marks,
                        "redacted_now": extra})
    return out


def collect_memories(local: Any, cfg: dict[str, Any], repo: str | None = None) -> list[dict[str, Any]]:
    """The project memories a push would send, each redacted again, with its digest."""
    import hashlib

    from hansard.ingest import redact

    exp = local.team
    out = []
    for r in _selected(cfg, repo):
        for m in exp.memories_in(exp.repo_ids_with_root(r["root_commit"])):
            m["text"], _ = redact.redact(m["text"])
            m["sha256"] = hashlib.sha256(m["text"].encode("utf-8", "surrogatepass")).hexdigest()
            out.append({"repo": r, "memory": m, "bytes": len(m["text"].encode("utf-8", "surrogatepass")),
                        "redactions": m["text"].count("[REDACTED:")})
    return out


def push(local: Any, repo: str | None = None, *, dry_run: bool = False) -> dict[str, Any]:
    cfg = tconfig.load()
    _selected(cfg, repo)  # refused before anything else when not opted in
    server = None
    if not dry_run:  # an unreachable server fails the push before anything is read
        from hansard.team import open_server

        server = open_server(cfg, current=True)
    try:
        return _push(local, cfg, repo, server)
    finally:
        if server is not None:
            server.close()


def _push(local: Any, cfg: dict[str, Any], repo: str | None, server: Any) -> dict[str, Any]:
    dry_run = server is None
    embedder = None if dry_run else _embedder()
    entries = collect(local, cfg, repo, embedder.id if embedder else None)
    listing = [{"session_id": e["session"]["session_id"], "provider": e["session"]["provider"],
                "repo": e["repo"]["name"], "root_commit": e["repo"]["root_commit"], "bytes": e["bytes"],
                "messages": len(e["rows"]["messages"]), "edits": len(e["rows"]["edits"]),
                "redactions": e["redactions"]} for e in entries]
    mems = collect_memories(local, cfg, repo)
    mem_listing = [{"memory_id": m["memory"]["memory_id"], "kind": m["memory"]["kind"], "repo": m["repo"]["name"],
                    "rel_path": m["memory"]["rel_path"], "bytes": m["bytes"], "redactions": m["redactions"]}
                   for m in mems]
    summary: dict[str, Any] = {"team": cfg["name"], "member": cfg["member"]["email"], "dry_run": dry_run,
                               "repos": [r["name"] for r in _selected(cfg, repo)],
                               "redactions": sum(e["redactions"] for e in entries) + sum(m["redactions"] for m in mems)}
    if dry_run:
        import importlib.util

        # With the semantic extra, each session above also carries its conversation's passage
        # vectors, embedded from the redacted text listed.
        summary["passage_vectors"] = importlib.util.find_spec("wordllama") is not None
        return {**summary, "sessions": listing, "memories": mem_listing,
                "bytes": sum(e["bytes"] for e in entries) + sum(m["bytes"] for m in mems)}
    up = server.uploads
    try:
        member_id = up.member(cfg["member"]["email"], cfg["member"]["machine"], cfg["member"].get("name"))
    except TeamForbidden as exc:  # the server refused the row: say why, in its terms
        server.roles.require_member(cfg["member"]["email"])
        raise exc
    repo_ids = {r["root_commit"]: up.repo(r["root_commit"], r.get("remote"), r.get("name"))
                for r in _selected(cfg, repo)}
    have = up.pushed(member_id)
    sent: list[dict[str, Any]] = []
    batch: list[tuple[int, dict[str, Any], dict[str, Any], str, int]] = []
    for e, item in zip(entries, listing, strict=True):
        if have.get(e["session"]["session_id"]) == e["hash"]:
            continue
        if embedder is not None:
            e["rows"]["model"], e["rows"]["passages"] = embedder.id, _passages(embedder, e["rows"]["messages"])
        if any(b[1]["session_id"] == e["session"]["session_id"] for b in batch):
            up.put_sessions(member_id, batch)  # one session in two opted-in repositories: the last wins
            batch = []
        batch.append((repo_ids[e["repo"]["root_commit"]], e["session"], e["rows"], e["hash"], e["redactions"]))
        sent.append(item)
        if len(batch) >= PUSH_BATCH:
            up.put_sessions(member_id, batch)
            batch = []
    up.put_sessions(member_id, batch)
    if len(sent) >= PUSH_BATCH:
        up.analyze()
    have_mem = up.pushed_memories(member_id)
    sent_mem = []
    for m, item in zip(mems, mem_listing, strict=True):
        if have_mem.get(m["memory"]["memory_id"]) == m["memory"]["sha256"]:
            continue
        up.put_memory(member_id, repo_ids[m["repo"]["root_commit"]], m["memory"])
        sent_mem.append(item)
    return {**summary, "sessions": sent, "pushed": len(sent), "unchanged": len(entries) - len(sent),
            "memories": sent_mem, "memories_unchanged": len(mems) - len(sent_mem),
            "bytes": sum(s["bytes"] for s in sent) + sum(m["bytes"] for m in sent_mem)}


# -- pull / status ----------------------------------------------------------------------------------


def pull(local: Any) -> dict[str, Any]:
    """The team's sessions of every opted-in repository, pulled into the local store now."""
    from hansard.team.pull import pull as pull_now

    cfg = tconfig.load()
    counts = pull_now(local, cfg)
    state = local.team.state() or {}
    return {"team": cfg["name"], "repos": len(cfg.get("repos", [])), "counts": counts,
            "held": {"sessions": state.get("sessions", 0), "memories": state.get("memories", 0)},
            "pulled_at": state.get("pulled_at")}


def status(local: Any) -> dict[str, Any]:
    from hansard.errors import HansardError, TeamUnreachable
    from hansard.team import open_server

    cfg = tconfig.load()
    out: dict[str, Any] = {"team": cfg["name"], "url": tconfig.shown(cfg["url"]), "member": cfg["member"],
                           "repos": cfg.get("repos", []), "server": None}
    try:
        server = open_server(cfg)
    except TeamUnreachable as exc:
        out["server"] = {"reachable": False, "error": exc.message}
    except HansardError as exc:  # it answered, and refused (a newer schema, this role)
        out["server"] = {"reachable": True, "error": exc.message}
    else:
        try:
            out["server"] = {"reachable": True, **server.uploads.counts()}
        finally:
            server.close()
    state = local.team.state()
    if state is not None:
        out["pulled"] = {"at": state["pulled_at"], "sessions": state["sessions"], "memories": state["memories"],
                         "tried_at": state["tried_at"], "error": state["error"]}
    return out


# -- command line ---------------------------------------------------------------------------------


def add_arguments(sp: Any) -> None:
    sub = sp.add_subparsers(dest="team_cmd", required=True)
    m = sub.add_parser("init", help="the database owner: create the team's tables and its group role")
    m.add_argument("url", help="the owner's postgresql://user@host:port/db or key=value string (a password here moves"
                               " to a 0600 pgpass file)")
    m.add_argument("--name", required=True, help="the team's name")
    m.add_argument("--json", action="store_true")
    m = sub.add_parser("add-member", help="the database owner: a login role for a member; prints its credentials once")
    m.add_argument("email", help="the member's email (how teammates see their sessions)")
    m.add_argument("--team", help="the team (default: the one of `team init`)")
    m.add_argument("--role", help="the role's name (default: TEAM_LOCALPART)")
    m.add_argument("--json", action="store_true")
    m = sub.add_parser("join", help="a member: connect with the credentials `team add-member` printed")
    m.add_argument("dsn", help="the connection string add-member printed (its password moves to a 0600 pgpass file)")
    m.add_argument("--name", help="the team's name (checked against the server's)")
    m.add_argument("--json", action="store_true")
    m = sub.add_parser("add-repo", help="opt a repository in: its sessions may be pushed, the team's are read")
    m.add_argument("path", nargs="?", default=".")
    m.add_argument("--json", action="store_true")
    m = sub.add_parser("push", help="upload this machine's sessions of the opted-in repositories (redacted)")
    m.add_argument("--repo", help="only this opted-in repository (a path inside it)")
    m.add_argument("--dry-run", action="store_true", help="list what would leave this machine, send nothing")
    m.add_argument("--json", action="store_true")
    m = sub.add_parser("pull", help="bring the team's sessions of the opted-in repositories into the local store now")
    m.add_argument("--json", action="store_true")
    m = sub.add_parser("status", help="the team, this member, the server's counts, the last pull")
    m.add_argument("--json", action="store_true")


def run(a: Any, local_store: Any) -> tuple[dict[str, Any], str]:
    """(JSON answer, text) of one `hansard team` command; ``local_store`` is called for a store."""
    cmd = a.team_cmd
    if cmd == "init":
        d = init(a.url, a.name)
        return d, (f"team {d['team']}: {tconfig.shown(d['url'])} (group role {d['group_role']}; config {d['config']})\n"
                   "add members with `hansard team add-member EMAIL`")
    if cmd == "add-member":
        d = add_member(a.email, a.team, a.role)
        return d, "\n".join([
            f"{'new password for' if d['rotated'] else 'member'} {d['email']} in team {d['team']}: role {d['role']}",
            f"  password: {d['password']}",
            "give them this command (shown once; hansard keeps no copy):",
            f"  hansard team join '{d['dsn']}'"])
    if cmd == "join":
        d = join(a.dsn, a.name)
        said = f"team {d['team']}: {tconfig.shown(d['url'])} as {d['member']['email']} (role {d['role']}; config {d['config']})"
        return d, said + (f"\n{d['notice']}" if d.get("notice") else "")
    if cmd == "add-repo":
        d = add_repo(a.path)
        return d, f"opted in {d['added']['path']} ({d['added']['root_commit'][:12]})"
    if cmd == "push":
        d = push(local_store(), a.repo, dry_run=a.dry_run)
        lines = [f"{s['session_id'][:13]}  {s['provider']:11}  {s['repo']:16}  {s['bytes']:>8} bytes"
                 f"  {s['redactions']} redacted" for s in d["sessions"]]
        lines += [f"memory {m['rel_path'] or m['memory_id']}  {m['repo']:16}  {m['bytes']:>8} bytes"
                  f"  {m['redactions']} redacted" for m in d["memories"]]
        head = ("would send" if d["dry_run"] else "pushed") + f" {len(d['sessions'])} session(s), " \
            f"{d['bytes']} bytes, {d['redactions']} redaction(s)"
        if not d["dry_run"]:
            head += f"; {d['unchanged']} unchanged"
        return d, "\n".join([head, *lines])
    if cmd == "pull":
        d = pull(local_store())
        c = d["counts"]
        return d, (f"pulled {c['sessions']} new or changed team session(s), dropped {c['dropped']};"
                   f" {d['held']['sessions']} held from {d['repos']} repositories")
    d = status(local_store())
    srv = d["server"]
    text = [f"team {d['team']} at {tconfig.shown(d['url'])}; member {d['member']['email']} ({d['member']['machine'][:8]})",
            "repos: " + (", ".join(r["name"] for r in d["repos"]) or "none (hansard team add-repo .)")]
    if srv and srv.get("reachable") and "error" not in srv:
        text.append(f"server: {srv['members']} member-machines, {srv['sessions']} sessions, {srv['messages']} messages")
    elif srv and srv.get("reachable"):
        text.append(f"server: {srv['error']}")
    else:
        text.append(f"server: unreachable ({srv['error'] if srv else '?'})")
    if d.get("pulled"):
        p = d["pulled"]
        text.append(f"pulled: {p['sessions']} sessions, {p['memories']} memories, at {p['at']}"
                    + (f" (the last attempt, {p['tried_at']}, failed: {p['error']})" if p["error"] else ""))
    return d, "\n".join(text)
