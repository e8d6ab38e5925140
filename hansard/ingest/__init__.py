"""Ingest: one module per agent format, a registry that sniffs files, and the incremental
scanner that feeds raw records through the parsers into the store."""
