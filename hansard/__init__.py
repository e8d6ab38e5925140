"""hansard: a git-aware code-history and blame tool for code that coding agents write."""

__version__ = "0.1.0"
