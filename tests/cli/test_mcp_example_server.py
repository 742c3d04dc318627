"""The example log-search MCP server (examples/mcp/log_search.py), run as users run it.

One server process for the module, started over stdio with the SDK's own client, searching a
copy of the sample logs plus the awkward cases: a binary file, symlinks out of the root, a file
past the per-file byte cap, and 1,001 matching lines for the limit. The HTTP transport gets a
server of its own on 127.0.0.1.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from examples.mcp import log_search

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "examples" / "mcp" / "log_search.py"
SAMPLE_LOGS = REPO / "examples" / "mcp" / "sample-logs"
INCIDENT_PATTERN = r'" 50[24] '  # the gateway errors in the nginx access log


@dataclass
class Result:
    text: str
    is_error: bool

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @property
    def summary(self) -> str:
        return self.lines[-1]


@dataclass
class Client:
    """A connected MCP client session, driven from synchronous tests through a portal."""

    portal: BlockingPortal
    session: ClientSession

    def search(self, **arguments: Any) -> Result:
        result: CallToolResult = self.portal.call(self.session.call_tool, "search_logs", arguments)
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        return Result("\n".join(texts), result.isError)


@asynccontextmanager
async def stdio_session(root: Path) -> AsyncIterator[ClientSession]:
    parameters = StdioServerParameters(
        command=sys.executable, args=[str(SERVER), "--root", str(root)], cwd=str(REPO)
    )
    async with (
        stdio_client(parameters) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@pytest.fixture(scope="module")
def log_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mcp-logs")
    root = base / "logs"
    shutil.copytree(SAMPLE_LOGS, root)
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.log").write_text("2026-11-30T02:51:00Z SECRET-OUTSIDE token=abc\n")
    (root / "linked.log").symlink_to(outside / "secret.log")
    (root / "linked-dir").symlink_to(outside, target_is_directory=True)
    (root / "core.log").write_bytes(b"\x7fELF\x00\x00SECRET-BINARY 502\n")
    bulk = root / "bulk"
    bulk.mkdir()
    (bulk / "many.log").write_text(
        "".join(f"2026-12-01T00:00:00Z bulk-match {n}\n" for n in range(1, 1002))
    )
    big = root / "big"
    big.mkdir()
    line = "2026-12-01T00:00:00Z filler " + "x" * 99 + "\n"
    filler = line * (log_search.MAX_BYTES_PER_FILE // len(line) + 1)
    (big / "huge.log").write_text("BIG-HEAD\n" + filler + "BIG-TAIL\n")
    return root


@pytest.fixture(scope="module")
def client(log_root: Path) -> Iterator[Client]:
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(stdio_session(log_root)) as session,
    ):
        yield Client(portal, session)


def test_the_server_offers_one_read_only_tool_with_its_limits_in_the_schema(
    client: Client,
) -> None:
    tools = client.portal.call(client.session.list_tools).tools
    assert [tool.name for tool in tools] == ["search_logs"]
    tool = tools[0]
    assert tool.annotations is not None
    assert tool.annotations.readOnlyHint is True
    properties = tool.inputSchema["properties"]
    assert set(properties) == {"pattern", "since", "until", "limit", "path_glob", "ignore_case"}
    assert tool.inputSchema["required"] == ["pattern"]
    assert (properties["limit"]["minimum"], properties["limit"]["maximum"]) == (1, 1000)
    assert tool.description is not None
    assert "regular expression" in tool.description
    assert "ISO 8601" in tool.description


def test_a_pattern_finds_the_incident_lines_as_path_line_text(client: Client) -> None:
    result = client.search(pattern=INCIDENT_PATTERN, path_glob="nginx/*.log")
    assert not result.is_error
    found = result.lines[:-1]
    assert len(found) == 7
    assert found[0] == (
        "nginx/access.log:5: 2026-11-30T02:51:03+00:00 10.0.3.22 "
        '"POST /api/cart/checkout HTTP/1.1" 502 157 5.004 upstream=10.0.2.12:8080'
    )
    assert all(line.startswith("nginx/access.log:") for line in found)


def test_the_last_line_states_the_query_its_parameters_and_the_time_range(
    client: Client,
) -> None:
    result = client.search(pattern="PoolTimeout", path_glob="checkout-api/*.log", limit=50)
    assert result.summary == (
        "[searched: pattern 'PoolTimeout' (regular expression, case-sensitive), "
        "path_glob 'checkout-api/*.log', time range: none (all lines), limit 50; "
        "1 file searched; 5 matching lines, all shown (limit not reached)]"
    )


def test_a_time_range_keeps_lines_inside_it_with_their_stack_traces(client: Client) -> None:
    result = client.search(
        pattern="PoolTimeout",
        since="2026-11-30T02:51:00Z",
        until="2026-11-30T02:52:00Z",
    )
    assert not result.is_error
    numbers = [line.split(":", 2)[:2] for line in result.lines[:-1]]
    # The traceback's last line (14) has no timestamp: it takes the time of line 8 above it.
    assert numbers == [
        ["checkout-api/app.log", "13"],
        ["checkout-api/app.log", "14"],
        ["checkout-api/app.log", "15"],
        ["checkout-api/app.log", "17"],
    ]
    assert (
        "time range: 2026-11-30T02:51:00Z to 2026-11-30T02:52:00Z (UTC, inclusive" in result.summary
    )


def test_the_time_range_is_inclusive_at_both_ends_and_zones_are_converted(
    client: Client,
) -> None:
    result = client.search(
        pattern=" 502 ",
        path_glob="nginx/access.log",
        since="2026-11-30T03:51:03+01:00",  # 02:51:03Z, the first 502
        until="2026-11-30T02:51:07",  # no zone: UTC, the second 502
    )
    assert [line.split(":", 2)[1] for line in result.lines[:-1]] == ["5", "6"]


def test_a_limit_at_the_bound_returns_that_many_lines_and_says_it_cut(client: Client) -> None:
    result = client.search(pattern="bulk-match", path_glob="bulk/*.log", limit=1000)
    assert not result.is_error
    assert len(result.lines) == 1001
    assert result.lines[999] == "bulk/many.log:1000: 2026-12-01T00:00:00Z bulk-match 1000"
    assert "1001 matching lines, the first 1000 shown (limit reached" in result.summary


def test_a_limit_one_past_the_bound_is_a_tool_error(client: Client) -> None:
    result = client.search(pattern="bulk-match", path_glob="bulk/*.log", limit=1001)
    assert result.is_error
    assert "limit 1001 is out of range; give 1..1000" in result.text


def test_a_limit_of_one_is_accepted_and_zero_is_refused(client: Client) -> None:
    one = client.search(pattern="bulk-match", path_glob="bulk/*.log", limit=1)
    assert not one.is_error
    assert one.lines[:-1] == ["bulk/many.log:1: 2026-12-01T00:00:00Z bulk-match 1"]
    zero = client.search(pattern="bulk-match", path_glob="bulk/*.log", limit=0)
    assert zero.is_error
    assert "limit 0 is out of range" in zero.text


@pytest.mark.parametrize(
    ("path_glob", "message"),
    [
        ("../outside/*.log", "leaves the log directory"),
        ("nginx/../../outside/*.log", "leaves the log directory"),
        ("/etc/*", "is absolute"),
    ],
)
def test_a_glob_that_leaves_the_root_is_refused(
    client: Client, path_glob: str, message: str
) -> None:
    result = client.search(pattern="SECRET", path_glob=path_glob)
    assert result.is_error
    assert message in result.text
    assert "SECRET-OUTSIDE" not in result.text


@pytest.mark.parametrize("path_glob", ["**/*.log", "linked-dir/*.log", "linked.log", "**/*"])
def test_symlinks_out_of_the_root_are_never_read(client: Client, path_glob: str) -> None:
    result = client.search(pattern="SECRET-OUTSIDE", path_glob=path_glob)
    assert not result.is_error
    assert result.lines[0] == "No matching lines."


def test_a_binary_file_is_skipped_and_counted(client: Client) -> None:
    result = client.search(pattern="SECRET-BINARY", path_glob="core.log")
    assert result.lines[0] == "No matching lines."
    assert "0 files searched" in result.summary
    assert "1 file skipped (not text)" in result.summary


def test_a_file_past_the_byte_cap_is_read_only_to_the_cap(client: Client) -> None:
    result = client.search(pattern="^BIG-", path_glob="big/*.log")
    assert result.lines[:-1] == ["big/huge.log:1: BIG-HEAD"]
    assert f"1 file read only to {log_search.MAX_BYTES_PER_FILE} bytes" in result.summary


def test_a_bad_regex_is_a_tool_error_and_the_server_answers_the_next_call(
    client: Client,
) -> None:
    bad = client.search(pattern="(unclosed")
    assert bad.is_error
    assert "is not a valid regular expression" in bad.text
    good = client.search(pattern=INCIDENT_PATTERN, path_glob="nginx/access.log", limit=1)
    assert not good.is_error
    assert good.lines[0].startswith("nginx/access.log:5: ")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"since": "yesterday"}, "since 'yesterday' is not an ISO 8601 time"),
        (
            {"since": "2026-11-30T03:00:00Z", "until": "2026-11-30T02:00:00Z"},
            "is after until",
        ),
        ({"pattern": ""}, "pattern is empty"),
        ({"pattern": "x" * (log_search.MAX_PATTERN_CHARS + 1)}, "at most 512"),
        ({"path_glob": "  "}, "path_glob is empty"),
    ],
)
def test_bad_arguments_are_tool_errors_that_say_why(
    client: Client, arguments: dict[str, Any], message: str
) -> None:
    result = client.search(**{"pattern": "502", **arguments})
    assert result.is_error
    assert message in result.text


def test_a_pattern_at_the_length_bound_is_accepted(client: Client) -> None:
    result = client.search(pattern="x" * log_search.MAX_PATTERN_CHARS)
    assert not result.is_error
    assert result.lines[0] == "No matching lines."


def test_ignore_case_matches_across_case(client: Client) -> None:
    exact = client.search(pattern="pooltimeout", path_glob="checkout-api/*.log")
    folded = client.search(pattern="pooltimeout", path_glob="checkout-api/*.log", ignore_case=True)
    assert exact.lines[0] == "No matching lines."
    assert len(folded.lines) == 6
    assert "case-insensitive" in folded.summary


def test_the_readme_example_answer_is_what_the_server_answers(client: Client) -> None:
    readme = (REPO / "examples" / "mcp" / "README.md").read_text(encoding="utf-8")
    block = readme.split("answers:\n\n```text\n", 1)[1].split("```", 1)[0]
    result = client.search(
        pattern=INCIDENT_PATTERN,
        since="2026-11-30T02:50:00Z",
        until="2026-11-30T02:53:00Z",
        limit=2,
        path_glob="nginx/*.log",
    )
    assert result.text == block.rstrip("\n")


def test_a_root_that_is_not_a_directory_stops_the_server_with_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        log_search.main(["--root", str(tmp_path / "missing")])
    assert stopped.value.code == 2
    assert "is not a directory" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def test_the_server_answers_over_streamable_http_on_loopback(log_root: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--root", str(log_root), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, server)
        with (
            start_blocking_portal() as portal,
            portal.wrap_async_context_manager(
                http_session(f"http://127.0.0.1:{port}/mcp")
            ) as session,
        ):
            result = Client(portal, session).search(
                pattern=INCIDENT_PATTERN, path_glob="nginx/access.log", limit=2
            )
        assert not result.is_error
        assert len(result.lines) == 3
        assert "the first 2 shown" in result.summary
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stderr is not None:
            server.stderr.close()


def wait_for_port(port: int, server: subprocess.Popen[bytes]) -> None:
    """Until the server accepts connections; fails at once if it exited instead."""
    for _ in range(400):
        if server.poll() is not None:
            raise AssertionError(f"the server exited with {server.returncode}")
        with socket.socket() as probe:
            probe.settimeout(0.05)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        with suppress(subprocess.TimeoutExpired):
            server.wait(timeout=0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def test_the_example_server_passes_the_strict_type_check() -> None:
    """`.ci/run` type-checks oncall_tui, bench and tests; the example is imported by these tests
    but lives under the editable install's path, where mypy silences errors, so it is checked
    here on its own, with the project's settings (strict)."""
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", str(SERVER.relative_to(REPO))],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- registered as docs/TOOLS.md says -------------------------------------------------------------


def tools_example() -> str:
    """The settings of docs/TOOLS.md's "Try it in a minute", as written there."""
    tools = (REPO / "docs" / "TOOLS.md").read_text(encoding="utf-8")
    section = tools[tools.index("## Try it in a minute") :]
    start = section.index("```toml\n") + len("```toml\n")
    return section[start : section.index("\n```", start)]


def test_the_tools_example_starts_from_any_directory_without_an_activated_environment(
    tmp_path: Path,
) -> None:
    """As a pipx or uv tool install, or a virtual environment run by its path, runs it: from
    another directory, with a PATH that holds no Python with the MCP SDK."""
    config = tmp_path / "config.toml"
    config.write_text(tools_example(), encoding="utf-8")
    program = Path(sys.executable).parent / "oncall-tui"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "ONCALL_TUI_LOG_FILE": str(tmp_path / "oncall-tui.log"),
        "LANG": "C.UTF-8",
    }
    command = [str(program), "--config", str(config), "--db", str(tmp_path / "t.db")]
    result = subprocess.run(
        [*command, "tools", "list", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (server,) = json.loads(result.stdout)["servers"]
    assert server["state"] == "ready", server
    assert [tool["name"] for tool in server["tools"]] == ["logs.search_logs"]
    assert server["tools"][0]["policy"] == "auto"


def test_the_example_server_command_searches_the_sample_logs_by_default() -> None:
    """``oncall-tui tools example-server`` is the example server on the bundled sample logs."""

    async def first_line() -> str:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "oncall_tui", "tools", "example-server"]
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(
                "search_logs", {"pattern": "pool.max_size", "path_glob": "deploy/*.log"}
            )
            texts = [block.text for block in result.content if isinstance(block, TextContent)]
            return texts[0].splitlines()[0]

    import anyio

    assert anyio.run(first_line).startswith("deploy/deploy.log:")


def test_a_wheel_carries_the_example_where_the_command_looks_for_it() -> None:
    """pyproject puts ``examples/mcp`` into the package, where ``tools example-server`` looks
    first (a checkout's ``examples/mcp`` second)."""
    from oncall_tui.cli.tools import EXAMPLE_PLACES

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    bundled = project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    package = REPO / "oncall_tui"
    assert EXAMPLE_PLACES[0] == package / Path(bundled["examples/mcp"]).relative_to("oncall_tui")
    assert EXAMPLE_PLACES[1] == SERVER.parent
