"""Attribution: which archived edit wrote a line (evidence, landing commits, the `why` engine).

Only applied edits are evidence; matching is by content, never by remembered commit ids."""
