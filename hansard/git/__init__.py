"""The git side: the CLI run in a controlled environment (blame, per-file history) and
repository identity (root commit, remote, worktrees)."""
