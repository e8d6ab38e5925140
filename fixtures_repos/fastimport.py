"""A `git fast-import` stream: blobs and commits built in memory and written by one git
process, so a test or a benchmark makes thousands of commits with fixed dates in seconds."""

from __future__ import annotations


class FastImport:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.mark = 0

    def blob(self, data: bytes) -> int:
        """A blob; its mark names it in a later commit."""
        self.mark += 1
        self.parts.append(b"blob\nmark :%d\ndata %d\n" % (self.mark, len(data)) + data + b"\n")
        return self.mark

    def commit(self, ref: str, files: list[tuple[str, str, int | str]], when: int, message: str = "Checkpoint",
               who: str = "Entire <e@example.com>", parent: str | None = None) -> None:
        """A commit on ``ref`` (after its last one, or ``parent``) committed by ``who`` at
        ``when`` (seconds, UTC), changing ``files``: (mode, path, blob mark or object id)."""
        self.mark += 1
        msg = message.encode()
        body = [b"commit %s\nmark :%d\ncommitter %s %d +0000\ndata %d\n%s\n"
                % (ref.encode(), self.mark, who.encode(), when, len(msg), msg)]
        if parent:
            body.append(f"from {parent}\n".encode())
        for mode, path, what in files:
            body.append(f"M {mode} {f':{what}' if isinstance(what, int) else what} {path}\n".encode())
        self.parts.append(b"".join(body) + b"\n")

    def stream(self) -> bytes:
        return b"".join(self.parts) + b"done\n"
