"""Answers over a store: why, code_history, work_context, search, transcript windows, memories. Read-only."""
