"""`python -m hansard`: the same entry point as the `hansard` command."""

from hansard.cli import entry

entry()
