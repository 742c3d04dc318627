"""Three small incidents for the real tool-calling model, and how a run of one is read.

Each incident is a directory under ``incidents/``: ``logs/`` (served, read-only, by the
example log-search tool server, ``examples/mcp/log_search.py``), ``SKILL.md`` (the runbook,
a skill the app's validator accepts) and ``incident.toml``: the runbook's skill name, the
question an engineer would ask, and the key facts of the root cause, each with the words
that name it (``any``: lower-case substrings; one is enough).

Shared by ``tests/real_model/test_real_triage.py`` (what the app does: tool calls, gauge,
nothing withheld) and ``bench/real_triage.py`` (what the answers name, and how fast).
Standard library only.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
INCIDENTS = Path(__file__).resolve().parent / "incidents"
LOG_SERVER = REPO / "examples" / "mcp" / "log_search.py"
SERVER_NAME = "logs"
"""The tool server's name in the settings file: its tool is shown as ``logs.search_logs``."""
QWEN_NAME = "qwen2.5-coder-1.5b-instruct"
"""Qwen2.5-Coder's name on the server (its alias)."""
ASK_FOR_TOOLS = " Read the runbook with load_skill, then search the logs."
"""Said after the question in the run with tools, as an engineer asking for it would. Worded
for the model: asked only to "load the runbook", Qwen2.5-Coder-1.5B sometimes lists the tools
with their schemas as arguments, which is no call; naming ``load_skill`` it writes the calls."""


@dataclass(frozen=True, slots=True)
class Fact:
    fact: str
    any: tuple[str, ...]

    def named_in(self, answer: str) -> bool:
        text = answer.lower()
        return any(word in text for word in self.any)


@dataclass(frozen=True, slots=True)
class Incident:
    name: str
    directory: Path
    skill: str
    question: str
    facts: tuple[Fact, ...]

    @property
    def logs(self) -> Path:
        return self.directory / "logs"

    @property
    def skill_file(self) -> Path:
        return self.directory / "SKILL.md"

    def pasted_logs(self) -> str:
        """Every log file, as an engineer pastes them: a header line per file, then its lines."""
        parts = []
        for path in sorted(self.logs.rglob("*.log")):
            name = path.relative_to(self.logs).as_posix()
            parts.append(f"==> {name} <==\n{path.read_text('utf-8').rstrip()}\n")
        return "\n".join(parts)

    def question_with_logs(self) -> str:
        """The question with no tools: the logs pasted under it."""
        return f"{self.question}\nThe logs:\n\n{self.pasted_logs()}"

    def named(self, answer: str) -> list[Fact]:
        return [fact for fact in self.facts if fact.named_in(answer)]


def incidents() -> list[Incident]:
    found = []
    for directory in sorted(p for p in INCIDENTS.iterdir() if p.is_dir()):
        document = tomllib.loads((directory / "incident.toml").read_text("utf-8"))
        facts = tuple(
            Fact(str(f["fact"]), tuple(str(w).lower() for w in f["any"])) for f in document["facts"]
        )
        found.append(
            Incident(directory.name, directory, str(document["skill"]), document["question"], facts)
        )
    return found


def settings_file(python: str, logs: Path) -> str:
    """A settings file that registers the log-search server over ``logs`` (its only tool
    allowed, asking nothing first)."""
    args = [str(LOG_SERVER), "--root", str(logs)]
    return (
        f"[[{'mcp_servers'}]]\n"
        f'name = "{SERVER_NAME}"\n'
        f"command = {json.dumps(python)}\n"
        f"args = {json.dumps(args)}\n"
        'allow = ["search_logs"]\n'
        "confirm = []\n"
    )


def events(out: str) -> list[dict[str, Any]]:
    """The ``chat --json`` output, one event per line."""
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def final_answer(stream: Sequence[Mapping[str, Any]]) -> str:
    """The text the model wrote after the turn's last tool result: its answer."""
    last = max((i for i, e in enumerate(stream) if e["type"] == "tool_end"), default=-1)
    return "".join(str(e["text"]) for e in stream[last + 1 :] if e["type"] == "token")


def tool_calls(stream: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [e for e in stream if e["type"] == "tool_start"]


def offered_tools(bodies: Iterable[bytes]) -> dict[str, Mapping[str, Any]]:
    """The tools the requests offered the model (name -> JSON schema of its arguments), read
    from the chat requests' bodies as the server received them."""
    offered: dict[str, Mapping[str, Any]] = {}
    for body in bodies:
        for tool in json.loads(body).get("tools", []):
            function = tool["function"]
            offered[function["name"]] = function.get("parameters", {})
    return offered


def schema_problems(
    value: object, schema: Mapping[str, Any], where: str = "arguments"
) -> list[str]:
    """What in ``value`` does not fit ``schema``: the JSON Schema words the tools here use
    (``type``, ``properties``, ``required``, ``additionalProperties``, ``anyOf``, ``enum``,
    ``minimum``, ``maximum``, ``items``). Stricter than JSON Schema in one way, as tool calls
    are read: an argument that is not among the declared ``properties`` is no parameter of the
    tool, even without ``additionalProperties: false``. An empty list: it fits."""
    if "anyOf" in schema:
        options = [schema_problems(value, option, where) for option in schema["anyOf"]]
        return [] if any(not o for o in options) else [f"{where}: fits no anyOf option"]
    problems: list[str] = []
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        return [f"{where}: {value!r} is not {kind}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{where}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{where}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{where}: {name} is missing")
        for name, item in value.items():
            if name in properties:
                problems.extend(schema_problems(item, properties[name], f"{where}.{name}"))
            elif "properties" in schema or schema.get("additionalProperties") is False:
                problems.append(f"{where}: {name} is not a parameter")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems.extend(schema_problems(item, schema["items"], f"{where}[{index}]"))
    return problems


def _is_type(value: object, kind: str | list[str]) -> bool:
    if isinstance(kind, list):
        return any(_is_type(value, k) for k in kind)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    types: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "boolean": bool,
        "object": dict,
        "array": list,
        "null": type(None),
    }
    expected = types.get(kind)
    return expected is None or isinstance(value, expected)
