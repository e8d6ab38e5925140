"""Sessions other tools keep inside git (hansard.agents.GIT_SOURCES), indexed from the refs of
the repositories hansard knows, or of the work tree `hansard index REPO` names.

Entire: each session found on a repository's checkpoint refs is one source, keyed
``git:<root commit>:<store>:entire/<session>`` (the store is the branch copy, such as
``refs/heads/entire/checkpoints/v1`` or ``refs/remotes/origin/entire/checkpoints/v1``, or
``refs/entire/checkpoints`` for one ref per checkpoint). Its records are the lines of the
transcript put together from all the checkpoints that kept the session
(hansard.agents.entire.checkpoints), at their byte offsets in it, and they go through the one
ingest pipeline with the agent's own parser, under the agent's provider name, with the ids kept
apart (hansard.agents.origin): what the repository carries is never merged into a session this
machine recorded, or another repository's, whatever id it claims.

Always true after a repository's refs are read, each session in one transaction (shared with
the sessions read just before or after it, each in a savepoint of its own): its records
are archived and parsed, the source row holds the offset past them, the parser state and, as
its identity, the transcript's size and a signature of the copies it was made from; and the
checkpoints that kept it name its session in ``checkpoint_sessions``. Nothing global changes:
where the session ran on another machine is worked out per session by the link step
(hansard.link.carried). A transcript over its budget (``MAX_TRANSCRIPT_BYTES``, from the sizes
git gives before any blob is read) is a counted skip. A session whose ``full.jsonl`` cannot be
read (absent, over the budget, no agent's transcript), or whose newest one cannot while its
compact copies hold more applied edits than its older ones, and that has Entire's compact
``transcript.jsonl``, is read from that instead, put back into its agent's own transcript
(hansard.agents.entire.compact), and counted (``entire_full_transcript_unreadable``): its records
are then the lines of that transcript, never the two files' together. A store of refs whose tips
did not change since the last run costs one `git for-each-ref`; a session whose copies did not
change is not read again (one whose copies name a blob the repository lacks is looked at again
each time, so that the blob is read once it arrives); a transcript that grew (a later checkpoint
holds more of it) is read from where the last reading stopped. Reading never writes to the
repository and never fetches.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hansard import agents as registry
from hansard.agents.origin import keyed, of_source, parser_for
from hansard.errors import GitError
from hansard.values.models import Item, MessageItem, RawRecord

if TYPE_CHECKING:
    from hansard.agents.base import Parser, Provider
    from hansard.agents.entire.checkpoints import Copy
    from hansard.git.objects import CatFile
    from hansard.ingest.prepare import Job, Tools
    from hansard.ingest.scanner import Scanner, _Group
    from hansard.store.types import Row

# A session's transcript, put together from its chunks and copies, is at most this long: a copy
# past it is a counted skip, from the sizes git gives before anything is read.
MAX_TRANSCRIPT_BYTES = 256 << 20


def work_tree_tops(paths: Iterable[Path]) -> list[str]:
    """The paths given to `hansard index` that are the top of a git work tree."""
    return [os.path.abspath(p) for p in paths if os.path.isdir(p) and os.path.exists(os.path.join(p, ".git"))]


def scan_repos(scanner: Scanner, tops: Iterable[str]) -> None:
    """Read every git source of each work tree; a repository git cannot read is passed over."""
    for top in dict.fromkeys(tops):
        if not top or not os.path.isdir(top):
            continue
        for source in registry.git_sources():
            try:
                source.scanner()(scanner, top)
            except GitError:
                scanner.summary.skip("git_unreadable")


def scan_entire(scanner: Scanner, top: str) -> None:
    """Index the Entire checkpoints of one work tree's repository (see the module docstring).

    Which sessions to read is worked out here first, from the refs' trees and the blobs' sizes;
    each is then put together from its blobs, parsed, redacted and packed by a reading job
    (``_read_session``, in the index's worker processes for a large run: each reads its blobs
    through a `git cat-file` of its own) while this process writes the results in order."""
    from hansard.agents.entire import SOURCE
    from hansard.agents.entire import checkpoints as cp
    from hansard.git.identity import identify
    from hansard.git.objects import CatFile, refs
    from hansard.ingest.pipeline import reading_tools
    from hansard.ingest.prepare import Inline, open_readers

    if not _may_hold_checkpoints(top):
        return  # the common case: no process at all
    stores = cp.checkpoint_refs(refs(top, SOURCE.ref_patterns))
    if not stores:
        return
    root = identify(top).root_commit
    if root is None:
        return
    facet = scanner.store.git_sources
    known = facet.tips(root)
    todo = {name: rs for name, rs in stores.items() if known.get(name) != cp.store_key(rs)}
    if not todo:
        return
    from hansard.ingest.scanner import _Group

    group = _Group(scanner)
    ctx = _Repo(scanner, top, root, group)
    planned: list[tuple[str, list[_Session], bool]] = []
    # Closed before any worker is forked: a worker must not hold this process's pipes to git.
    with CatFile(top) as cat:
        for name in sorted(todo):
            copies = cp.read_copies(cat, todo[name])
            sizes = cp.blob_sizes(cat, copies)
            sessions = [s for skey, cs in sorted(cp.by_session(copies).items())
                        if (s := ctx.plan(name, skey, cs, sizes)) is not None]
            # A store whose copies name blobs the repository lacks is read again next time,
            # though its refs stay put: a blob that arrives (a fetch) is then read.
            planned.append((name, sessions, any(n is None for n in sizes.values())))
    tools = reading_tools(scanner.store, scanner.redactor)
    jobs = [s.job for _n, ss, _l in planned for s in ss if s.job is not None]
    total = sum(s.estimate for _n, ss, _l in planned for s in ss)
    # A first index fills the empty tables as the agent homes' does: their non-unique indexes
    # built at the end, the full-text indexes merged in bulk.
    deferred = scanner.defer_indexes(total) if jobs else False
    readers = open_readers(jobs, tools, total) if jobs else None
    try:
        for name, sessions, lacks in planned:
            for s in sessions:
                if s.job is not None:
                    assert readers is not None
                    ctx.write(s, readers.results())
                elif ctx.by_sig.get(s.sig, s.key) == s.key:
                    # The same copies as a session read earlier in this run, which did not make
                    # a transcript of them: read here, as that one was.
                    alone = Inline(tools)
                    alone.submit([s.job_of()])
                    ctx.write(s, alone.results())
            group.begin()
            facet.set_tips(root, name, cp.store_key(todo[name]) + ("!" if lacks else ""))
            group.commit()
    except BaseException:
        group.abort()
        raise
    finally:
        if readers is not None:
            readers.close()
        _close_cats()
        if deferred:
            scanner.restore_indexes()


def carries_sessions(top: str) -> bool:
    """Whether a work tree may carry sessions: checkpoint refs, or an agent's history files in it
    (both looked for in git's and the tree's files, without running git)."""
    from hansard.ingest.quickcheck import repo_transcripts

    return _may_hold_checkpoints(top) or bool(repo_transcripts([top]))


def _may_hold_checkpoints(top: str) -> bool:
    """Whether the repository may have checkpoint refs, from git's files alone (a loose ref's
    folder, or a line of packed-refs): a bare `hansard index` asks this of every repository it
    knows. A layout it cannot read (reftable) says yes, and git is asked."""
    from hansard.git.refs import git_dirs

    dirs = git_dirs(top)
    if dirs is None:
        return True
    common = dirs[1]
    if os.path.isdir(os.path.join(common, "reftable")):
        return True
    if any(os.path.isdir(os.path.join(common, p)) for p in ("refs/heads/entire/checkpoints", "refs/entire/checkpoints")):
        return True
    remotes = os.path.join(common, "refs", "remotes")
    try:
        names = os.listdir(remotes)
    except OSError:
        names = []
    if any(os.path.isdir(os.path.join(remotes, r, "entire", "checkpoints")) for r in names):
        return True
    try:
        with open(os.path.join(common, "packed-refs"), "rb") as fh:
            return b"entire/checkpoints/" in fh.read()
    except OSError:
        return False


@dataclass(frozen=True)
class _Ask:
    """What a reading job needs to put one session together and read it: where its blobs are,
    its copies (with their blobs' sizes) and what the store holds of it."""

    top: str
    key: str
    skey: str
    ns: str | None
    copies: list[Copy]
    sizes: dict[str, int | None]
    stored: bool = False  # the store holds a reading of this session
    offset: int = 0
    provider: str | None = None
    head_hash: str | None = None
    state: dict[str, Any] | None = None


@dataclass
class _Session:
    """One session to read: its key, the stored row, its copies' signature and its reading
    job (None: the same copies as a session planned before it in this run; see scan_entire)."""

    key: str
    row: Row | None
    sig: int
    copies: list[Copy]
    ask: _Ask
    job: Job | None
    estimate: int

    def job_of(self) -> Job:
        from hansard.ingest.prepare import CALL, Job

        return Job(CALL, self.key, "", call=(_read_session, self.ask))


class _Repo:
    """One repository's reading: what is stored of it, and what it is checked out as here."""

    def __init__(self, scanner: Scanner, top: str, root: str, group: _Group) -> None:
        self.scanner, self.top, self.root, self.group = scanner, top, root, group
        self.store = scanner.store
        self.archive = scanner.archive
        prefix = f"git:{root}:"
        self.sources = {p: r for p, r in self.archive.sources().items() if p.startswith(prefix)}
        self.by_sig = {r["mtime_ns"]: p for p, r in self.sources.items() if r["mtime_ns"]}
        self.planned: dict[int, str] = {}  # signature -> the first session planned with it
        self.ns = of_source(f"git:{root}:-:-").ns

    def plan(self, store_name: str, skey: str, copies: list[Copy], sizes: dict[str, int | None]) -> _Session | None:
        """The session to read, or None when nothing of it changed."""
        from hansard.agents.entire import checkpoints as cp

        key = f"git:{self.root}:{store_name}:entire/{skey}"
        sig = cp.signature(copies, sizes)
        row = self.sources.get(key)
        if row is not None and row["mtime_ns"] == sig and not row["missing"]:
            return None  # the same copies as last time
        if row is None and self.by_sig.get(sig, key) != key:
            return None  # the same copies, read under another ref (a branch and its remote-tracking copy)
        mine = {sha: sizes.get(sha) for c in copies for sha in [*c.chunks, *([c.compact] if c.compact else [])]}
        ask = _Ask(self.top, key, skey, self.ns, copies, mine)
        if row is not None:
            ask = _Ask(self.top, key, skey, self.ns, copies, mine, True, int(row["offset"] or 0), row["provider"],
                       row["head_hash"], self.archive.parser_state(row["id"]))
        estimate = max((sum(mine.get(sha) or 0 for sha in c.chunks) for c in copies), default=0)
        s = _Session(key, row, sig, copies, ask, None, estimate)
        # A second session of the same copies is read only if the first makes no transcript.
        if row is None and self.planned.setdefault(sig, key) != key:
            return s
        s.job = s.job_of()
        return s

    def write(self, s: _Session, results: Iterator[tuple]) -> None:
        """One session's reading job's results, written in a savepoint of the group's
        transaction."""
        from hansard.ingest.pipeline import write_results

        key, row, sig = s.key, s.row, s.sig
        summary = self.scanner.summary
        summary.files += 1
        first = next(results)
        if first[0] == "error":
            raise (GitError if first[1] == "GitError" else RuntimeError)(first[2])
        for reason, n in first[-1]:
            summary.skip(reason, n)
        if first[0] == "skip":
            self.group.begin()
            self.archive.note_foreign(key, None if row is None else row["id"], 0, first[1], sig)
            return
        _, pkey, appended, end, head_hash, _notes = first
        provider = registry.from_key(pkey)
        assert provider is not None
        self.group.begin()
        with self.archive.savepoint():
            if row is None:
                source_id, generation = self.archive.add_source(key, pkey), 0
            elif appended:
                source_id, generation = row["id"], row["generation"]
            else:
                source_id = row["id"]
                generation = row["generation"] + 1 if row["offset"] or row["provider"] else row["generation"]
                self.store.items.clear_source(source_id)
                self.archive.restart(source_id, pkey)
            tap = _Tap(results)
            done = write_results(self.store, source_id=source_id, generation=generation, provider=provider.name,
                                 results=iter(tap), redactor=self.scanner.redactor, end=end, index_text=False)
            assert done is not None  # only a whole-file job read from disk can be mid-write
            self.archive.advance(source_id, offset=end, parser_state=done.state,
                                 redactions=done.writer.counts["redactions"], generation=generation,
                                 stat=(0, end, sig), head_hash=head_hash)
            main = tap.main or self._known_session(s.copies)
            if main is not None:
                self._tie_checkpoints([(c.checkpoint, main) for c in s.copies])
        self.by_sig[sig] = key
        summary.changed += 1
        self.group.add(done)  # counted in the summary when its transaction commits

    def _tie_checkpoints(self, pairs: list[tuple[str, str]]) -> None:
        """Keep which sessions the checkpoints kept; when that is news, the repository's kept
        commit facts are dropped, so the link step joins its `Entire-Checkpoint:` trailers again."""
        facet = self.store.git_sources
        before = facet.key(self.root)[0]
        facet.add_checkpoint_sessions(self.root, pairs)
        if facet.key(self.root)[0] != before:
            repos = facet.repos_of(self.root)
            if repos:
                self.store.commit_facts.forget(repos)

    def _known_session(self, copies: list[Copy]) -> str | None:
        """The session an earlier reading of these copies named (a growing transcript read
        from where it stopped may bring no message of its own)."""
        got = self.store.git_sources.checkpoint_sessions(self.root, [c.checkpoint for c in copies])
        return min((s for ss in got.values() for s in ss), default=None)


class _Tap:
    """A reading job's results as ``write_results`` takes them, the session the transcript is
    of (carried past the end) kept aside."""

    def __init__(self, results: Iterator[tuple]) -> None:
        self.results = results
        self.main: str | None = None

    def __iter__(self) -> Iterator[tuple]:
        for msg in self.results:
            if msg[0] == "end":
                self.main = msg[5]
                msg = msg[:5]
            yield msg


# -- the reading job (a worker process, or this one for a small run) ------------------------------

_CATS: dict[tuple[int, str], CatFile] = {}


def _cat(top: str) -> CatFile:
    """This process's `git cat-file` of ``top``, kept for its jobs (a forked worker never uses
    the one of the process it was forked from: the key holds the process id). A worker's is
    closed as the worker exits."""
    from hansard.git.objects import CatFile

    key = (os.getpid(), top)
    cat = _CATS.get(key)
    if cat is None:
        cat = _CATS[key] = CatFile(top)
        import multiprocessing

        if multiprocessing.parent_process() is not None:
            from multiprocessing import util

            util.Finalize(None, cat.close, exitpriority=10)
    return cat


def _close_cats() -> None:
    """Close this process's `git cat-file` processes."""
    for key in [k for k in _CATS if k[0] == os.getpid()]:
        _CATS.pop(key).close()


def _read_session(job: Job, tools: Tools, ask: _Ask) -> Iterator[tuple]:
    """A session's results: one ``head`` (its reader, whether it continues what the store holds,
    its size, its digest and the skips counted) then its chunks and its end (the session the
    transcript is of added); or one ``skip`` (no transcript: its size and the skips), or an
    ``error``."""
    from hansard.ingest.prepare import chunks

    notes: list[tuple[str, int]] = []
    try:
        data, provider, info = _assembled(_cat(ask.top), ask, notes)
    except GitError as exc:
        yield ("error", "GitError", str(exc))
        return
    from hansard.ingest.containers import container_of

    if info["over_budget"]:
        notes.append(("entire_transcript_over_budget", info["over_budget"]))
    if data is None or provider is None or container_of(provider) is not None:
        notes.append(("entire_transcript_missing" if data is None else "not_a_transcript", 1))
        yield ("skip", len(data or b""), notes)
        return
    pkey = registry.provider_key(provider)
    whole = provider.whole_file
    start = ask.offset
    appended = (ask.stored and not whole and ask.provider == pkey and 0 < start <= len(data)
                and ask.head_hash == _digest(data[:start]))
    parser = _Watch(parser_for(provider, ask.key, ask.state if appended else None))
    yield ("head", pkey, appended, len(data), _digest(data), notes)
    records = [RawRecord(ask.key, 0, data)] if whole else _lines(ask.key, data, start if appended else 0)
    yield from chunks(records, parser, tools, tools.pack)
    final = tools.prepare(parser.finish(), tools.redactor)
    yield ("end", None, 0, parser.state(), final, parser.main_session(keyed(ask.skey, ask.ns)))


def _assembled(cat: CatFile, ask: _Ask, notes: list[tuple[str, int]]
               ) -> tuple[bytes | None, Provider | None, dict[str, int]]:
    """The session's transcript put together from its copies, its reader, and what
    ``assemble`` counted; from the compact copies where the module docstring says."""
    from hansard.agents.entire import checkpoints as cp
    from hansard.ingest.containers import container_of

    copies = ask.copies
    data, info = cp.assemble(cat, copies, max_bytes=MAX_TRANSCRIPT_BYTES, sizes=ask.sizes)
    provider = registry.sniff(Path("full.jsonl"), data[:registry.HEAD_BYTES]) if data else None
    readable = data is not None and provider is not None and container_of(provider) is None
    if (not readable or info["newest_lost"]) and any(c.compact for c in copies):
        got = _compact(cat, ask, notes)
        # With an older full.jsonl readable, the compact copies win only when they prove more
        # edits: they lose what only the agent's full transcript shows (a Codex script's
        # patch results), and the older copies lose the later work.
        if got is not None and (not readable or _applied(got[0], got[1], ask.key) > _applied(data, provider, ask.key)):
            notes.append(("entire_full_transcript_unreadable", 1))
            data, provider, info = got
    return data, provider, info


def _compact(cat: CatFile, ask: _Ask, notes: list[tuple[str, int]]) -> tuple[bytes, Provider, dict[str, int]] | None:
    """The session read back from its compact copies into its agent's own transcript, with
    the reader of that transcript; None (its lines counted) when they make none."""
    from hansard.agents.entire import checkpoints as cp
    from hansard.agents.entire import compact

    copies = ask.copies
    lines, info = cp.assemble_compact(cat, copies, max_bytes=MAX_TRANSCRIPT_BYTES, sizes=ask.sizes)
    skipped: Counter[str] = Counter()
    decoded = compact.decode(lines, skipped)
    notes.extend(sorted(skipped.items()))
    if not decoded:
        return None
    agent = compact.agent_of(decoded, next((c.agent for c in reversed(copies) if c.agent), None))
    if agent is None:
        notes.append(("entire_compact_agent_unread", 1))
        return None
    data = compact.translate(decoded, agent, ask.skey)
    provider = registry.sniff(Path("full.jsonl"), data[:registry.HEAD_BYTES])
    if provider is None or provider.name != agent:
        return None
    return data, provider, info


def _applied(data: bytes | None, provider: Provider | None, key: str) -> int:
    """How many applied edits the transcript ``data`` holds, read by ``provider``'s parser."""
    from hansard.values.models import EditItem

    if data is None or provider is None:
        return 0
    parser = parser_for(provider, key)
    records = [RawRecord(key, 0, data)] if provider.whole_file else _lines(key, data, 0)
    items = [it for r in records for it in parser.feed(r)] + parser.finish()
    return sum(1 for it in items if isinstance(it, EditItem) and it.status == "applied")


def _lines(key: str, data: bytes, start: int) -> Iterable[RawRecord]:
    pos, n = start, len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        stop = n if nl < 0 else nl
        if stop > pos:
            yield RawRecord(key, pos, data[pos:stop])
        pos = stop + 1


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


class _Watch:
    """A parser, and the sessions its items name (by messages)."""

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.sessions: Counter[str] = Counter()

    def feed(self, record: RawRecord) -> list[Item]:
        return self._see(self.parser.feed(record))

    def finish(self) -> list[Item]:
        return self._see(self.parser.finish())

    def state(self) -> dict[str, Any]:
        return self.parser.state()

    def _see(self, items: list[Item]) -> list[Item]:
        for it in items:
            if isinstance(it, MessageItem):
                self.sessions[it.session_id] += 1
        return items

    def main_session(self, entire_key: str) -> str | None:
        """The session the transcript is of: Entire's own id for it when the parser read that
        id, else the one with most messages (a resumed session replays another's prefix)."""
        if entire_key in self.sessions:
            return entire_key
        return max(self.sessions, key=lambda s: (self.sessions[s], s)) if self.sessions else None
