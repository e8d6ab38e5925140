"""Lines and hunks as every stage compares them: a line's normal form and hashes (``textnorm``)
and unified-diff hunks (``diffs``); and text made safe for a terminal (``terminal``)."""
