"""Shell commands in transcripts: their text, whatever the provider's argument shape, and
whether a command could have written a given file.

Edits made through the shell (``sed -i``, ``cat >``, formatters) leave no structured patch, so
`why` answers ``unknown`` rather than ``human`` for a file a session's shell may have written.
Reading a file (``cat``, ``sed -n``, ``rg``) is not writing it: commands made only of known
read-only programs, without redirections into the file, never count.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from hansard import agents

# Every agent's command-running tools, as each records them (hansard.agents).
SHELL_TOOLS = agents.tools("shell")

READ_ONLY = frozenset({
    "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "wc", "nl", "file",
    "stat", "diff", "cmp", "jq", "yq", "bat", "echo", "printf", "pwd", "cd", "tree", "du", "sort", "uniq", "cut", "tr",
    "which", "type", "true", "false", "test", "[", "realpath", "dirname", "basename", "xxd", "od", "hexdump", "column",
})
READ_ONLY_GIT = frozenset({"show", "log", "diff", "status", "blame", "grep", "ls-files", "rev-parse", "branch", "remote"})
_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
# A segment without quotes or backslashes is split by shlex at its whitespace alone: the words
# are its runs of anything else (shlex's whitespace, not str.split's wider one).
_SHLEX_SPECIAL = re.compile(r"['\"\\]")
_WORD = re.compile(r"[^ \t\r\n]+")


def shell_command(inp: dict[str, Any]) -> str | None:
    """The command line of a shell-like tool call: a ``command`` string, a ``cmd`` string or a
    ``command`` argv list (Codex ``local_shell`` keeps its argv in ``command`` too)."""
    for key in ("command", "cmd"):
        v = inp.get(key)
        if isinstance(v, str):
            return v
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            # ["bash", "-lc", "pytest -q"] runs its last argument.
            if len(v) >= 3 and v[1] in ("-c", "-lc", "-ic"):
                return v[2]
            return " ".join(v)
    return None


def writing_command(raw_input: str | None) -> tuple[str, bool] | None:
    """(command, parsed) of a shell call's input JSON that could have written some file, else
    None: its command line when it has one and some segment of it may write; the raw input,
    not parsed, when it has no command line (any mention of a file then counts, as for
    ``first_shell_write``). ``may_write(cmd, name)`` is True only of a command this keeps: a
    segment that may write a file called ``name`` may write some file."""
    import json

    try:
        inp = json.loads(raw_input or "{}")
    except ValueError:
        inp = None
    cmd = shell_command(inp) if isinstance(inp, dict) else None
    if cmd is None:
        return (raw_input or "", False)
    return (cmd, True) if may_write(cmd, "") else None


def writing_call(ts: str | None, raw_input: str | None) -> tuple[float, str, bool] | None:
    """(time, command, parsed) of a timed shell call that could have written some file
    (``writing_command``); None for an untimed call or one that writes nothing."""
    from hansard.values.timebounds import parse_ts

    t = parse_ts(ts)
    w = writing_command(raw_input) if t is not None else None
    return (t, *w) if t is not None and w is not None else None


def may_write(command: str, name: str) -> bool:
    """Could this command have written a file called ``name``? Conservative: anything that
    names the file and is not plainly a read is a possible write."""
    if name not in command:
        return False
    for segment in _SEPARATORS.split(command):
        if name not in segment:
            continue
        if ">" in segment.replace("2>&1", "").replace(">&2", "") or "tee " in segment:
            return True
        if _SHLEX_SPECIAL.search(segment) is None:
            words = _WORD.findall(segment)
        else:
            try:
                words = shlex.split(segment, posix=True)
            except ValueError:
                return True
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]  # FOO=bar cmd ...
        if not words:
            continue
        prog = words[0].rsplit("/", 1)[-1]
        if prog == "sed" and not any(w.startswith(("-i", "--in-place")) for w in words[1:]):
            continue
        if prog == "find" and not any(w in ("-delete", "-exec", "-execdir", "-fprint") for w in words[1:]):
            continue
        if prog == "git" and len(words) > 1 and words[1] in READ_ONLY_GIT:
            continue
        if prog in READ_ONLY:
            continue
        return True
    return False
