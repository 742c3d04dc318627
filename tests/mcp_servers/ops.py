"""A tool server for the tests (FastMCP): tools that answer, hang, flood, fail and crash.

``python ops.py`` serves over stdio; ``python ops.py --http PORT`` serves Streamable HTTP on
127.0.0.1:PORT (path ``/mcp``). ``--name NAME`` changes the server's name only.
"""

from __future__ import annotations

import argparse
import os

import anyio
from mcp.server.fastmcp import FastMCP

server = FastMCP("ops")


@server.tool()
def search_logs(pattern: str, since: str = "1h", limit: int = 10) -> str:
    """Search the service's logs for a pattern over a time range; read-only."""
    return f"3 lines match {pattern!r} since {since} (limit {limit}):\nERROR timeout upstream"


@server.tool()
def restart_service(service: str) -> str:
    """Restart a service (changes state)."""
    return f"restarted {service}"


@server.tool()
def delete_all() -> str:
    """Delete every log file. Never allowed in the tests' settings."""
    return "deleted everything"


@server.tool()
async def hang(seconds: float = 600.0) -> str:
    """Sleep far longer than any timeout (the server itself stays responsive)."""
    await anyio.sleep(seconds)
    return "woke up"


@server.tool()
def flood(size: int = 1_000_000) -> str:
    """Return ``size`` characters."""
    return "x" * size


@server.tool()
def broken() -> str:
    """Raise: the server reports an error result."""
    raise RuntimeError("the index is unavailable")


@server.tool()
def crash() -> str:
    """Exit the server process mid-call."""
    os._exit(3)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    if args.http:
        server.settings.host = "127.0.0.1"
        server.settings.port = args.http
        server.run(transport="streamable-http")
    else:
        server.run()
