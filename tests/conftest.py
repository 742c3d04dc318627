from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import resource
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from oncall_tui.cli import main
from oncall_tui.core.events import ChatEvent
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.store import sqlite
from oncall_tui.store.engine import Database
from oncall_tui.store.opening import open_database
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.gateway import StaticGateway
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.parsed_css import share_parsed_css
from tests.postgres import PostgresServer, running_server, unavailable_reason
from tests.schemas import upgrade_by_statements

FakeServer = FakeOllama | FakeOpenAI
"""A loopback model server: Ollama's API, or the OpenAI chat-completions API."""

REPO = Path(__file__).resolve().parent.parent
TUI_TESTS = REPO / "tests" / "tui"
BUSY_LAYERS = ("services", "cli", "store")
"""The layers whose tests keep the cores busy (model calls, databases, processes)."""
PILOT_WEIGHT = 2
"""A Pilot test takes about twice the wall time of a services, CLI or store test."""
EXAMPLES = REPO / "skills-examples"
CORPUS = Path(__file__).resolve().parent / "data" / "skills-real"

YOUNG_COLLECTION = 10_000
"""Allocations between the garbage collector's young passes in a test process (Python's default
is 700): a Textual app or a LangChain turn allocates a few hundred thousand objects, and at 700
the passes, and the older ones they trigger, took about 14% of the tests' CPU."""


def pytest_configure(config: pytest.Config) -> None:
    """The collector of this process (a worker's, or the only one) runs less often, its apps
    share their parsed CSS (:mod:`tests.parsed_css`), and it hands Ctrl-C on as a shell does."""
    _, middle, full = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION, middle, full)
    share_parsed_css()
    ctrl_c_as_from_a_terminal()
    quicker_looks_for_idle()


IDLE_LOOK = 0.005
"""Seconds of one look for idleness of Pilot's key presses and pauses (Textual's is 0.02)."""


def quicker_looks_for_idle() -> None:
    """Pilot waits, after each key it presses, until the app looks idle: it sleeps, twice a
    key, for a look of 20 ms and compares the process's CPU time with the clock. The 1,200
    keys the tests press spent two minutes of the workers' time there. A look of 5 ms, idle
    when it used less than 5% of it in CPU (Textual's share), waits for the same thing. A test
    that needs the screen laid out again waits for it (:func:`tests.tui.harness.settled`)."""
    import textual._wait as wait

    wait.SLEEP_GRANULARITY = IDLE_LOOK
    wait.SLEEP_IDLE = IDLE_LOOK / 20


def ctrl_c_as_from_a_terminal() -> None:
    """Ctrl-C (SIGINT) handled by this process, so that the processes the tests start have it
    at its default action, as a program started from a shell has. Started as a background job
    of a script (``.ci/run &``), the tests would inherit it ignored and pass it on: the
    programs they start would then ignore the Ctrl-C that tests send them, as they should."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The Pilot tests' modules spread among those of the services, the CLI and the store:
    each Pilot test waits, after every key, for the app to look idle, and run together at the
    end (``tui`` sorts last) they left the two cores a quarter idle for a minute. A Pilot test
    takes about twice a test of the others (:data:`PILOT_WEIGHT`); the quick layers (core,
    settings, llm) end the run. A module's tests stay together, in their order."""
    modules: dict[Path, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)
    waiting, working, quick = [], [], []
    for path, tests in modules.items():
        if path.is_relative_to(TUI_TESTS):
            waiting.append(tests)
        elif any(path.is_relative_to(REPO / "tests" / layer) for layer in BUSY_LAYERS):
            working.append(tests)
        else:
            quick.append(tests)
    weights = (PILOT_WEIGHT, 1)
    totals = [
        weight * sum(map(len, group)) or 1
        for weight, group in zip(weights, (waiting, working), strict=True)
    ]
    done = [0, 0]
    ordered: list[pytest.Item] = []
    while waiting or working:
        late = done[0] / totals[0] <= done[1] / totals[1]
        turn = 0 if waiting and (late or not working) else 1
        tests = (waiting, working)[turn].pop(0)
        done[turn] += weights[turn] * len(tests)
        ordered.extend(tests)
    items[:] = ordered + [test for tests in quick for test in tests]


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collecting imported (the app, LangChain, Textual, SQLAlchemy, every test module)
    lives until the process ends: frozen, the collector's full passes leave it out, as the
    app's own warm-up does for its start-up heap."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def quick_schema(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new SQLite file opened in this process gets the newest schema by statements, not by
    running the revisions (see ``upgrade_by_statements``), except in the store's own tests."""
    if not request.node.path.is_relative_to(REPO / "tests" / "store"):
        monkeypatch.setattr(sqlite, "upgrade", upgrade_by_statements)


@pytest.fixture(autouse=True)
def private_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every run of the app in a test, in-process or in a subprocess, logs under tmp_path."""
    path = tmp_path / "log" / "oncall-tui.log"
    monkeypatch.setenv("ONCALL_TUI_LOG_FILE", str(path))
    return path


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every run of the app in a test reads its settings file under tmp_path (none, unless the
    test writes one), never the user's own, and keeps its data (held replies, the draft) under
    it too; no variable of the developer's leaks in."""
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("ONCALL_TUI_CONFIG", str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # for environ={} too
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    for variable in (
        "ONCALL_TUI_LANG",
        "ONCALL_TUI_THEME",
        "ONCALL_TUI_PROVIDER",
        "ONCALL_TUI_BASE_URL",
        "OPENAI_API_KEY",
        "TMUX",  # a copy in a test must not reach the developer's tmux
    ):
        monkeypatch.delenv(variable, raising=False)
    return path


ENGINES = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test of a module marked ``both_engines`` that reaches the database through the
    fixtures (``db_url``: ``database``, ``cli``, ``engine``, ``on_ollama``...) runs once on a
    SQLite file and once on a PostgreSQL database; ``sqlite_only`` keeps one on the file."""
    marked = metafunc.definition.get_closest_marker("both_engines")
    only = metafunc.definition.get_closest_marker("sqlite_only")
    if marked and not only and "db_url" in metafunc.fixturenames:
        metafunc.parametrize("store_engine", ENGINES, indirect=True)


@pytest.fixture
def store_engine(request: pytest.FixtureRequest) -> str:
    """``sqlite`` unless the test is one of a ``both_engines`` module's PostgreSQL runs."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server per test process; skipped, with the reason, where it
    cannot run (no binaries, no psycopg)."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with running_server() as server:
        yield server


@pytest.fixture
def db_url(store_engine: str, request: pytest.FixtureRequest) -> str | None:
    """The test's own PostgreSQL database (a copy of the migrated template) on PostgreSQL
    runs; ``None`` on SQLite ones, which use ``db_path``."""
    if store_engine == "sqlite":
        return None
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "oncall.db"


@pytest.fixture
def db_target(db_path: Path, db_url: str | None) -> str:
    """What ``--db`` names: the test's PostgreSQL URL, or its SQLite file."""
    return db_url or str(db_path)


@pytest.fixture
def database(db_path: Path, db_url: str | None) -> Iterator[Database]:
    db = open_database(db_url or db_path)
    yield db
    db.close()


@pytest.fixture
def configuration(database: Database) -> ConfigurationService:
    return ConfigurationService(database)


def skill_text(name: str = "demo-skill", description: str = "Does a demo.", body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# Steps\n{body}\n"


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)

    def json_object(self) -> dict[str, Any]:
        """The output, a JSON object."""
        document = self.json()
        assert isinstance(document, dict), document
        return document

    def json_list(self) -> list[Any]:
        """The output, a JSON array."""
        document = self.json()
        assert isinstance(document, list), document
        return document

    def error(self) -> dict[str, str]:
        payload = json.loads(self.err)
        assert isinstance(payload, dict)
        error = payload["error"]
        assert isinstance(error, dict)
        return error


RunCli = Callable[..., CliResult]


@pytest.fixture
def cli(
    db_target: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> RunCli:
    """Run the real entry point in-process against the test database as user ``alice``."""
    for variable in ("LANG", "LC_ALL", "LC_MESSAGES", "ONCALL_TUI_DB", "ONCALL_TUI_USER"):
        monkeypatch.delenv(variable, raising=False)

    def run(*args: str, user: str = "alice") -> CliResult:
        capsys.readouterr()
        try:
            code = main(["--db", db_target, "--user", user, *args])
        except SystemExit as exit_:  # argparse usage errors and --version
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@contextlib.contextmanager
def full_disk() -> Iterator[Callable[[], None]]:
    """A disk that ``fill()`` (from any thread) makes full until the block ends: this process
    writes nothing past a file's first 4 KB (EFBIG for ENOSPC: SQLite says "database or disk
    is full" for both)."""
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # in the main thread, as it must

    def fill() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, limit[1]))

    try:
        yield fill
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        signal.signal(signal.SIGXFSZ, previous)


@contextlib.contextmanager
def sqlite_full(database: Database) -> Iterator[None]:
    """SQLite's own "database or disk is full" (``SQLITE_FULL``, what a full disk gives) for
    every write that would grow the file, until the block ends: each connection opened
    meanwhile may not go past the pages the file has (``PRAGMA max_page_count``)."""

    def capped(connection: Any, _record: object) -> None:
        (pages,) = connection.execute("PRAGMA page_count").fetchone()
        connection.execute(f"PRAGMA max_page_count = {pages}")

    database.engine.dispose()  # the pooled connections go; the next ones are capped
    sqlalchemy.event.listen(database.engine, "connect", capped)
    try:
        yield
    finally:
        sqlalchemy.event.remove(database.engine, "connect", capped)
        database.engine.dispose()


def make_settings(db_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {"db_path": db_path, "user": "alice"}
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]  # any field, as each test names it


@pytest.fixture
def built() -> Iterator[list[Services]]:
    """Services a test builds, closed when it ends."""
    services: list[Services] = []
    yield services
    for each in services:
        each.close()


@pytest.fixture
def engine(db_path: Path, db_url: str | None, built: list[Services]) -> Callable[..., Services]:
    """Services wired to a scripted model: ``engine(model, window=8192)``."""

    def build(model: ScriptedChatModel, window: int = 8192) -> Services:
        settings = make_settings(db_path, db_url=db_url)
        services = Services(settings, gateway=StaticGateway(model, window))
        built.append(services)
        return services

    return build


@pytest.fixture
def on_ollama(db_path: Path, db_url: str | None, built: list[Services]) -> Callable[..., Services]:
    """Services on the real client of the server's provider (``langchain-ollama`` for a
    `FakeOllama`, ``langchain-openai`` for a `FakeOpenAI`) and that loopback server:
    ``on_ollama(server, model="tiny:2k", **settings)``."""

    def build(server: FakeServer | None, model: str = "tiny:2k", **overrides: object) -> Services:
        values: dict[str, object] = {"model": model, "request_timeout": 10.0, "db_url": db_url}
        if isinstance(server, FakeOpenAI):
            values.update(provider="openai", base_url=server.url)
        elif server is not None:
            values["ollama_url"] = server.url
        values.update(overrides)
        services = Services(make_settings(db_path, **values))
        built.append(services)
        return services

    return build


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[FakeServer]:
    """A loopback server speaking Ollama's wire protocol, with the default models; under
    :data:`both_providers`, each server in turn (Ollama's, then the OpenAI-compatible one)."""
    provider = getattr(request, "param", "ollama")
    fake: FakeServer = FakeOpenAI() if provider == "openai" else FakeOllama()
    with fake:
        yield fake


def server_name(server: FakeServer) -> str:
    """How the catalog names ``server`` inside a sentence (``no data from {name} for 2 s``)."""
    return "the model server" if isinstance(server, FakeOpenAI) else "Ollama"


both_providers = pytest.mark.parametrize("server", ["ollama", "openai"], indirect=True)
"""Run a test that takes ``server`` on both providers' servers and clients: the engine's
promises (streaming, tools, usage and calibration, the 95% rule, failures) hold for each."""


@pytest.fixture
def ollama(server: FakeOllama) -> FakeOllama:
    """The same server, under the name the CLI tests use."""
    return server


@pytest.fixture
def closed_url() -> str:
    """A loopback address nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _own_ports() -> Iterator[int]:
    """Ports below the ephemeral range that no other worker of this run hands out, each once:
    a port is free when handed out, and taken only by the server the test starts there."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    first = 21_000 + 2_000 * (int(worker) % 5 if worker.isdigit() else 0)
    return iter(range(first, first + 2_000))


_OWN_PORTS = _own_ports()


def port_outside_the_ephemeral_range() -> int:
    """A free port no outgoing connection can take: a client connecting to a closed port of
    the ephemeral range can connect to itself (TCP's simultaneous open) and hold the port."""
    for port in _OWN_PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")


def ollama_at(port: int) -> FakeOllama:
    """A server to start where the app already points (one coming back)."""
    server = FakeOllama()
    server.bind_port = port
    return server


def at_once_in_threads(
    settings: Settings, count: int, work: Callable[[Services, int], object], timeout: float = 120.0
) -> None:
    """``work(services, index)`` in ``count`` threads started together, each with services of
    its own (its own engine and connections, as a process has, opened before the start: the
    writers of PostgreSQL's concurrency tests). Fails with what any of them raised, or if one
    has not ended within ``timeout``."""
    start = threading.Barrier(count)
    failures: list[BaseException] = []

    def run(index: int) -> None:
        services = Services(settings)
        try:
            services.database  # noqa: B018  (opened before the race starts)
            start.wait(timeout=30)
            work(services, index)
        except BaseException as error:  # reported by the test's thread
            failures.append(error)
        finally:
            services.close()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not failures, failures
    assert not any(thread.is_alive() for thread in threads)


async def collect(stream: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    return [event async for event in stream]


async def poll_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the event loop run until ``condition()`` holds; fail with a clear message otherwise
    (the Pilot tests' ``wait_until``, for tests without an app)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(0.005)
