"""A throwaway PostgreSQL cluster for the team tests and benchmarks: Debian's server binaries,
``initdb`` into a temporary folder, ``pg_ctl`` listening on 127.0.0.1 at a free port and on a
Unix socket in that folder, stopped and removed at the end.

PostgreSQL refuses to run as root, so as root the cluster belongs to an unprivileged user
(``HANSARD_PG_USER``, default ``nobody``). Clients authenticate with a password (scram) over
TCP and over the socket (only the superuser ``postgres`` is trusted there, for ``psql``), so the
tests also exercise the libpq password file. The database's owner may create roles
(``CREATEROLE``), as `hansard team init` and `add-member` need.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass


def pg_bindir() -> str | None:
    """The folder of initdb/pg_ctl: on PATH, else the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                  key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return os.path.dirname(dirs[-1]) if dirs else None


@dataclass
class Cluster:
    folder: str
    port: int
    user: str
    password: str
    database: str

    def url(self, *, password: bool = False) -> str:
        secret = f":{self.password}" if password else ""
        return f"postgresql://{self.user}{secret}@127.0.0.1:{self.port}/{self.database}"

    def socket_url(self, *, password: bool = False) -> str:
        """The same server over its Unix socket (a URI with the socket folder as ``host``)."""
        secret = f"&password={self.password}" if password else ""
        return f"postgresql:///{self.database}?host={self.folder}&port={self.port}&user={self.user}{secret}"

    def psql(self, sql: str, timeout: float = 60) -> str:
        """Run SQL as the cluster's superuser over the Unix socket; its output (tuples only)."""
        out = subprocess.run(self._as_owner([os.path.join(self.bindir, "psql"), "-h", self.folder, "-p", str(self.port),
                                            "-U", "postgres", "-d", self.database, "-At", "-v", "ON_ERROR_STOP=1",
                                            "-c", sql]),
                             capture_output=True, text=True, check=True, timeout=timeout)
        return out.stdout

    bindir: str = ""
    owner: str | None = None

    def _as_owner(self, cmd: list[str]) -> list[str]:
        return ["runuser", "-u", self.owner, "--", *cmd] if self.owner else cmd

    def stop(self) -> None:
        subprocess.run(self._as_owner([os.path.join(self.bindir, "pg_ctl"), "-D", os.path.join(self.folder, "data"),
                                       "-m", "immediate", "-w", "stop"]), capture_output=True, timeout=60)

    def _postmaster(self) -> int:
        with open(os.path.join(self.folder, "data", "postmaster.pid")) as fh:
            return int(fh.readline())

    def pause(self) -> None:
        """SIGSTOP the server (and its backends): it accepts connections at the kernel and then
        never answers, as a server that is up but hung or overloaded."""
        import signal

        self._paused = [self._postmaster(), *self._children()]
        for pid in self._paused:
            os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        import signal

        for pid in getattr(self, "_paused", []):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._paused = []

    def _children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self._postmaster())], capture_output=True, text=True)
        return [int(x) for x in out.stdout.split()]

    def start(self) -> None:
        subprocess.run(self._as_owner([os.path.join(self.bindir, "pg_ctl"), "-D", os.path.join(self.folder, "data"),
                                       "-l", os.path.join(self.folder, "log"), "-w", "start"]),
                       capture_output=True, check=True, timeout=60)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def cluster() -> Iterator[Cluster]:
    bindir = pg_bindir()
    if bindir is None:
        raise RuntimeError("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
    owner = os.environ.get("HANSARD_PG_USER", "nobody") if os.geteuid() == 0 else None
    folder = tempfile.mkdtemp(prefix="hansard-pg-")
    os.chmod(folder, 0o755)
    if owner:
        shutil.chown(folder, owner)
    c = Cluster(folder, _free_port(), "hansard", "s3cret-team-pw", "team", bindir=bindir, owner=owner)
    pwfile = os.path.join(folder, "pw")
    with open(pwfile, "w") as fh:
        fh.write("postgres-pw\n")
    if owner:
        shutil.chown(pwfile, owner)
    run = lambda cmd: subprocess.run(c._as_owner(cmd), capture_output=True, text=True, check=True, timeout=120)
    try:
        run([os.path.join(bindir, "initdb"), "-D", os.path.join(folder, "data"), "-U", "postgres", "--pwfile", pwfile,
             "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"])
        # Only the superuser (these helpers' psql) is trusted on the socket: every other role
        # gives its password there too, so a client's password file is tested over the socket.
        hba = os.path.join(folder, "data", "pg_hba.conf")
        with open(hba) as fh:
            rules = fh.read()
        rules, n = re.subn(r"^(local\s+all\s+all\s+)trust$", r"\1scram-sha-256", rules, flags=re.M)
        assert n == 1, rules
        with open(hba, "w") as fh:
            fh.write("local all postgres trust\n" + rules)
        with open(os.path.join(folder, "data", "postgresql.conf"), "a") as fh:
            fh.write(f"\nlisten_addresses = '127.0.0.1'\nport = {c.port}\nunix_socket_directories = '{folder}'\n"
                     "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nshared_buffers = 128MB\n"
                     "max_connections = 50\n")
        c.start()
        c.database = "postgres"
        c.psql(f"CREATE ROLE {c.user} LOGIN CREATEROLE PASSWORD '{c.password}'")
        c.psql(f"CREATE DATABASE team OWNER {c.user}")
        c.database = "team"
        yield c
    finally:
        c.stop()
        shutil.rmtree(folder, ignore_errors=True)
