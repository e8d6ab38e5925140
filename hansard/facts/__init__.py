"""What transcripts say beyond edits: shell commands, test runs, steps."""
