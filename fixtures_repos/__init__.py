"""Deterministic fixtures for hansard: real git repositories plus agent transcripts written in the
real on-disk formats (``writers``, ``gitrepo``), and the attribution scenarios built from them
(``scenarios``). Not shipped in the wheel."""
