"""How hansard opens files others may have put there (``safeopen``), writes its own whole or
not at all (``privfile``), reads Zstandard (``zstdlib``), and reads a file path as an agent
wrote it on any machine (``foreignpaths``)."""
