"""A throwaway PostgreSQL server for the tests: ``initdb`` and ``pg_ctl`` in a temporary
directory, listening on 127.0.0.1 and a free port, stopped when the tests end.

PostgreSQL refuses to run as root. As root, the server runs in a user namespace mapped to the
``postgres`` account (``unshare --user --map-user=UID --map-group=GID``): inside it the process
is that account, and outside it owns nothing it did not create. Every test database is a copy
of a template migrated once (``CREATE DATABASE ... TEMPLATE``), so a test pays for a copy, not
for the migrations.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

BIN_PATTERN = "/usr/lib/postgresql/*/bin"
TEMPLATE = "oncall_template"
SUPERUSER = "postgres"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory holding ``initdb`` and ``pg_ctl``."""
    found = sorted(glob.glob(BIN_PATTERN), key=lambda p: int(Path(p).parent.name), reverse=True)
    for directory in [*found, *(os.path.dirname(shutil.which("initdb") or "") or [])]:
        path = Path(directory)
        if (path / "initdb").exists() and (path / "pg_ctl").exists():
            return path
    return None


def unavailable_reason() -> str | None:
    """Why the PostgreSQL suite cannot run here, or ``None`` when it can."""
    if binaries() is None:
        return f"PostgreSQL's initdb and pg_ctl are not installed (looked in {BIN_PATTERN})"
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed: pip install -e '.[postgres]'"
    if os.geteuid() == 0 and (shutil.which("unshare") is None or _postgres_account() is None):
        return "running as root without unshare or a postgres account to run the server as"
    return None


class PostgresServer:
    """One server; :meth:`new_database` gives each test its own database."""

    def __init__(self) -> None:
        bin_dir = binaries()
        assert bin_dir is not None, unavailable_reason()
        self._bin = bin_dir
        self._dir = Path(tempfile.mkdtemp(prefix="oncall-pg-"))
        self.port = _free_port()
        self._names = itertools.count(1)
        self._started = False
        self._ever_started = False

    @property
    def admin_url(self) -> str:
        return self.url("postgres")

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Make the cluster (the first time) and start the server.

        The port was free when it was chosen, and something else on the machine (another
        test's loopback server) may have taken it since: at the first start the server then
        moves to another free port. Started again after :meth:`halt`, it keeps its port (the
        clients' addresses hold it); a failure says what the server's log said."""
        data = self._dir / "data"
        if not data.exists():
            self._run(
                "initdb", "-D", str(data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                "--locale=C.UTF-8", "--no-sync",
            )  # fmt: skip
        log = self._dir / "server.log"
        for attempt in itertools.count(1):
            options = (
                f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self._dir} -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            try:
                self._run("pg_ctl", "-D", str(data), "-l", str(log), "-w", "-o", options, "start")
                break
            except subprocess.CalledProcessError as failed:
                said = log.read_text(errors="replace") if log.exists() else ""
                if self._ever_started or attempt == 3 or "already in use" not in said:
                    raise RuntimeError(f"PostgreSQL did not start:\n{said[-2000:]}") from failed
                self.port = _free_port()
        self._started = self._ever_started = True

    def halt(self) -> None:
        """Stop the server, keeping its data: :meth:`start` brings it back (an outage).

        ``fast``, not ``immediate``: the clients are cut off at once either way, but this server
        runs with ``synchronous_commit=off`` (for speed), so an immediate stop may lose a
        transaction already reported committed, a loss a real server's settings do not allow
        (it made a stored user message vanish under load)."""
        self._stop("fast")

    def stop(self) -> None:
        """Stop the server for good and remove its files, in the background: nothing it holds
        is read again (``immediate``), and removing a worker's 60-odd databases, 20,000 files,
        took up to 10 s at the worker's end on a disk mounted with ``discard``."""
        self._stop("immediate")
        subprocess.Popen(
            ["rm", "-rf", "--", str(self._dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _stop(self, mode: str) -> None:
        if self._started:
            self._run("pg_ctl", "-D", str(self._dir / "data"), "-m", mode, "-w", "stop")
            self._started = False

    def execute(self, sql: str, database: str = "postgres", *, role: str = SUPERUSER) -> None:
        import psycopg

        url = _libpq(self.url(database)).replace(f"://{SUPERUSER}@", f"://{role}@")
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(sql.encode())

    def fetch(self, sql: str, database: str) -> list[tuple[object, ...]]:
        import psycopg

        with psycopg.connect(_libpq(self.url(database)), autocommit=True) as connection:
            return connection.execute(sql.encode()).fetchall()

    def prepare_template(self) -> None:
        """The template every test database copies: migrated to the newest revision, with a
        policy letting the tests act as any user name (as they do on SQLite)."""
        from oncall_tui.store.postgres import PostgresDatabase

        self.execute(f"CREATE DATABASE {TEMPLATE}")
        PostgresDatabase(self.url(TEMPLATE)).close()
        self.execute(
            "INSERT INTO team_policy (name, value) VALUES ('allow_user_override', 'true')",
            TEMPLATE,
        )

    def new_database(self, *, empty: bool = False) -> str:
        """A new database's URL: a copy of the template, or ``empty`` (not migrated)."""
        name = f"test_{next(self._names)}"
        source = "template0" if empty else TEMPLATE
        self.execute(f"CREATE DATABASE {name} TEMPLATE {source}")
        return self.url(name)

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self._bin / tool), *args]
        account = _postgres_account() if os.geteuid() == 0 else None
        if account is not None:
            uid, gid = account
            command = ["unshare", "--user", f"--map-user={uid}", f"--map-group={gid}", *command]
        subprocess.run(command, check=True, capture_output=True, stdin=subprocess.DEVNULL)


@contextlib.contextmanager
def running_server() -> Iterator[PostgresServer]:
    server = PostgresServer()
    try:
        server.start()
        server.prepare_template()
        yield server
    finally:
        server.stop()


def _postgres_account() -> tuple[int, int] | None:
    try:
        entry = pwd.getpwnam(SUPERUSER)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _libpq(url: str) -> str:
    """A SQLAlchemy URL as libpq takes it."""
    return url.replace("postgresql+psycopg://", "postgresql://")
