"""Web chats a person copies code from: one record each for claude.ai (``claude_web``) and ChatGPT
(``chatgpt``) in :mod:`.claude_web` and :mod:`.chatgpt`; both exports are read by
:mod:`hansard.agents.webchat.exports`, never found by a scan (``hansard import PATH``)."""
