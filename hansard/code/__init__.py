"""Source code as tree-sitter sees it: symbols and imports (query files ship in the package)."""
