"""The ``pasted`` rule of `why`: code a person copied from a web chat.

A web chat edits no file, but a person pastes its code. Always true of what this module
answers: only a line `why` found no agent evidence for (kind ``human``) can become ``pasted``,
never ``agent`` and never from any other kind; it must sit in a run of at least
``MIN_RUN`` consecutive non-trivial ``human`` lines that equal, whitespace aside and
in order, consecutive non-trivial lines of one fenced code block of an assistant message of an
imported chat (``hansard import``), sent no later than that commit. Trivial lines inside such a
run belong to it; a lone line, however common, never matches. The line then names the chat
(session), the message and the block (0-based among the message's fenced blocks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hansard.git.blame import Blame
    from hansard.store.interfaces import Store

CONFIDENCE = 0.6
BLOCKED = "\0not-pasted\0"  # stands for a line that may not be pasted: breaks a run, never matches


def mark_pasted(store: Store, bl: Blame, answers: list[Any]) -> list[Any]:
    """``answers`` (why's LineAnswers, one per blamed line of the whole file, in order) with the
    pasted lines rewritten; the same list when no web chat could have supplied any line."""
    from hansard import agents

    names = agents.web_names()
    if not any(a.kind == "human" for a in answers) or not store.web_chats.any(names):
        return answers
    return _mark(store, names, bl, answers)


def _mark(store: Store, names: tuple[str, ...], bl: Blame, answers: list[Any]) -> list[Any]:
    from hansard.agents.webchat.exports import MIN_RUN, code_blocks, match_pasted, normalise, trivial
    from hansard.answers.evidence import CLOCK_SLACK_S, parse_ts

    wanted = {normalise(a.content) for a in answers if a.kind == "human" and not trivial(a.content)}
    best: dict[int, tuple[int, float, dict[str, Any], int]] = {}  # line -> (run length, time, message, block)
    for msg in store.web_chats.code_messages(names):
        sent = parse_ts(msg["timestamp"])
        if sent is None:
            continue  # a message with no time can never be placed before a commit
        for bi, block in enumerate(code_blocks(msg["text"])):
            if sum(1 for ln in block if not trivial(ln) and normalise(ln) in wanted) < MIN_RUN:
                continue  # cannot make a run: skip the full match
            # Lines that may not be pasted break runs: not human, or committed before the message.
            lines = []
            for a, b in zip(answers, bl.lines, strict=True):
                c = bl.commits.get(b.sha)
                ok = a.kind == "human" and c is not None and sent <= c.committer_time + CLOCK_SLACK_S
                lines.append(a.content if ok or trivial(a.content) else BLOCKED)
            for run in _runs(match_pasted(lines, block)):
                for i in run:
                    if answers[i].kind == "human" and (len(run), sent) > best.get(i, (0, 0.0, {}, 0))[:2]:
                        best[i] = (len(run), sent, msg, bi)
    if not best:
        return answers
    out = list(answers)
    for i, (_, _, msg, bi) in best.items():
        out[i] = answers[i].replace(kind="pasted", session_id=msg["session_id"], provider=msg["provider"],
                                     message_index=msg["message_index"], rule="pasted", confidence=CONFIDENCE,
                                     block=bi)
    return out


def _runs(hit: set[int]) -> list[list[int]]:
    """Consecutive indexes of ``hit`` as runs."""
    out: list[list[int]] = []
    for i in sorted(hit):
        if out and out[-1][-1] + 1 == i:
            out[-1].append(i)
        else:
            out.append([i])
    return out
