"""Ingest: transcript records into the store through one pipeline (archive → parse → redact →
write → advance, pipeline.py), fed by the scanner (new bytes of transcript files), reindex
(the archive alone) and capture (one delivery between agents); run.py is one `hansard index`
run: scan, link (hansard.link), refresh the memory-file mirror, record the run."""
