"""One tool server's tool as the model sees it: its name, the confirmation, the bounds.

The model sees ``server__tool`` (``logs__search_logs``): function names of the form
``[A-Za-z0-9_-]`` are what every tool-calling model and API accepts, where a dot is not.
People see ``server.tool`` (``logs.search_logs``): events, the audit and every client use it.

Every call of a wrapped tool, in order:

1. a ``confirm`` tool asks the turn's hook first (server, tool, arguments); a refusal, or no
   way to ask (no hook, or one that cannot ask), and the model is told which and nothing runs
   (audited ``declined``); the turn's confirm calls are asked, and run, one at a time, in the
   model's order;
2. the call runs on the servers' loop for at most the tool timeout; past it a stdio server is
   stopped (and started again for the next call), so that nothing it still had queued runs
   after the model was told the call failed; an HTTP server cannot be, and the model is told
   the call may still finish there;
3. a result past the size limit is cut, with ``[truncated: N of M characters]``;
4. an error of the server, a timeout or a crash is a failed result the model reads, and the
   turn goes on (audited ``error``).

The outcome travels in the tool message's ``artifact`` (never sent to the model), so the
agent reports it without parsing text.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.tools import BaseTool, StructuredTool

from oncall_tui.core.events import ConfirmHook, ToolConfirmation, ToolStatus

OUTCOME = "oncall_outcome"
"""The key of a server tool message's ``artifact`` that holds its status."""
SAID = "oncall_said"
"""The key of the artifact that holds what people are shown of the outcome (the model's text
names the tool again, which the line people read already does, and can push the reason out of
its width)."""
MODEL_NAME_LIMIT = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

DECLINED = "Not run: the user declined this call of {name}. Do not call it again for this."
NOT_ALLOWED = (
    "Not run: {name} asks the user before every call, and this run cannot ask (it is not "
    "allowed in this run). Tell the user what you wanted to call and why."
)
TIMED_OUT = "Failed: {name} did not answer within {seconds:g} s. {after}"
STOPPED_AFTER = "Its server was stopped, and is started again for the next call."
MAY_FINISH = "It may still finish on its server: check before calling it again."
FAILED = "Failed: {name}: {problem}"
TRUNCATED = "\n[truncated: {kept} of {total} characters]"


@dataclass(frozen=True, slots=True)
class ServerTool:
    """An allowed tool of a ready server, with the adapter that calls it."""

    server: str
    tool: str
    model_name: str
    confirm: bool
    adapter: BaseTool
    schema: Mapping[str, Any] = field(default_factory=dict)
    """The request's schema of the wrapped tool (what the estimate counts)."""

    @property
    def display_name(self) -> str:
        return f"{self.server}.{self.tool}"


def model_name(server: str, tool: str) -> str:
    """``server__tool`` with any other character made ``_``, at most 64 characters."""
    return _UNSAFE.sub("_", f"{server}__{tool}")[:MODEL_NAME_LIMIT]


class ServerStoppedError(TimeoutError):
    """A call did not answer within the tool timeout, and its server was stopped for it (a
    stdio server: what it still had queued, a confirmed call among them, must not run later,
    after the model was told the call failed)."""


class ToolRunner(Protocol):
    """What runs a server's tool: :class:`~oncall_tui.llm.mcp.McpTools`."""

    @property
    def timeout(self) -> float: ...

    @property
    def result_chars(self) -> int: ...

    async def call(self, tool: ServerTool, arguments: Mapping[str, Any]) -> Any: ...


def wrap_tool(
    tool: ServerTool,
    runtime: ToolRunner,
    confirm: ConfirmHook | None,
    asking: asyncio.Lock | None = None,
) -> BaseTool:
    """``tool`` as a LangChain tool for one turn, with the hook that turn was given.

    A ``confirm`` tool's calls of one turn hold ``asking`` (the turn's) from the question to
    the call's end: the model's calls run at once, and two questions were shown stacked, the
    later on top, and ran in the reverse of the model's order ("drain, then restart")."""
    name = tool.display_name

    async def run(**arguments: Any) -> tuple[str, dict[str, str]]:
        if not tool.confirm:
            return await call(arguments)
        async with asking or contextlib.nullcontext():
            request = ToolConfirmation(tool.server, tool.tool, dict(arguments))
            answer = None if confirm is None else await confirm(request)
            if answer is None:
                said = "it asks first, and this run cannot ask"
                return NOT_ALLOWED.format(name=name), _outcome(ToolStatus.DECLINED, said)
            if not answer:
                return DECLINED.format(name=name), _outcome(
                    ToolStatus.DECLINED, "declined by the user"
                )
            return await call(arguments)

    async def call(arguments: dict[str, Any]) -> tuple[str, dict[str, str]]:
        try:
            content = await runtime.call(tool, arguments)
        except TimeoutError as exc:
            after = STOPPED_AFTER if isinstance(exc, ServerStoppedError) else MAY_FINISH
            seconds = runtime.timeout
            text = TIMED_OUT.format(name=name, seconds=seconds, after=after)
            said = f"did not answer within {seconds:g} s. {after}"
            return text, _outcome(ToolStatus.ERROR, said)
        except Exception as exc:
            problem = " ".join(str(exc).split())[:500] or type(exc).__name__
            said = problem.removeprefix(f"Error executing tool {tool.tool}: ")  # FastMCP's
            return FAILED.format(name=name, problem=problem), _outcome(ToolStatus.ERROR, said)
        return truncate(as_text(content), runtime.result_chars), _outcome(ToolStatus.OK)

    return StructuredTool(
        name=tool.model_name,
        description=tool.adapter.description,
        args_schema=tool.adapter.args_schema,
        coroutine=run,
        response_format="content_and_artifact",
    )


def as_text(content: object) -> str:
    """A tool result as text: text blocks joined, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            else:
                parts.append(json.dumps(block, ensure_ascii=False, default=str))
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


def truncate(text: str, limit: int) -> str:
    """``text`` when at most ``limit`` characters, else its first ``limit`` and the note."""
    if len(text) <= limit:
        return text
    return text[:limit] + TRUNCATED.format(kept=f"{limit:,}", total=f"{len(text):,}")


def outcome_of(artifact: object, key: str = OUTCOME) -> str | None:
    """The status a server tool's message carries, if it is one (``key`` :data:`SAID`: what
    people are shown of it, if the call did not give a result)."""
    if isinstance(artifact, dict):
        value = artifact.get(key)
        return value if isinstance(value, str) else None
    return None


def _outcome(status: str, said: str | None = None) -> dict[str, str]:
    return {OUTCOME: status} if said is None else {OUTCOME: status, SAID: said}
