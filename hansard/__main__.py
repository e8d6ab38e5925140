from hansard.cli import entry

entry()
