"""What the tool schemas cost in a request, and what they leave of an 8k and a 4k window.

Takes the tools a request offers as the app binds them: the built-in ``get_current_time`` and
``load_skill`` (``oncall_tui/llm/tool_specs.py``), and the tools of the example server
``examples/mcp/log_search.py`` (started over stdio on its sample logs, through the app's own
``McpTools``, so ``search_logs`` is the model's ``logs__search_logs`` exactly as bound). A
server's tool is shown twice: as the server offers it (the adapters' schema, before the app
makes it the model's) and as bound.

For each schema, the characters of its JSON text and its tokens: the app's estimate
(``oncall_tui/llm/tokens.py``, the figure the 95% rule and the gauge use) and, when the
``quicktok-v1`` package is installed, the exact Llama-3 and Qwen3 counts of the same text (the
package is optional, as for ``bench/token_accuracy.py --recount``). The ``ollama`` column is
the estimate of the form the ``ollama`` client puts on the wire (it keeps only ``type``,
``items``, ``description`` and ``enum`` of each parameter). A request with tools also pays the
chat template's instructions for them, which the estimate puts at a fixed
``TOOLS_OVERHEAD_TOKENS``.

Then, for an 8,192- and a 4,096-token window, what the tools take of it and what is left for
the history under the 95% rule, beside the default system prompt (with the selected skill's
catalog line when ``load_skill`` is offered). Prints figures; asserts nothing.

    python bench/tool_cost.py [--windows 8192 4096]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ollama  # noqa: E402
from langchain_core.tools import BaseTool, StructuredTool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langchain_mcp_adapters.tools import load_mcp_tools  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from oncall_tui.core.memory import ContextBudget  # noqa: E402
from oncall_tui.core.prompts import DEFAULT_PROMPT_CONTENT, build_chat_system_prompt  # noqa: E402
from oncall_tui.core.skills import SkillCatalogEntry, validate_skill_upload  # noqa: E402
from oncall_tui.llm.mcp import McpTools  # noqa: E402
from oncall_tui.llm.mcp_calls import model_name  # noqa: E402
from oncall_tui.llm.tokens import (  # noqa: E402
    TOOLS_OVERHEAD_TOKENS,
    estimate_tokens,
    message_tokens,
    tool_schema_tokens,
)
from oncall_tui.llm.tool_specs import ToolSchema, tool_schemas  # noqa: E402
from oncall_tui.settings.mcp import McpServer  # noqa: E402

EXAMPLE = ROOT / "examples" / "mcp" / "log_search.py"
SAMPLE_LOGS = ROOT / "examples" / "mcp" / "sample-logs"
SKILL = ROOT / "skills-examples" / "log-analysis" / "SKILL.md"
SERVER = "logs"
FAMILIES = ("llama3", "qwen3")
WINDOWS = (8192, 4096)
LEGEND = """
window: the model's context window; 95%: the most a request may hold (the 95% rule);
tools: the schemas and the template's instructions for them; share: of the window;
system: the system prompt (the default prompt, with the selected skill's catalog line when
load_skill is offered); history: what is left for the messages. All estimates."""


def example_server() -> McpServer:
    """The example server as a settings file registers it, allowing every tool it offers."""
    return McpServer(
        name=SERVER,
        command=sys.executable,
        args=(str(EXAMPLE), "--root", str(SAMPLE_LOGS)),
        allow=("search_logs",),
    )


def bound_schemas(server: McpServer) -> tuple[ToolSchema, ...]:
    """The server's allowed tools' schemas as the app binds them (the app's own runtime)."""
    runtime = McpTools([server], timeout=30.0, result_chars=20_000)
    try:
        runtime.start()
        for state in runtime.states():
            if state.state != "ready":
                sys.exit(f"the example server did not start: {state.error}")
        return runtime.schemas()
    finally:
        runtime.close()


async def _offered(server: McpServer) -> list[BaseTool]:
    assert server.command is not None
    parameters = StdioServerParameters(command=server.command, args=list(server.args))
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await load_mcp_tools(session, server_name=server.name)


def offered_schemas(server: McpServer) -> tuple[ToolSchema, ...]:
    """The same tools as the server offers them: the adapters' description and parameters
    under the model's name, before the app makes them the model's."""
    adapters = {tool.name: tool for tool in asyncio.run(_offered(server))}
    schemas: list[ToolSchema] = []
    for name in server.allow:
        adapter = adapters[name]
        plain = StructuredTool(
            name=model_name(server.name, name),
            description=adapter.description,
            args_schema=adapter.args_schema,
        )
        schemas.append(convert_to_openai_tool(plain))
    return tuple(schemas)


def ollama_form(schema: ToolSchema) -> dict[str, Any]:
    """What the ``ollama`` client sends of a schema (its ``Tool`` model, ``None`` left out)."""
    return ollama.Tool.model_validate(dict(schema)).model_dump(exclude_none=True)


class Exact:
    """Exact token counts of text, when ``quicktok-v1`` is installed."""

    def __init__(self) -> None:
        try:
            quicktok: Any = importlib.import_module("quicktok")  # optional, untyped
        except ModuleNotFoundError:
            self.encodings: dict[str, Any] = {}
        else:
            self.encodings = {family: quicktok.get_encoding(family) for family in FAMILIES}

    @property
    def available(self) -> bool:
        return bool(self.encodings)

    def counts(self, text: str) -> list[int | None]:
        if not self.encodings:
            return [None for _ in FAMILIES]
        return [
            len(self.encodings[family].encode(text, disallowed_special=())) for family in FAMILIES
        ]


@dataclass(frozen=True)
class Row:
    label: str
    schema: Mapping[str, Any]

    @property
    def text(self) -> str:
        return json.dumps(self.schema, ensure_ascii=False)  # as the estimate reads it


def number(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def print_tools(rows: Sequence[Row], exact: Exact) -> None:
    head = "".join(f"{family:>8}" for family in FAMILIES)
    print(f"{'tool schema':34}{'chars':>7}{'estimate':>10}{head}{'ollama':>8}")
    for row in rows:
        exact_counts = "".join(f"{number(n):>8}" for n in exact.counts(row.text))
        wire = tool_schema_tokens(ollama_form(row.schema))
        print(
            f"{row.label:34}{len(row.text):>7,}{tool_schema_tokens(row.schema):>10,}"
            f"{exact_counts}{wire:>8,}"
        )
    print(f"{'tool instructions (fixed estimate)':34}{'':>7}{TOOLS_OVERHEAD_TOKENS:>10,}")


def tools_cost(schemas: Sequence[ToolSchema]) -> int:
    """What offering ``schemas`` adds to a request's estimate."""
    return estimate_tokens("", [], schemas) - estimate_tokens("", [])


def print_windows(
    scenarios: Sequence[tuple[str, Sequence[ToolSchema], str]], windows: Sequence[int]
) -> None:
    print(
        f"\n{'tools offered':34}{'window':>8}{'95%':>7}{'tools':>7}{'share':>7}"
        f"{'system':>8}{'history':>9}"
    )
    for label, schemas, system_prompt in scenarios:
        tools = tools_cost(schemas)
        system = message_tokens(system_prompt)
        for window in windows:
            budget = ContextBudget(window).limit_tokens
            left = budget - estimate_tokens(system_prompt, [], schemas)
            print(
                f"{label:34}{window:>8,}{budget:>7,}{tools:>7,}{100 * tools / window:>6.1f}%"
                f"{system:>8,}{left:>9,}"
            )
            label = ""
    print(LEGEND)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--windows", type=int, nargs="+", default=list(WINDOWS), help="context windows, tokens"
    )
    args = parser.parse_args()

    server = example_server()
    bound = bound_schemas(server)
    offered = offered_schemas(server)
    clock, load_skill = tool_schemas(skills_selected=True)
    rows = [
        Row("get_current_time", clock),
        Row("load_skill", load_skill),
        *(Row(f"{s['function']['name']} (offered)", s) for s in offered),
        *(Row(f"{s['function']['name']} (bound)", s) for s in bound),
    ]
    exact = Exact()
    note = "" if exact.available else " (exact counts: pip install quicktok-v1)"
    print(f"Tool schemas: tokens of their JSON text, as the estimate reads it{note}\n")
    print_tools(rows, exact)

    skill = validate_skill_upload(SKILL.name, SKILL.read_bytes())
    catalog = [SkillCatalogEntry(skill.name, skill.description)]
    plain = build_chat_system_prompt(DEFAULT_PROMPT_CONTENT)
    with_skill = build_chat_system_prompt(DEFAULT_PROMPT_CONTENT, catalog)
    scenarios = [
        ("get_current_time", (clock,), plain),
        ("+ load_skill", (clock, load_skill), with_skill),
        ("+ load_skill + search_logs", (clock, load_skill, *bound), with_skill),
        ("  (search_logs as offered)", (clock, load_skill, *offered), with_skill),
    ]
    print_windows(scenarios, args.windows)


if __name__ == "__main__":
    main()
