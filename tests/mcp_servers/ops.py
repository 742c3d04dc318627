"""A tool server for the tests: tools that answer, hang, flood, fail and crash.

``python ops.py`` serves over stdio, speaking MCP's JSON-RPC itself: it starts in about 40 ms
where the SDK's server takes 0.7 s of CPU, and the tests start dozens. Its answers have the
shape FastMCP gives them (the same schemas, ``structuredContent``, error texts), so the
client under test, the real SDK's, meets what it meets from a real server; the SDK's own server
is under test with the shipped example (``tests/cli/test_mcp_example_server.py``).
``python ops.py --http PORT`` serves the same tools with the SDK's FastMCP over Streamable HTTP
on 127.0.0.1:PORT (path ``/mcp``).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, get_type_hints

Tool = Callable[..., Any]
TOOLS: dict[str, Tool] = {}


def tool(function: Tool) -> Tool:
    """Serve ``function`` as a tool of its name."""
    TOOLS[function.__name__] = function
    return function


@tool
def search_logs(pattern: str, since: str = "1h", limit: int = 10) -> str:
    """Search the service's logs for a pattern over a time range; read-only."""
    return f"3 lines match {pattern!r} since {since} (limit {limit}):\nERROR timeout upstream"


@tool
def restart_service(service: str) -> str:
    """Restart a service (changes state)."""
    return f"restarted {service}"


@tool
def delete_all() -> str:
    """Delete every log file. Never allowed in the tests' settings."""
    return "deleted everything"


@tool
async def hang(seconds: float = 600.0) -> str:
    """Sleep far longer than any timeout (the server itself stays responsive)."""
    await asyncio.sleep(seconds)
    return "woke up"


@tool
def flood(size: int = 1_000_000) -> str:
    """Return ``size`` characters."""
    return "x" * size


@tool
def broken() -> str:
    """Raise: the server reports an error result."""
    raise RuntimeError("the index is unavailable")


@tool
def crash() -> str:
    """Exit the server process mid-call."""
    os._exit(3)


JSON_TYPES = {str: "string", int: "integer", float: "number"}


def listing(name: str, function: Tool) -> dict[str, Any]:
    """The tool as FastMCP lists it: arguments and output as pydantic's JSON schemas."""
    hints = get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in inspect.signature(function).parameters.values():
        field: dict[str, Any] = {"title": parameter.name.title()}
        field["type"] = JSON_TYPES[hints[parameter.name]]
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
        else:
            field["default"] = parameter.default
        properties[parameter.name] = field
    arguments: dict[str, Any] = {"properties": properties}
    if required:
        arguments["required"] = required
    arguments |= {"title": f"{name}Arguments", "type": "object"}
    result = {"result": {"title": "Result", "type": "string"}}
    output = {"properties": result, "required": ["result"], "title": f"{name}Output"}
    return {
        "name": name,
        "description": inspect.getdoc(function),
        "inputSchema": arguments,
        "outputSchema": output | {"type": "object"},
    }


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A ``tools/call`` result, as FastMCP words its errors."""
    function = TOOLS.get(name)
    if function is None:
        return failed(f"Unknown tool: {name}")
    try:
        answer = function(**arguments)
        if inspect.iscoroutine(answer):
            answer = asyncio.run(answer)
    except Exception as error:
        return failed(f"Error executing tool {name}: {error}")
    text = str(answer)
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"result": text},
        "isError": False,
    }


def failed(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


class StdioServer:
    """Newline-delimited JSON-RPC on stdin and stdout; each tool call in a thread of its own,
    so a call that hangs leaves the server answering. Each request is logged to stderr."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._out = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False) + "\n"
        with self._out:
            sys.stdout.buffer.write(line.encode())
            sys.stdout.buffer.flush()

    def answer(self, ident: object, method: str, params: dict[str, Any]) -> None:
        # As FastMCP logs each request: a server's stderr is busy, and never the client's.
        print(f"INFO     Processing request of type {method}", file=sys.stderr, flush=True)
        if method == "initialize":
            self.send({"id": ident, "result": self.initialized(params)})
        elif method == "tools/list":
            tools = [listing(name, function) for name, function in TOOLS.items()]
            self.send({"id": ident, "result": {"tools": tools}})
        elif method == "tools/call":
            request = (ident, params["name"], params.get("arguments") or {})
            threading.Thread(target=self.call, args=request, daemon=True).start()
        elif method == "ping":
            self.send({"id": ident, "result": {}})
        else:
            self.send({"id": ident, "error": {"code": -32601, "message": "Method not found"}})

    def call(self, ident: object, name: str, arguments: dict[str, Any]) -> None:
        self.send({"id": ident, "result": call(name, arguments)})

    def initialized(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.name, "version": "1.0"},
        }

    def run(self) -> None:
        for line in sys.stdin.buffer:
            message = json.loads(line)
            if "method" in message and "id" in message:
                self.answer(message["id"], message["method"], message.get("params") or {})
        if os.environ.get("OPS_OUTLIVES_STDIN"):  # as a server busy in a call does
            threading.Event().wait()
        os._exit(0)  # stdin closed: the client is gone; a hanging call's thread ends with us


def serve_http(port: int) -> None:
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("ops")
    for function in TOOLS.values():
        server.tool()(function)
    server.settings.host = "127.0.0.1"
    server.settings.port = port
    server.run(transport="streamable-http")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    if args.http:
        serve_http(args.http)
    else:
        StdioServer("ops").run()
