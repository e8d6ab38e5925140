"""History answers: code_history and work_context, and what they are built from
(tree-sitter symbols and imports, test runs, steps, token budgets)."""
