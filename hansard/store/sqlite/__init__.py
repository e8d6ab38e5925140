"""The embedded SQLite store: migrations, archive, writer, queries."""
