"""qwen-code (github.com/QwenLM/qwen-code): per-file AI attribution notes on commits, in
``refs/notes/ai-attribution``, parsed by :mod:`hansard.recorders.qwen_code.notes`. Its notes say
how many of a file's changed characters in the commit the agent wrote, not which lines: they
are *recorded* evidence about a file of a commit, shown by `why` beside its own answer
(:mod:`hansard.answers.why.recorded`), and contradict a line only when they say the whole
file's change was the agent's, or none of it was."""

from __future__ import annotations

from hansard.agents.record import Recorder

RECORDER = Recorder(name="qwen-code", display="qwen-code", notes_ref="refs/notes/ai-attribution",
                    reader="hansard.recorders.qwen_code.notes:parse_note")
