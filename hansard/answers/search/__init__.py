"""Session search: keyword (FTS5), meaning (embeddings) and hybrid fusion."""
