"""The SQLite store: migrations, the archive and derived tables, the writer that fills them,
repository resolution, read queries and the doctor. Only this package and the answer
modules above it speak SQL."""
