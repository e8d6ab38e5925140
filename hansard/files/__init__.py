"""How hansard opens files others may have put there (``safeopen``), writes its own whole or
not at all (``privfile``), and reads Zstandard (``zstdlib``)."""
