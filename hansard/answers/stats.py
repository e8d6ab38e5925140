"""`hansard stats`: how much of a repository agents wrote, counted from the same
attribution engine as `why`: every tracked file at the revision is answered by
``hansard.answers.why.question`` and its lines are counted by kind. There is no second
heuristic; a line counted ``agent`` here is a line `hansard why --json` calls ``agent``.

What each part measures:

* ``kinds``, ``files``, ``folders``, ``by``: the lines of the files at the revision, by the kind
  their why answer gives; each count adds up to the files' line counts. A line's agent is its
  session's provider, its model the model of the message whose tool call wrote it (where the
  transcript names one), its member the teammate whose session it is (``hansard team``), its
  source where the session was read (``local``: this machine's agent homes; ``repository``: the
  repository's checkpoint refs; ``repository_file``: a history file the repository holds;
  ``import``; ``member``: a teammate's push; hansard.agents.origin).
* ``months``: the lines alive at the revision, by the month (UTC) of their commit's author
  time: agents (``agent`` + ``agent_modified``), people (``human`` + ``pasted``) and
  ``unknown``. Lines that were written and later deleted are not in it: it is not a count of
  every line ever added.
* ``alive_by_age``: the agent lines alive at the revision, by how long before the revision's
  commit their commit was made (under 7 days, 7 to 30, 30 to 90, 90 and more). It is not a
  survival rate: lines agents wrote that are gone are not replayed from the history.
* ``durability``: for 7, 30 and 90 days, the agent lines alive at the revision whose commit
  is at least that old, the lines agents' applied edits added at least that long before the
  revision, and the first over the second (``alive_per_added_line``). True survival (of the
  lines that landed then, how many are left) would need every commit's answer replayed; this
  is the share of what agents' edits added then that is in the code now, and an edit's line
  rewritten by a later edit before any commit counts as added twice.
* ``tree``: for each path asked (the repository's root when none), the same counts as a tree of
  its folders and files (``type`` "dir" or "file", ``entries`` a folder's own entries,
  ``children`` down to ``depth`` levels below the path, or all of them); ``file_count``: the files
  counted, however many ``files`` lists.
* ``funnel``: the repository's sessions, the commits tied to them (their shell output named
  them, or their edits alone wrote lines of them) or holding their lines at the revision, the
  lines their applied edits added (every edit counted, so a line rewritten twice counts twice),
  and the agent lines alive at the revision.

The files are counted as committed at the revision (default HEAD), so ``uncommitted`` is
always 0 for now; it is kept so the kinds are why's own.

``since``/``until`` keep the lines whose commit was authored within the bounds (uncommitted
lines then drop out) and the sessions started within them.

Each file's answer is summarised, and the summary offered to the request to keep in the store
(``store.stats``, ``hansard.store.kept``) under its path and blob id, for one store generation:
a second run after a new commit answers again only the files the commit changed. A remembered
summary whose commits are no longer in the revision's history (an amend or a rebase rewrote
them) is answered again too. ``cache`` counts the files, the summaries remembered, the files
answered and the summaries new in this run.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any, cast

from hansard.errors import InvalidArgument, NotARepository, PathOutsideRepository, UnknownRevision

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from hansard.answers.results import RepoStats
    from hansard.answers.why.many import Ask
    from hansard.ingest.pipeline import Progress
    from hansard.store.interfaces import Store

# Bumped whenever a summary's shape, or what goes into it, changes: old rows are never read.
RULES_VERSION = 3  # 2: a summary says when its answer had the no_sessions notice; 3: each session's source
KINDS = ("agent", "agent_modified", "pasted", "human", "unknown", "uncommitted")
AGENT_KINDS = ("agent", "agent_modified")
PEOPLE_KINDS = ("human", "pasted")
BY = ("agent", "model", "session", "member", "source", "dir", "month")
# A file larger than this is counted as skipped, not answered (a generated or vendored file).
MAX_FILE_BYTES = 1_000_000
# git's own test for a binary file: a NUL in the first 8000 bytes.
BINARY_SNIFF = 8000
# How deep a `--depth` may go (no repository nests folders deeper than this is useful to print).
MAX_DEPTH = 64
AGE_BUCKETS = ((7, "<7d"), (30, "7-30d"), (90, "30-90d"), (None, ">=90d"))
DAY = 86400


def run_context(store: Store, top: str, main_top: str) -> str:
    """What every file's summary of one run depends on beside its path and blob: hansard's
    version and rules (why's and this module's), the store's schema, the repository, and the
    files git blame reads beside history (``.git-blame-ignore-revs``, ``.mailmap``)."""
    from hansard import __version__
    from hansard.answers.why.cache import CACHE_FORMAT
    from hansard.answers.why.engine import RULES_VERSION as WHY_RULES
    from hansard.files import safeopen

    h = hashlib.sha256(repr((RULES_VERSION, WHY_RULES, CACHE_FORMAT, __version__, store.why_cache.schema(), top,
                             main_top)).encode("utf-8", "surrogateescape"))
    for name in (".git-blame-ignore-revs", ".mailmap"):
        try:  # a FIFO here must not hang the run
            side = safeopen.read_bytes(os.path.join(top, name), follow=True)
        except OSError:
            side = None
        h.update(repr(side).encode())
    return h.hexdigest()


def cache_key(context: str, path: str, blob: str) -> str:
    return hashlib.sha256(f"{context}\0{path}\0{blob}".encode("utf-8", "surrogateescape")).hexdigest()


def summarise(store: Store, doc: Mapping[str, Any]) -> dict[str, Any]:
    """One file's why answer as counts: rows of [kind, session_id, message_index, commit, n]
    with what the rows name (the sessions' provider, member and title, the commits' author
    time, the messages' models)."""
    rows: Counter[tuple[str, str | None, int | None, str | None]] = Counter()
    for ln in doc["lines"]:
        sid = ln.get("session_id")
        rows[(ln["kind"], sid, ln.get("message_index") if sid else None, ln.get("commit"))] += 1
    sessions = {}
    for sid, s in (doc.get("sessions") or {}).items():
        sessions[sid] = {"provider": s.get("provider"), "title": s.get("title"), "started_at": s.get("started_at")}
        if s.get("member"):
            sessions[sid]["member"] = s["member"]
        kind = (s.get("source") or {}).get("kind")
        if kind:
            sessions[sid]["source"] = kind
    pairs = [(sid, idx) for (_k, sid, idx, _c) in rows if sid and idx is not None]
    models = store.stats.models(pairs) if pairs else {}
    out = {
        "lines": len(doc["lines"]),
        "rows": [[k, sid, idx, c, n] for (k, sid, idx, c), n in sorted(rows.items(), key=str)],
        "sessions": sessions,
        "commits": {sha: c.get("author_time") for sha, c in (doc.get("commits") or {}).items()},
        "models": [[sid, idx, m] for (sid, idx), m in sorted(models.items())],
    }
    if doc.get("notice"):
        out["no_sessions"] = True  # the repository had no archived session: its lines are unknown
    return out


def _resolve(cwd: str | None, paths: Sequence[str] | None, rev: str | None) -> tuple[str, str, str, list[str]]:
    """(top, main top, the revision's commit, repository-relative paths)."""
    from hansard.git.identity import find_toplevel, relpath_in
    from hansard.git.refs import resolve_commit

    here = os.path.abspath(cwd or os.getcwd())
    tops = find_toplevel(os.path.join(here, "."))
    if tops is None:
        raise NotARepository(f"{here} is not inside a git repository")
    top, main_top = tops
    sha = resolve_commit(top, rev or "HEAD")
    if sha is None:
        raise UnknownRevision(f"--rev {rev} names no commit of the repository at {top}" if rev
                              else f"the repository at {top} has no commit yet")
    rels = []
    for p in paths or []:
        full = os.path.abspath(os.path.join(here, p))
        rel = relpath_in(os.path.realpath(top), os.path.realpath(full)) or relpath_in(top, full)
        if rel is None:
            raise PathOutsideRepository(f"{p} is outside the repository at {top}")
        rels.append("" if rel in (".", "") else rel.rstrip("/"))
    if "" in rels:
        rels = []
    return top, main_top, sha, rels


def _is_binary(cat: Any, blob: str) -> bool:
    got = cat.get(blob, max_bytes=MAX_FILE_BYTES)
    return got is not None and b"\0" in got[1][:BINARY_SNIFF]


def repo_stats(store: Store, paths: Sequence[str] | None = None, *, rev: str | None = None,
               since: str | None = None, until: str | None = None, by: Iterable[str] = ("agent",),
               cwd: str | None = None, cache: bool = True,
               progress: Progress | None = None, max_files: int | None = None, depth: int | None = None,
               ask: Ask | None = None) -> RepoStats:
    """The stats of the repository holding ``cwd`` at ``rev`` (default HEAD), of its files under
    ``paths`` (default all), as described in this module's docstring. ``by`` names the
    breakdowns to include (agent, model, session, member, dir, month). ``cache``: read the
    summaries remembered (the application's choice). ``progress`` is `hansard index`'s progress
    line (``hansard.ingest.pipeline.Progress``), fed the files' sizes as they are answered.
    ``max_files`` keeps the ``files`` rows of the largest files only (``files_shown`` then says
    how many of how many): every other count still covers them all. ``depth`` bounds the
    ``tree`` to that many levels below each path (default: all). ``ask``: how the files' answers
    are asked (the application's workers; default one at a time, ``many.one_by_one``)."""
    from hansard.answers.why import many
    from hansard.git.history import ancestry, read_commits, tree_files
    from hansard.git.objects import CatFile
    from hansard.link.repos import known_repo
    from hansard.store import kept
    from hansard.values.timebounds import parse_ts, since_text, until_text

    by = tuple(dict.fromkeys(by))
    bad = [b for b in by if b not in BY]
    if bad:
        raise InvalidArgument(f"--by {bad[0]}: choose among {', '.join(BY)}")
    lo_text, hi_text = since_text(since), until_text(until, "until")
    lo, hi = parse_ts(lo_text), parse_ts(hi_text)
    if rev is not None and (not rev.strip() or rev.startswith("-")):
        raise InvalidArgument(f"--rev {rev!r} is not a revision")
    if depth is not None and not 0 <= depth <= MAX_DEPTH:
        raise InvalidArgument(f"--depth {depth}: give 0 to {MAX_DEPTH}")
    top, main_top, sha, rels = _resolve(cwd, paths, rev)
    t0 = time.monotonic()
    repo_id = known_repo(store, main_top)
    rev_time = read_commits(top, [sha])[sha].author_time
    files = tree_files(top, sha, rels)
    if rels and not files:
        raise InvalidArgument(f"nothing tracked under {', '.join(rels)} at {sha[:12]}")
    stats = store.stats if cache else None
    generation = store.why_cache.generation() if stats is not None else None
    context = run_context(store, top, main_top) if generation is not None else ""
    keys = {rel: cache_key(context, rel, blob) for _m, blob, _s, rel in files}
    remembered = stats.get_many(list(keys.values()), generation) if stats is not None and generation is not None \
        else {}
    history: set[str] | None = None
    summaries: dict[str, dict[str, Any]] = {}
    skipped: dict[str, str] = {}
    fresh: list[tuple[str, str, str, bytes]] = []
    hits = indexing = answered = 0
    errors: dict[str, str] = {}
    cat = None
    todo: list[tuple[str, str, int]] = []  # (path, blob, size) to answer
    try:
        for mode, blob, size, rel in files:
            if mode == "160000":
                skipped[rel] = "submodule"
                continue
            if mode == "120000":
                skipped[rel] = "symlink"
                continue
            if size > MAX_FILE_BYTES:
                skipped[rel] = "too_large"
                continue
            raw = remembered.get(keys[rel])
            if raw is not None:
                summary = json.loads(raw)
                if summary.get("commits"):
                    if history is None:
                        history = ancestry(top, sha)
                    if not set(summary["commits"]) <= history:
                        raw = None  # its commits were rewritten: answer it again
                if raw is not None:
                    hits += 1
                    if summary.get("binary"):
                        skipped[rel] = "binary"
                    else:
                        summaries[rel] = summary
                    continue
            if cat is None:
                cat = CatFile(top)
            if _is_binary(cat, blob):
                skipped[rel] = "binary"
                fresh.append((keys[rel], rel, blob, b'{"binary":true}'))
                continue
            todo.append((rel, blob, size))
    finally:
        if cat is not None:
            cat.close()
    if progress is not None:
        progress.start(sum(max(size, 0) for _rel, _blob, size in todo), len(todo))
    try:
        # not through the why-result cache: a whole repository's answers would push out the
        # ones an editor asks for again (it keeps 200); the summaries are kept instead
        results = (ask or many.one_by_one)(store, top, [(sha, rel) for rel, _blob, _size in todo], _summary, False)
        for (rel, blob, size), got in zip(todo, results, strict=True):
            answered += 1
            if progress is not None:
                progress.file(rel)
                progress.advance(max(size, 0))
            if isinstance(got, many.Failed):
                skipped[rel] = "error"
                errors[rel] = got.code
                continue
            summary, still_indexing = got
            summaries[rel] = summary
            if still_indexing:
                indexing += 1  # an index run is still building: never remembered
            else:
                fresh.append((keys[rel], rel, blob, json.dumps(summary, separators=(",", ":")).encode()))
    finally:
        if progress is not None:
            progress.done()
    if stats is not None and generation is not None:
        kept.offer_summaries(fresh, generation)
    out = _aggregate(summaries, by, lo, hi, rev_time)
    funnel_counts: dict[str, Any] = store.stats.funnel(repo_id, since=lo_text, until=hi_text, paths=rels) if repo_id >= 0 \
        else {"sessions": 0, "tied_commits": [], "lines_added": 0, "lines_added_at": []}
    added_by_age = {name: 0 for _l, name in AGE_BUCKETS}
    added_by_age["undated"] = 0
    for ts, n in funnel_counts["lines_added_at"]:
        when = parse_ts(ts)
        if when is None:
            added_by_age["undated"] += n
        elif when <= rev_time:  # an edit made after the revision's commit is not in its past
            added_by_age[_age_bucket((rev_time - when) / DAY)] += n
    out["durability"] = _durability(out["alive_by_age"], added_by_age)
    landed = out.pop("_landed")
    commits = set(funnel_counts["tied_commits"]) | landed
    out["funnel"] = {"sessions": funnel_counts["sessions"], "commits": len(commits),
                     "lines_added": funnel_counts["lines_added"], "lines_alive": out["alive_agent_lines"]}
    skipped_counts = Counter(skipped.values())
    result: dict[str, Any] = {
        "repo": top,
        "rev": sha,
        "paths": rels,
        "since": lo_text,
        "until": hi_text,
        **out,
        "skipped": {"files": len(skipped), "reasons": dict(sorted(skipped_counts.items())),
                    "paths": sorted(skipped)[:50]},
        "cache": {"files": len(files), "remembered": hits, "answered": answered,
                  "new": len(fresh) if stats is not None and generation is not None else 0},
        "seconds": round(time.monotonic() - t0, 3),
    }
    result["file_count"] = len(result["files"])
    result["tree"] = [tree(result["folders"], result["files"], root, depth) for root in (rels or [""])
                      if root in result["folders"] or root in result["files"]]
    if max_files is not None and len(result["files"]) > max_files:
        biggest = sorted(result["files"].items(), key=lambda x: (-x[1]["lines"], x[0]))[:max_files]
        result["files_shown"] = {"shown": max_files, "of": len(result["files"])}
        result["files"] = dict(sorted(biggest))
    if errors:
        result["errors"] = dict(sorted(errors.items())[:50])
    if indexing:
        result["indexing"] = True
    if repo_id < 0 or any(x.get("no_sessions") for x in summaries.values()):
        from hansard.answers.notices import no_sessions

        result["notice"] = no_sessions(store)
    return cast("RepoStats", result)


def _summary(store: Store, doc: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """A file's summary, and whether its answer was given while an index run was building."""
    return summarise(store, doc), bool(doc.get("indexing"))


def tree(folders: dict[str, dict[str, int]], files: dict[str, dict[str, int]], root: str,
         depth: int | None = None) -> dict[str, Any]:
    """The counts under ``root`` (a folder, "" for the repository, or a file) as a tree: each
    node is ``{"name", "path", "type": "dir"|"file", <kind>: n, "lines"}``, a folder's with
    ``entries`` (its folders and files) and, down to ``depth`` levels below ``root`` (all
    without it), ``children``: folders, then files, each by name."""
    under: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    prefix = root + "/" if root else ""
    for d in folders:
        if d and (not root or d.startswith(prefix)):
            under[d.rsplit("/", 1)[0] if "/" in d else ""].append((d, True))
    for f in files:
        if not root or f.startswith(prefix):
            under[f.rsplit("/", 1)[0] if "/" in f else ""].append((f, False))

    def node(path: str, is_dir: bool, level: int) -> dict[str, Any]:
        out: dict[str, Any] = {"name": path.rsplit("/", 1)[-1] if path else ".", "path": path,
                               "type": "dir" if is_dir else "file", **(folders if is_dir else files)[path]}
        if is_dir:
            kids = sorted(under.get(path, ()), key=lambda x: (not x[1], x[0]))
            out["entries"] = len(kids)
            if depth is None or level < depth:
                out["children"] = [node(p, d, level + 1) for p, d in kids]
        return out

    return node(root, root in folders, 0)


def _durability(alive: dict[str, int], added: dict[str, int]) -> dict[str, Any]:
    """Agent lines alive at the revision whose commit is at least 7, 30 and 90 days older than
    it, beside the lines agents' applied edits added at least that long before it, and the one
    over the other. Not a survival rate: an edit's line that a later edit rewrote before any
    commit counts as added twice, and a commit's age is not its edit's; it is the share of what
    agents typed then that is in the code now."""
    names = [name for _l, name in AGE_BUCKETS]
    out: dict[str, Any] = {}
    for i, days in enumerate((7, 30, 90), start=1):
        a = sum(alive[n] for n in names[i:])
        d = sum(added[n] for n in names[i:])
        out[f"{days}d"] = {"alive": a, "added": d, "alive_per_added_line": round(a / d, 4) if d else None}
    out["lines_added_by_age"] = added
    return out


def _age_bucket(age_days: float) -> str:
    for limit, name in AGE_BUCKETS:
        if limit is None or age_days < limit:
            return name
    return AGE_BUCKETS[-1][1]


def _empty_kinds() -> dict[str, int]:
    return dict.fromkeys(KINDS, 0)


def _aggregate(summaries: dict[str, dict[str, Any]], by: Sequence[str], lo: float | None, hi: float | None,
               rev_time: int) -> dict[str, Any]:
    bounded = lo is not None or hi is not None
    kinds = _empty_kinds()
    per_file: dict[str, dict[str, int]] = {}
    folders: dict[str, dict[str, int]] = defaultdict(_empty_kinds)
    groups: dict[str, dict[str, dict[str, int]]] = {
        b: defaultdict(_empty_kinds) for b in by if b in ("agent", "model", "session", "member", "source")}
    months: dict[str, dict[str, int]] = defaultdict(lambda: {"agents": 0, "people": 0, "unknown": 0})
    ages = {name: 0 for _l, name in AGE_BUCKETS}
    landed: set[str] = set()
    titles: dict[str, dict[str, Any]] = {}
    lines_total = 0
    for rel, s in sorted(summaries.items()):
        lines_total += s["lines"]
        fk = _empty_kinds()
        models = {(sid, idx): m for sid, idx, m in s.get("models", [])}
        for kind, sid, idx, commit, n in s["rows"]:
            t = s["commits"].get(commit) if commit else None
            if bounded and (t is None or (lo is not None and t < lo) or (hi is not None and t >= hi)):
                continue
            fk[kind] = fk.get(kind, 0) + n
            sess = s["sessions"].get(sid) if sid else None
            if t is not None:
                month = time.strftime("%Y-%m", time.gmtime(t))
                col = "agents" if kind in AGENT_KINDS else "people" if kind in PEOPLE_KINDS else "unknown" \
                    if kind == "unknown" else None
                if col:
                    months[month][col] += n
            if kind in AGENT_KINDS:
                if commit:
                    landed.add(commit)
                if t is not None:
                    ages[_age_bucket((rev_time - t) / DAY)] += n
            for b, g in groups.items():
                if b == "agent":
                    name = (sess or {}).get("provider") if sid else None
                elif b == "model":
                    name = models.get((sid, idx)) if sid else None
                    name = name or ("(not recorded)" if sid else None)
                elif b == "member":
                    name = ((sess or {}).get("member") or "(me)") if sid else None
                elif b == "source":
                    name = ((sess or {}).get("source") or "local") if sid else None
                else:  # session
                    name = sid
                    if sid and sid not in titles:
                        titles[sid] = {"provider": (sess or {}).get("provider"), "title": (sess or {}).get("title"),
                                       "member": (sess or {}).get("member")}
                g[name or "(no session)"][kind] += n
        per_file[rel] = fk
        parts = rel.split("/")
        for depth in range(len(parts)):
            d = "/".join(parts[:depth])
            for k, n in fk.items():
                folders[d][k] += n
        for k, n in fk.items():
            kinds[k] += n
    counted = sum(kinds.values())

    def with_total(d: dict[str, int]) -> dict[str, int]:
        return {**d, "lines": sum(d.values())}

    out: dict[str, Any] = {
        "lines": lines_total,
        "counted_lines": counted,
        "kinds": kinds,
        "agent_share": round((kinds["agent"] + kinds["agent_modified"]) / counted, 4) if counted else 0.0,
        "alive_agent_lines": kinds["agent"] + kinds["agent_modified"],
        "alive_by_age": ages,
        "files": {rel: with_total(fk) for rel, fk in per_file.items()},
        "_landed": landed,
    }
    out["folders"] = {d: with_total(fk) for d, fk in sorted(folders.items())}
    by_out: dict[str, Any] = {}
    for b, g in groups.items():
        rows = {name: with_total(fk) for name, fk in sorted(g.items(), key=lambda x: -sum(x[1].values()))}
        if b == "session":
            for sid, row in rows.items():
                if sid in titles:
                    row.update({k: v for k, v in titles[sid].items() if v})
        by_out[b] = rows
    if by_out:
        out["by"] = by_out
    out["months"] = dict(sorted(months.items()))
    return out
