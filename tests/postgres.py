"""A throwaway PostgreSQL server for the tests and the store benchmark: Debian's `postgresql`
package (`./dev.sh test` installs it), one cluster in a temp folder on a free port of 127.0.0.1,
a fresh database per test.

Password authentication over TCP (scram-sha-256), so URLs carry a real password and the tests
can check it is never shown; the admin connects over the cluster's own Unix socket (trust).
PostgreSQL refuses to run as root: then the cluster runs as the `postgres` user (`runuser`).
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "gemflux"
PASSWORD = "s3cret-Pa55word"  # tests assert this never appears in logs, pages or errors


def find_bin_dir() -> Path | None:
    """The newest PostgreSQL server binaries: Debian's /usr/lib/postgresql/<v>/bin, else PATH."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda p: [int(x) for x in re.findall(r"\d+", p.parent.parent.name)] or [0])
    if versions:
        return versions[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresCluster:
    """`start()` initialises and starts a cluster; `new_database()` makes an empty database owned by
    USER and returns its URL; `stop()` stops the server and removes the folder."""

    def __init__(self, bin_dir: Path, *, synchronous_commit: bool = False) -> None:
        self.bin_dir = bin_dir
        # off: faster, but a crash (`crash()`) may lose the last commits; on for the fault drills
        self.synchronous_commit = synchronous_commit
        self.root = Path(tempfile.mkdtemp(prefix="gemflux-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._as_user: list[str] = []
        self._names = itertools.count(1)
        self.started = False

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as_user, *args], check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       cwd=self.root)

    def start(self) -> PostgresCluster:
        if os.geteuid() == 0:  # postgres will not run as root
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as_user = ["runuser", "-u", "postgres", "--"]
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "-E", "UTF8",
                  "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync")
        self._start_server()
        self._admin(f"CREATE ROLE {USER} LOGIN CREATEDB PASSWORD '{PASSWORD}'")
        return self

    def _start_server(self) -> None:
        # Durability settings are off (fsync: the machine does not crash under a test), a test
        # cluster, thrown away afterwards.
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200 "
                   f"-c fsync=off -c synchronous_commit={'on' if self.synchronous_commit else 'off'} "
                   "-c full_page_writes=off")
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")
        self.started = True

    def crash(self) -> None:
        """Stop the server as a crash would (`pg_ctl stop -m immediate`: no shutdown checkpoint,
        every connection cut); `restart()` then recovers from the write-ahead log."""
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        self.started = False

    def restart(self) -> None:
        """Start the crashed server again, on the same port."""
        self._start_server()

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(host=str(self.root), port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(statement.encode())

    def url(self, database: str, *, password: bool = True) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def new_database(self, prefix: str = "t") -> str:
        name = f"{prefix}_{os.getpid()}_{next(self._names)}_{int(time.time() * 1000) % 100000}"
        self._admin(f'CREATE DATABASE "{name}" OWNER {USER}')
        return self.url(name)

    def stop(self) -> None:
        try:
            if self.started:
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            self.started = False
            shutil.rmtree(self.root, ignore_errors=True)
