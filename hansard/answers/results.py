"""What each answer returns, as types: the JSON every adapter serves (the CLI's ``--json``, the
MCP tools' structured results, which the MCP SDK checks against these types, the web page's and
the editor's data).

Always true: no type here holds ``Any``; a field that is not always there is ``NotRequired``;
``JSON`` is the one open type, for what a record keeps as it came (an agent's extra session
metadata, an archived raw record). The answers import this module only to type-check (under
``TYPE_CHECKING``): a TypedDict costs its import on `why`'s path (its annotations compile into
forward references), so nothing on that path loads it. Their annotations are evaluated when the
module loads (no ``from __future__ import annotations``), so a ``NotRequired`` key is known not
to be required; the types come from ``typing_extensions``, the one place pydantic (the MCP SDK's
schemas) reads a nested or ``NotRequired`` TypedDict from on Python before 3.12.
"""

from typing import Literal, NotRequired

from typing_extensions import TypeAliasType, TypedDict

JSON = TypeAliasType("JSON", "str | int | float | bool | None | list[JSON] | dict[str, JSON]")

Kind = Literal["agent", "agent_modified", "pasted", "human", "unknown", "uncommitted"]


# -- shared pieces ----------------------------------------------------------------------------------


class Origin(TypedDict):
    """Where a session was read (``hansard.agents.origin.source_of``)."""

    kind: str
    repository: NotRequired[str | None]
    ref: NotRequired[str | None]
    work_tree: NotRequired[str | None]
    path: NotRequired[str | None]
    claimed_id: NotRequired[str]


class Teammate(TypedDict):
    """Whose session (or project memory) it is, when a teammate's (``hansard team``): the email
    the database owner registered and the name they gave themselves."""

    member: NotRequired[str | None]
    member_name: NotRequired[str | None]


class Source(Origin, Teammate):
    """``Origin``, or a teammate's session (``kind`` member) with the origin it had on their
    machine."""

    origin: NotRequired[Origin]


class Searched(TypedDict):
    agent: str
    homes: list[str]
    found: bool
    sessions: int


class NoSessions(TypedDict):
    """The notice of an answer about a repository with no archived session."""

    code: Literal["no_sessions"]
    message: str
    searched: list[Searched]
    env: list[str]


class AgentStatus(TypedDict):
    name: str
    display: str
    homes: list[str]
    found: bool
    sessions: int
    messages: int
    edits: int


class SourceCount(TypedDict):
    provider: str
    files: int
    missing: int


class Counts(TypedDict):
    sessions: int
    messages: int
    tool_calls: int
    edits: int
    applied_edits: int
    raw_records: int
    redactions: int
    repos: int


class Run(TypedDict):
    id: int
    started_at: str | None
    finished_at: str | None
    files: int
    records: int
    bytes: int
    skipped: int
    sessions: int
    messages: int
    edits: int
    kind: str
    redactions: int
    skip_reasons: dict[str, int]


class Status(TypedDict):
    """`hansard status --json`: what the store holds, each agent, and where the store is."""

    sources: list[SourceCount]
    counts: Counts
    skipped: dict[str, int]
    indexed_from: str | None
    indexed_through: str | None
    last_run: Run | None
    agents: list[AgentStatus]
    store: str


class IndexState(TypedDict):
    indexed_from: str | None
    indexed_through: str | None
    backfill_complete: bool
    index_built_at: str | None
    indexing_paused: bool


# -- why --------------------------------------------------------------------------------------------


class Recorded(TypedDict):
    """What another tool recorded about a line: git-ai's note of it (``by`` git-ai), and the
    common part of the others'."""

    by: str
    kind: str
    commit: NotRequired[str | None]
    agent: NotRequired[str | None]
    session_id: NotRequired[str | None]
    model: NotRequired[str | None]


class FileShare(Recorded):
    """qwen-code's note: how much of the file's change was the agent's (no lines)."""

    ai_percent: float | None
    ai_chars: int | None
    human_chars: int | None
    generator: NotRequired[str | None]


class CommitTrailers(Recorded):
    """The commit's agent trailers: they speak of the whole commit."""

    agents: NotRequired[list[str]]
    co_authored_by: NotRequired[list[str]]
    session_url: NotRequired[str | None]


class TraceRange(Recorded):
    """An imported Agent Trace record's range holding the line."""

    url: NotRequired[str | None]
    tool: NotRequired[str | None]
    record: NotRequired[str | None]


class Author(TypedDict):
    """Who wrote a line, as `why` names it: its kind, and the session, message, tool call and
    commit of the edit that wrote it (None where there is none)."""

    kind: Kind
    session_id: str | None
    provider: str | None
    message_index: int | None
    tool_call_id: str | None
    commit: str | None


class WhyLine(Author):
    line: int
    content: str
    rule: str
    confidence: float
    similarity: NotRequired[float]
    later_sessions: NotRequired[list[str]]
    tool: NotRequired[str]
    block: NotRequired[int]
    alternatives: NotRequired[list[str]]
    original_commit: NotRequired[str]
    restoring_commit: NotRequired[str | None]
    recorded: NotRequired[Recorded | FileShare | CommitTrailers | TraceRange]
    disagrees_with: NotRequired[list[str]]
    edit_path: NotRequired[str]
    session: NotRequired[str]


class Asked(TypedDict):
    request: int | None
    turn: int | None
    fallback: NotRequired[str]


class WhySession(Teammate):
    title: str | None
    started_at: str | None
    provider: str | None
    parent_session_id: str | None
    prompt: str | None
    prompts: dict[str, str]
    first_request: NotRequired[int | None]
    asked: NotRequired[dict[str, Asked]]
    source: NotRequired[Source]
    resumed_from: NotRequired[str]
    resumed_in: NotRequired[list[str]]


class WhyCommit(TypedDict):
    summary: str
    author: str
    author_time: int
    author_tz: str
    committer_time: int


class WhyAnswer(TypedDict):
    """`hansard why --json`: the contract docs/architecture.md describes field by field."""

    path: str
    rev: str | None
    lines: list[WhyLine]
    sessions: dict[str, WhySession]
    commits: dict[str, WhyCommit]
    notice: NotRequired[NoSessions]
    indexing: NotRequired[bool]


# -- code_history (`hansard log`) -----------------------------------------------------------------------


class Target(TypedDict):
    path: str
    line: NotRequired[int | None]
    symbol: NotRequired[str | None]
    repo: NotRequired[str]
    until: NotRequired[str | None]
    formerly: NotRequired[list[str]]


class EditEntry(TypedDict):
    message_index: int | None
    tool_call_id: str | None
    tool: str | None
    path: str
    timestamp: str | None
    commits: list[str]


class LandedCommit(TypedDict):
    sha: str
    summary: str
    committed_at: str


class Undone(TypedDict):
    session_id: str | None
    message_index: NotRequired[int | None]
    tool_call_id: NotRequired[str | None]
    by_message_index: NotRequired[int | None]
    commit: NotRequired[str]
    session: NotRequired[str]


class FixedTest(TypedDict):
    test: str
    runner: str
    failed_at: int | None
    fixed_at: int | None
    evidence: str


class EntryTests(TypedDict):
    failed_then_fixed: list[FixedTest]
    still_failing: list[str]


class SessionEntry(Teammate):
    """A session that edited the file (one of another repository names none of it: ``session``
    says so)."""

    kind: Literal["session"]
    session_id: str | None
    provider: str | None
    title: str | None
    started_at: str | None
    last_at: str | None
    parent_session_id: str | None
    live: bool
    edits: list[EditEntry]
    commits: list[LandedCommit]
    last_edit_at: str
    session: NotRequired[str]
    source: NotRequired[Source]
    undoes: NotRequired[list[Undone]]
    lines: NotRequired[int]
    reverted_by: NotRequired[list[str]]
    tests: NotRequired[EntryTests]


class RevertEntry(TypedDict):
    """A commit that undid a session's work (``git revert``, or most of what it added removed)."""

    kind: Literal["revert"]
    commit: str
    summary: str
    committed_at: str
    author: str
    git_revert: bool
    undoes: list[Undone]


class LineEntry(Teammate):
    """For ``path:line``: the line's answer, and what the session that wrote it is."""

    kind: Literal["line"]
    line: int
    content: str
    attribution: Kind
    session_id: str | None
    message_index: int | None
    tool_call_id: str | None
    commit: str | None
    rule: str
    title: NotRequired[str | None]
    provider: NotRequired[str | None]
    prompt: NotRequired[str | None]
    source: NotRequired[Source]
    commit_summary: NotRequired[str | None]
    tool: NotRequired[str]
    session: NotRequired[str]


HistoryEntry = SessionEntry | RevertEntry | LineEntry


class Importer(TypedDict):
    path: str
    line: int


class CodeHistory(TypedDict):
    """`hansard log --json`, the MCP tool ``code_history``."""

    target: Target
    entries: list[HistoryEntry]
    imported_by: list[Importer]
    truncated: int
    tree: str
    names: NotRequired[list[str]]
    commit_count: NotRequired[int]
    why: NotRequired[WhyAnswer]
    notice: NotRequired[NoSessions]


# -- work_context (`hansard context`) -------------------------------------------------------------------


class ContextSession(TypedDict):
    session_id: str
    provider: str
    title: str | None
    started_at: str | None
    last_at: str | None
    cwd: str | None
    selected_by: str


class Conversation(Teammate):
    session_id: str
    provider: str
    relation: str
    evidence: str
    title: str | None
    started_at: str | None
    last_at: str | None
    message_count: int | None
    source: Source
    compactions: NotRequired[int]


class Seen(TypedDict):
    """When a step was first listed, and last listed or changed, and by which tool calls."""

    first_seen: str | None
    first_call_id: str | None
    last_seen: str | None
    last_call_id: str | None


class Step(Seen):
    """A step of the task (``hansard.facts.steps.Step``): ``state`` open, done or dropped."""

    text: str
    state: str
    status: str
    id: str | None
    closed_at: str | None
    closed_call_id: str | None
    source: str


class ContextTests(EntryTests):
    runs: int


class SessionCommit(TypedDict):
    sha: str
    summary: str
    how: str
    in_repository: bool
    reachable: bool
    branch: NotRequired[str | None]
    message_index: NotRequired[int]
    tool_call_id: NotRequired[str]


class WorkContext(TypedDict):
    """`hansard context --json`, the MCP tool ``work_context``."""

    session: ContextSession
    until: str | None
    entries: list[Conversation]
    steps: dict[str, list[Step]]
    tests: ContextTests
    commits: list[SessionCommit]
    truncated: int
    tree: str


# -- search ---------------------------------------------------------------------------------------


class Revisions(TypedDict):
    """A message's near-identical copies folded into it: every copy's message_index, and the
    latest."""

    revisions: NotRequired[list[int]]
    latest_revision: NotRequired[int]


class MessageHit(Revisions):
    """A message a search found (a session's further ones, in ``more_hits``, are this alone)."""

    message_index: int
    role: str
    kind: str
    excerpt: str
    score: float
    matched_by: str
    timestamp_local: str | None
    similarity: NotRequired[float]
    passage: NotRequired[list[int]]
    match_reason: NotRequired[str]


class Listed(TypedDict):
    """A further match of a session, listed by its message alone."""

    message_index: int
    role: NotRequired[str]


class Hit(MessageHit, Teammate):
    """One conversation a search found, by its best message."""

    session_id: str
    title: str | None
    provider: str
    started_at_local: str | None
    repo: NotRequired[str | None]
    cwd: NotRequired[str]
    source: NotRequired[Source]
    more_hits: NotRequired[list[MessageHit | Listed]]
    team: NotRequired[str | None]


class SearchResults(TypedDict):
    """`hansard history --json`, the MCP tool ``search_past_sessions`` (its fields:
    hansard/answers/search/sessions.py)."""

    query: str
    mode: str
    results: list[Hit]
    total: int
    total_exact: bool
    returned: int
    results_omitted: int
    truncated: bool
    indexed_from: str | None
    indexed_through: str | None
    backfill_complete: bool
    index_built_at: str | None
    indexing_paused: bool
    mode_notice: NotRequired[str]
    requested_mode: NotRequired[str]
    excluded_session_id: NotRequired[str]
    ignored_words: NotRequired[list[str]]
    notice: NotRequired[str]
    scope: NotRequired[dict[str, str | None]]


# -- transcripts (`hansard show`) -------------------------------------------------------------------


class SessionInfo(Teammate):
    session_id: str
    provider: str
    title: str | None
    cwd: str | None
    started_at: str | None
    last_at: str | None
    parent_session_id: str | None
    git_branch: str | None
    version: str | None
    resumed_from: str | None
    message_count: int | None
    started_at_local: str | None
    repo: str | None
    extra: dict[str, JSON]
    source: Source
    subagents: NotRequired[list[str]]


class Record(TypedDict):
    """Where a message's record is in its archived transcript."""

    path: str
    offset: int
    line: NotRequired[int]


class TestRun(TypedDict):
    runner: str
    passed: int | None
    failed: int | None
    errors: int | None
    skipped: int | None
    failing: list[str]
    exit_code: int | None
    ok: bool | None


Hunk = list[int | None | list[str]]  # [old start, old count, new start, new count, lines]: a position may be unknown


class CallEdit(TypedDict):
    path: str
    kind: str
    status: str
    move_to: str | None
    hunks: list[Hunk]


class ToolCall(TypedDict):
    call_id: str
    name: str
    status: str | None
    exit_code: int | None
    edits: NotRequired[list[CallEdit]]
    test_run: NotRequired[TestRun]


class Message(Revisions):
    message_index: int
    role: str
    kind: str
    text: str
    timestamp: str | None
    timestamp_local: str | None
    source: Record | None
    model: NotRequired[str]
    cwd: NotRequired[str]
    truncated: NotRequired[bool]
    content_chars: NotRequired[int]
    content_start: NotRequired[int]
    content_offset: NotRequired[int]
    tool_calls: NotRequired[list[ToolCall]]
    raw: NotRequired[JSON]


class Transcript(TypedDict):
    """`hansard show --json`, the MCP tool ``get_past_session``: one window of a session."""

    session: SessionInfo
    messages: list[Message]
    next: str | None
    returned: int
    chars: int
    max_chars: int
    roles: NotRequired[list[str]]
    group_revisions: NotRequired[bool]


# -- memories ----------------------------------------------------------------------------------------


class MemoryRecord(Teammate):
    """A memory file as answers name it (an empty field is left out)."""

    memory_id: str
    path: str
    kind: NotRequired[str]
    source: NotRequired[str]
    scope: NotRequired[str]
    title: NotRequired[str]
    repo: NotRequired[str | None]
    rel_path: NotRequired[str | None]
    updated_at: NotRequired[str | None]
    missing: NotRequired[bool | None]


class MemoryHit(MemoryRecord):
    lineStart: NotRequired[int]
    lineEnd: NotRequired[int]
    excerpt: NotRequired[str]
    score: float


class MemoryHits(TypedDict):
    """`hansard memory search --json`, the MCP tool ``search_memories``."""

    query: str
    results: list[MemoryHit]
    total: int
    returned: int
    notice: NotRequired[str]


class MemoryVersion(TypedDict):
    version: int
    sha256: str
    seen_at: str


class Memory(MemoryRecord):
    """`hansard memory show --json`, the MCP tool ``get_memory``: a window of one memory."""

    version: int
    versions: list[MemoryVersion]
    content: str
    contentLineStart: int
    contentLineEnd: int
    totalLines: int
    contentChars: int
    nextOffset: NotRequired[int]


# -- stats -------------------------------------------------------------------------------------------


class KindCounts(TypedDict):
    agent: int
    agent_modified: int
    pasted: int
    human: int
    unknown: int
    uncommitted: int


class Counted(KindCounts):
    lines: int


class Breakdown(Counted):
    """A row of a ``by`` breakdown (a session's row names it)."""

    provider: NotRequired[str]
    title: NotRequired[str]
    member: NotRequired[str]


class Node(Counted):
    """A folder or file of ``tree``."""

    name: str
    path: str
    type: Literal["dir", "file"]
    entries: NotRequired[int]
    children: NotRequired[list["Node"]]


class MonthCounts(TypedDict):
    agents: int
    people: int
    unknown: int


class Durable(TypedDict):
    alive: int
    added: int
    alive_per_added_line: float | None


Durability = TypedDict("Durability", {"7d": Durable, "30d": Durable, "90d": Durable,
                                       "lines_added_by_age": dict[str, int]})


class Funnel(TypedDict):
    sessions: int
    commits: int
    lines_added: int
    lines_alive: int


class Skipped(TypedDict):
    files: int
    reasons: dict[str, int]
    paths: list[str]


class CacheCounts(TypedDict):
    files: int
    remembered: int
    answered: int
    new: int


class Shown(TypedDict):
    shown: int
    of: int


class RepoStats(TypedDict):
    """`hansard stats --json`, the MCP tool ``repo_stats`` (what each figure measures:
    hansard/answers/stats.py)."""

    repo: str
    rev: str
    paths: list[str]
    since: str | None
    until: str | None
    lines: int
    counted_lines: int
    kinds: KindCounts
    agent_share: float
    alive_agent_lines: int
    alive_by_age: dict[str, int]
    files: dict[str, Counted]
    folders: dict[str, Counted]
    by: NotRequired[dict[str, dict[str, Breakdown]]]
    months: dict[str, MonthCounts]
    durability: Durability
    funnel: Funnel
    skipped: Skipped
    cache: CacheCounts
    seconds: float
    file_count: int
    tree: list[Node]
    files_shown: NotRequired[Shown]
    errors: NotRequired[dict[str, str]]
    indexing: NotRequired[bool]
    notice: NotRequired[NoSessions]
    scope: NotRequired[dict[str, str | None]]


# -- capture -----------------------------------------------------------------------------------------


class Receipt(TypedDict):
    """The MCP tool ``capture_subagent_messages``: the delivery kept as this session's evidence."""

    receipt_id: str
    content_sha256: str
    session_id: str
    stored_in: str
    message_index: int
    duplicate: bool


# -- review ------------------------------------------------------------------------------------------


class ReviewRange(TypedDict):
    """The change reviewed: ``spec`` as asked or found (``origin/main...HEAD``), ``how`` it was
    found, its two commits (``base`` None: from the root) and the commits between them."""

    spec: str
    how: Literal["range", "commit", "upstream", "default_branch"]
    base: str | None
    head: str
    commits: int


class ReviewRun(Author):
    """Consecutive added lines (``start``..``end`` at the head) with one author (the same in
    `why`'s answer of each), and the request behind them."""

    start: int
    end: int
    asked: str | None
    asked_index: int | None


class ReviewHunk(TypedDict):
    """One hunk of the change's diff (`git diff -U0 -M`): the lines it removed at the base and
    added at the head, and the runs of its added lines."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    runs: list[ReviewRun]


class ReviewFile(TypedDict):
    """A file the change adds lines to: its added lines exactly as `why` answers them at the
    head (cut from the file's one answer), grouped into hunks and runs. ``skipped``: why it
    has no answer (a binary file, one git cannot blame), with no lines."""

    path: str
    old_path: str | None
    status: Literal["added", "modified", "renamed", "copied"]
    added: int
    removed: int
    hunks: list[ReviewHunk]
    lines: list[WhyLine]
    skipped: NotRequired[str]


class ReviewRequest(TypedDict):
    """A request behind a session's lines in this change (``index`` None: the session's title
    stands for it)."""

    index: int | None
    text: str
    lines: int


class ReviewTestRun(TypedDict):
    """A test command a session ran (``hansard.facts.test_outcomes``); ``outcome`` from its
    counts and exit code."""

    command: str
    runner: str
    message_index: int | None
    passed: int | None
    failed: int | None
    exit_code: int | None
    outcome: Literal["passed", "failed", "unknown"]


class ReviewCommand(TypedDict):
    command: str
    message_index: int | None
    exit_code: int | None


class ReviewSession(Teammate):
    """A session that wrote lines of the change: what it was asked, the files it touched here,
    the tests and commands it ran after its last edit and their last outcome (``tested``:
    ``none`` when it ran no test after it), what it said last, and the command that opens it."""

    session_id: str
    provider: str | None
    title: str | None
    started_at: str | None
    source: Source
    requests: list[ReviewRequest]
    files: list[str]
    lines: int
    last_edit_index: int | None
    tests_after_last_edit: list[ReviewTestRun]
    tested: Literal["passed", "failed", "none", "unknown"]
    still_failing: list[str]
    commands_after_last_edit: list[ReviewCommand]
    summary: str | None
    summary_index: int | None
    redactions: int
    open: str


class ReviewLines(TypedDict):
    """Added lines at the head, as a run (``start``..``end``) of one file."""

    path: str
    start: int
    end: int
    kind: Kind
    rule: str
    session_id: str | None
    alternatives: NotRequired[list[str]]


class ReviewFlags(TypedDict):
    """For the reviewer: lines no session explains (``unknown``), agent lines changed by a
    person or later (``agent_modified``; rule ``changed_later``), sessions whose last test run
    after their last edit failed or that ran none, and the lines and sessions with redactions."""

    unexplained: list[ReviewLines]
    changed: list[ReviewLines]
    tests_failed: list[str]
    untested: list[str]
    redacted_lines: list[ReviewLines]
    redacted_sessions: list[str]


class ReviewTotals(TypedDict):
    """Lines the change added, by kind (each of ``Kind``), by agent (its provider) and by
    session; ``files`` the files it adds lines to."""

    lines: int
    files: int
    by_kind: dict[str, int]
    by_agent: dict[str, int]
    by_session: dict[str, int]


class ReviewSources(TypedDict):
    """Where the story came from: the places sessions were read (``read``), and those that
    could not be (``unread``: an agent home not on this machine, no team configured)."""

    read: list[str]
    unread: list[str]


class Review(TypedDict):
    """`hansard review --json` and the MCP tool ``review_change`` (its JSON Schema:
    docs/review.schema.json, versioned by ``schema``)."""

    schema: Literal["hansard.review/1"]
    repo: str
    range: ReviewRange
    files: list[ReviewFile]
    sessions: list[ReviewSession]
    commits: dict[str, WhyCommit]
    flags: ReviewFlags
    totals: ReviewTotals
    sources: ReviewSources
    truncated: NotRequired[dict[str, int]]
    notice: NotRequired[NoSessions]
    indexing: NotRequired[bool]
