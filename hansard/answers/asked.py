"""What a person asked for an edit: the user message that carried the intent, not the
acknowledgement that let the agent go ahead.

A real session often reads: a request ("can you also check how other repos credit external
contributors?"), the agent's proposal with numbered options, "I like Option C", a revised
proposal, "yes", and then the edit. The last user turn before the edit ("yes") says nothing
about why the line exists; the request does.

Always true of ``asked(prompts, message_index)``:

- ``turn`` is the newest typed user prompt at or before ``message_index`` (what the agent
  answered last), or None when there is none;
- ``request`` is the newest such prompt that is not an acknowledgement or a menu choice
  (``is_acknowledgement``); when every prompt at or before the edit is one (or there is none),
  it is the session's first request (its first prompt that is not), marked ``fallback:
  "first_request"``; when the session has no such prompt at all it is None, marked ``fallback:
  "title"`` (the reader shows the session's title);
- both are message indexes into the same session, so a reader can open either.

An acknowledgement is judged on its words only, never on its length alone: every word is one
of the affirmations, fillers and choice words below (in the languages real transcripts show),
a number or a single letter ("3", "2=", "1+2", "b)"), and there are at most
``MAX_ACK_WORDS`` of them. XML-like blocks an editor or agent adds to a prompt (an opened file,
a selection, environment context) are not the person's words and are left out first.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Any

MAX_ACK_WORDS = 8
# A prompt longer than this is never an acknowledgement (and is not read word by word); nor
# is one longer than MAX_TAGGED_CHARS with its editor's blocks.
MAX_ACK_CHARS = 160
MAX_TAGGED_CHARS = 20_000

# Affirmations, fillers, pronouns and the words of a menu choice ("let's go with option 2",
# "yes, do 1", "I like Option C", "yes please, go ahead"). Apostrophes are dropped before the
# look-up ("let's" -> "lets").
_WORDS = frozenset("""
yes yeah yea yep yup ya yah y ok okay okey k kk sure fine good great perfect nice cool awesome excellent
lgtm sgtm looks look sounds seems like love agree agreed approve approved accept accepted confirm confirmed
correct exactly right indeed absolutely definitely totally certainly of course no nope nah
continue proceed go ahead on with for do done it please pls plz thanks thank thx ty tysm
try give shot lets let us we i you me my that this these those them they one ones both all either
option options choice choices number num pick take use the a an and or then now just again
implement apply make execute run start begin carry keep going work fix
first second third fourth last latter former same above below
""".split())
# Other languages' acknowledgements, as whole messages or words.
_WORDS_OTHER = frozenset("""
oui ouais daccord vas allez continue continuer si sí claro vale dale adelante sigue bueno
ja jawohl genau klar weiter mach bitte los gut passt
sì certo vai avanti procedi
sim pode beleza isso
да давай конечно ок продолжай хорошо ага
tak dobrze ano jo
是 是的 好 好的 可以 继续 行 对 嗯 没问题
はい うん ええ お願いします 続けて いいよ
네 예 응 좋아 계속
""".split())
_TAGS = re.compile(r"<([A-Za-z][\w:-]*)(?:\s[^>]*)?>.*?</\1\s*>", re.S)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CHOICE = re.compile(r"\d{1,3}(?:st|nd|rd|th)?|[a-h]")


def is_acknowledgement(text: str | None) -> bool:
    """Whether a user prompt says only yes, go on, or which option (see the module docstring)."""
    if len(text or "") > MAX_TAGGED_CHARS:
        return False
    s = _TAGS.sub(" ", text or "").strip()
    if len(s) > MAX_ACK_CHARS:
        return False
    words = _WORD.findall(s.lower().replace("'", "").replace("’", ""))
    if len(words) > MAX_ACK_WORDS:
        return False
    return all(w in _WORDS or w in _WORDS_OTHER or _CHOICE.fullmatch(w) for w in words)


def judged(prompts: Sequence[tuple[int, str]]) -> list[tuple[int, bool]]:
    """(message index, is an acknowledgement) of a session's typed user prompts, in order:
    each prompt judged once, however many of the session's edits an answer names."""
    return [(i, is_acknowledgement(text)) for i, text in prompts]


def first_request(prompts: Sequence[tuple[int, bool]]) -> int | None:
    """The index of the session's first prompt that is not an acknowledgement."""
    return next((i for i, ack in prompts if not ack), None)


def asked(prompts: Sequence[tuple[int, bool]], message_index: int | None, first: int | None) -> dict[str, Any]:
    """``{"request", "turn"}`` (message indexes, or None) for an edit at ``message_index``, with
    ``fallback`` when the request is not one at or before it. ``prompts`` are the session's
    typed user prompts in order, ``judged``; ``first`` is ``first_request(prompts)``."""
    turn = request = None
    if message_index is not None:
        k = bisect.bisect_right(prompts, (message_index, True))
        if k:
            turn = prompts[k - 1][0]
        request = next((i for i, ack in reversed(prompts[:k]) if not ack), None)
    out: dict[str, Any] = {"request": request, "turn": turn}
    if request is None:
        out["request"] = first
        out["fallback"] = "first_request" if first is not None else "title"
    return out
