"""Every error hansard reports on purpose. Each has a stable ``code`` (used in JSON and MCP
results), a message for people, ``retryable`` (would the same call succeed later?) and the
process ``exit_code`` the CLI uses. Anything else escaping is a bug."""

from __future__ import annotations


class HansardError(Exception):
    code = "internal"
    exit_code = 1
    retryable = False

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code, "message": self.message, "retryable": self.retryable}
        if self.details:
            out["details"] = self.details
        return out


class InvalidArgument(HansardError):
    code = "invalid_argument"
    exit_code = 2


class BadLineRange(InvalidArgument):
    code = "bad_line_range"
    exit_code = 3


class LineOutOfRange(InvalidArgument):
    code = "line_out_of_range"
    exit_code = 4


class NotARepository(HansardError):
    code = "not_a_repository"
    exit_code = 5


class PathOutsideRepository(InvalidArgument):
    code = "path_outside_repository"
    exit_code = 6


class NotAFile(InvalidArgument):
    code = "not_a_file"
    exit_code = 7


class NotTracked(HansardError):
    code = "not_tracked"
    exit_code = 8


class BinaryFile(HansardError):
    code = "binary_file"
    exit_code = 9


class NotFound(HansardError):
    code = "not_found"
    exit_code = 10


class UntilNotAllowed(InvalidArgument):
    code = "until_not_allowed"
    exit_code = 11


class ScopeNotGranted(HansardError):
    code = "scope_not_granted"
    exit_code = 12


class StoreBusy(HansardError):
    code = "store_busy"
    exit_code = 13
    retryable = True


class StoreReadOnly(HansardError):
    code = "store_read_only"
    exit_code = 14


class StoreTooNew(HansardError):
    code = "store_too_new"
    exit_code = 15


class StoreCorrupt(HansardError):
    code = "store_corrupt"
    exit_code = 16


class DiskFull(HansardError):
    code = "disk_full"
    exit_code = 17
    retryable = True


class GitError(HansardError):
    code = "git_error"
    exit_code = 18


class ToolTimeout(HansardError):
    code = "tool_timeout"
    exit_code = 19


class NaiveDateTime(InvalidArgument):
    """A date-time without a UTC offset: its zone would have to be guessed."""

    code = "naive_datetime"
    exit_code = 20


class InvalidDate(InvalidArgument):
    code = "invalid_date"
    exit_code = 21


class InvalidCursor(InvalidArgument):
    """A `next` cursor that this store did not hand out, or for another session."""

    code = "invalid_cursor"
    exit_code = 22


class StoreHomeUnusable(HansardError):
    """The store's folder (HANSARD_HOME, default $XDG_DATA_HOME/hansard) is a file, or lies under
    one, or cannot be created: no command that needs the store can run until it is moved."""

    code = "store_home_unusable"
    exit_code = 23


class MalformedTarget(InvalidArgument):
    """A ``PATH:LINE`` or ``PATH:START-END`` whose part after the colon is not a line or a range."""

    code = "malformed_target"
    exit_code = 24


class UnknownRevision(HansardError):
    """A ``--rev`` that names no commit of the repository."""

    code = "unknown_revision"
    exit_code = 25


class SessionNotBound(InvalidArgument):
    """A tool that acts for the calling session was called by a server that does not know it."""

    code = "session_not_bound"
    exit_code = 26


class NotInstalled(HansardError):
    """An optional part of hansard (an extra such as ``semantic``) that this installation lacks;
    the message says how to add it to this installation."""

    code = "not_installed"
    exit_code = 27


class ModelFileMismatch(NotInstalled):
    """A model file of the semantic extra (weights, tokenizer) whose sha256 is not the pinned one:
    the model is not loaded (fail closed); reinstalling the extra from its hash-pinned lock
    restores it."""

    code = "model_file_mismatch"


class InternalError(HansardError):
    """A bug: an exception hansard did not expect. The CLI prints one line and keeps the
    traceback in a log file."""

    code = "internal"
    exit_code = 1


class TeamUnreachable(HansardError):
    """The team's PostgreSQL server did not answer in time (down, slow, refused): nothing was
    changed, locally or on the server, and the same command may succeed later."""

    code = "team_unreachable"
    exit_code = 30
    retryable = True


class TeamNotConfigured(HansardError):
    code = "team_not_configured"
    exit_code = 31


class RepoNotOptedIn(HansardError):
    """A team command named a repository that this member has not added with `hansard team add-repo`."""

    code = "repo_not_opted_in"
    exit_code = 32


class TeamForbidden(HansardError):
    """The team's PostgreSQL server refused a statement of this member's role: a row of another
    member (forged, changed or deleted), an email that is not the role's, a role that is not a
    member, or a table it may not touch. Nothing was changed."""

    code = "team_forbidden"
    exit_code = 33


class InputTooLarge(InvalidArgument):
    """An input past one of hansard's bounds (an editor buffer, a web-chat export): refused
    before it is read whole, so no input can take the memory of the machine. ``details``
    name the bound and its limit."""

    code = "input_too_large"
    exit_code = 23


class ExportEntryTooLarge(InputTooLarge):
    """One conversation of a web-chat export is larger than ``MAX_CONVERSATION_BYTES`` (hansard.agents.webchat.exports)."""

    code = "export_entry_too_large"


class ExportTooLarge(InputTooLarge):
    """A web-chat export's ``conversations.json`` is larger than ``MAX_EXPORT_BYTES`` (hansard.agents.webchat.exports)."""

    code = "export_too_large"


class ExportTooDeep(InputTooLarge):
    """A web-chat export nests arrays and objects deeper than ``MAX_DEPTH``."""

    code = "export_too_deep"


class ExportTooManyMessages(InputTooLarge):
    """A web-chat export holds more conversations or messages than ``MAX_MESSAGES``."""

    code = "export_too_many_messages"


class TraceTooLarge(InputTooLarge):
    """An Agent Trace file is larger than ``MAX_FILE_BYTES`` (hansard.trace.read)."""

    code = "trace_too_large"


class TraceTooDeep(InputTooLarge):
    """An Agent Trace file nests arrays and objects deeper than ``MAX_DEPTH`` (hansard.trace.read)."""

    code = "trace_too_deep"


class TraceTooManyRecords(InputTooLarge):
    """`hansard trace import` was given more records (or files) than ``MAX_RECORDS``, or one
    record with more ranges than ``MAX_RANGES`` (hansard.trace.read)."""

    code = "trace_too_many_records"
