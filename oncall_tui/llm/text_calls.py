"""Tool calls a model wrote as text, found in its reply.

Small and mid-size local models often write a call instead of making it: a JSON object
(bare or fenced, one or a list), Hermes/Qwen ``<tool_call>…</tool_call>``, Mistral
``[TOOL_CALLS]``, Llama 3.1 ``<|python_tag|>``, or ``name(arg=value, …)``. :func:`find_calls`
reads one reply for calls to the tools bound in its turn, and nothing else: a name that is not
bound, arguments that do not fit the tool's schema (after coercing obvious types: ``"40"`` for
an integer), or text that is no call leaves the reply as it was. Bare forms (JSON, ``name(…)``)
count only at the start of a line, so a sentence that mentions a call is not one.

Plain data in, plain data out; no LangChain here: :mod:`oncall_tui.llm.recovery` applies it to
a model call, :mod:`oncall_tui.llm.call_hold` keeps the call's text off the screen meanwhile.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from oncall_tui.llm.call_arguments import conform, positional_names

TAGS: tuple[tuple[str, str | None], ...] = (
    ("<tool_call>", "</tool_call>"),
    ("[TOOL_CALLS]", None),  # to the end of the reply
    ("<|python_tag|>", None),
)
"""Openers of the tagged forms, and what closes each (``None``: the end of the reply)."""
LLAMA_ENDS = ("<|eom_id|>", "<|eot_id|>")
FENCE = "```"
_FENCED = re.compile(r"```[\w+-]*[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)
_IDENTIFIER = re.compile(r"`?([A-Za-z_][\w.-]*)\(")
_MISTRAL_ARGS = re.compile(r"\s*([A-Za-z_][\w.-]*)\[ARGS\]")
CALL_KEYS = frozenset({"name", "arguments", "parameters", "type", "id"})
"""The keys of a call written as a JSON object (``name`` and what may stand beside it)."""


@dataclass(frozen=True, slots=True)
class BoundTool:
    """A tool as this turn binds it: the name the model was given, the name people see
    (``logs.search_logs``; the model's name for built-in tools) and its JSON schema."""

    name: str
    parameters: Mapping[str, Any]
    shown: str = ""


@dataclass(frozen=True, slots=True)
class FoundCall:
    """A call found in a reply: the bound tool's name, the arguments as the schema wants
    them, and the text that wrote the call (fence or tags included), as it stands in the
    reply."""

    name: str
    arguments: dict[str, Any]
    text: str


@dataclass(frozen=True)
class Tools:
    """The tools bound in a turn, and every name the model may use for each: the exact
    name, the shown one (``logs.search_logs``), and the bare tool name (``search_logs``)
    where only one server offers it."""

    bound: Sequence[BoundTool]
    names: dict[str, BoundTool] = field(init=False)

    def __post_init__(self) -> None:
        names: dict[str, BoundTool] = {}
        bare: dict[str, list[BoundTool]] = {}
        for tool in self.bound:
            names[tool.name] = tool
            if tool.shown and tool.shown != tool.name:
                names.setdefault(tool.shown, tool)
                bare.setdefault(tool.shown.rsplit(".", 1)[-1], []).append(tool)
        for name, tools in bare.items():
            if len(tools) == 1:
                names.setdefault(name, tools[0])
        object.__setattr__(self, "names", names)

    def tool(self, name: object) -> BoundTool | None:
        if not isinstance(name, str):
            return None
        name = name.strip().strip("`")
        found = self.names.get(name)
        if found is None and name.endswith(".call"):  # Llama 3.1's built-in call form
            found = self.names.get(name.removesuffix(".call"))
        return found

    def starts_call(self, text: str) -> bool:
        """Does ``text`` (a line's start) begin ``name(`` for a bound tool?"""
        match = _IDENTIFIER.match(text)
        return match is not None and self.tool(match.group(1)) is not None


def find_calls(reply: str, tools: Tools) -> list[FoundCall]:
    """The calls to bound tools that ``reply`` writes as text, in order. All or nothing per
    written call: a list in which one call is wrong yields none of it."""
    if not tools.bound:
        return []
    found: list[FoundCall] = []
    for start, end, body in _segments(reply, tools):
        calls = parse_body(body, tools)
        if calls:
            found.extend(FoundCall(c.name, c.arguments, reply[start:end]) for c in calls)
    return found


def only_a_call(reply: str) -> bool:
    """Whether the whole of ``reply`` is a call written as text, to any tool: tagged, or a
    JSON object with a ``name`` (bare, fenced, or a list of them). A reply asked for prose (a
    summary, with no tools bound) that is only this holds none: the model imitated the calls
    in what it was given."""
    body = reply.strip()
    if any(body.startswith(opener) for opener, _ in TAGS):
        return True
    fenced = _FENCED.fullmatch(body)
    if fenced is not None:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except ValueError:
        return False
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(_call_shaped(item) for item in items)


def _call_shaped(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    item: dict[str, Any] = value
    if isinstance(item.get("function"), dict):  # the OpenAI API's own shape
        item = item["function"]
    return {"name"} <= item.keys() <= CALL_KEYS


def without_calls(reply: str, texts: Sequence[str]) -> str:
    """``reply`` with the ``texts`` of its calls taken out, and what follows the last one (a
    model that writes a call goes on to guess its result: it has not seen one)."""
    ends = [reply.rfind(text) + len(text) for text in texts if text in reply]
    if ends:
        reply = reply[: max(ends)]
    for text in texts:
        reply = reply.replace(text, "", 1)
    return reply


def segment_end(text: str, start: int, tools: Tools) -> tuple[int, str] | None:
    """Where the candidate beginning at ``start`` (an opener) ends, and its body; ``None``
    while it is still open (more text may close it)."""
    for opener, closer in TAGS:
        if text.startswith(opener, start):
            body_start = start + len(opener)
            if closer is None:
                return None  # to the end of the reply
            end = text.find(closer, body_start)
            return None if end < 0 else (end + len(closer), text[body_start:end])
    if text.startswith(FENCE, start):
        match = _FENCED.match(text, start)
        return None if match is None else (match.end(), match.group(1))
    first = text[start]
    if first in "{[":
        bracket = _balanced(text, start, first, "}" if first == "{" else "]")
        return None if bracket is None else (bracket, text[start:bracket])
    paren = text.find("(", start)
    closed = _balanced(text, paren, "(", ")") if paren >= 0 else None
    if closed is None:
        return None
    return closed + (text[closed : closed + 1] == "`"), text[start:closed]


def opener_at(text: str, start: int, tools: Tools, *, line_start: bool) -> bool | None:
    """Whether a candidate call begins at ``start``: ``True``, ``False``, or ``None`` when the
    text so far could still become one (``<tool_`` at the end of what has arrived)."""
    rest = text[start:]
    for opener in (*(tag for tag, _ in TAGS), FENCE):
        if rest.startswith(opener):
            return opener != FENCE or line_start
        if opener.startswith(rest):
            return None
    if not line_start:
        return False
    if rest[:1] in ("{", "["):
        return True
    if tools.starts_call(rest):
        return True
    word = re.match(r"`?[\w.-]*$", rest)
    if word is not None and any(name.startswith(rest.lstrip("`")) for name in tools.names):
        return None  # a bound name may be on its way
    return False


def _segments(reply: str, tools: Tools) -> Iterator[tuple[int, int, str]]:
    """The candidate calls of a whole reply: ``(start, end, body)``, not overlapping."""
    index = 0
    while index < len(reply):
        start = _next_opener(reply, index, tools)
        if start is None:
            return
        closed = segment_end(reply, start, tools)
        if closed is None:  # open to the end: the tagged forms, or an unclosed one
            end, body = len(reply), reply[start:]
            for opener, _ in TAGS:
                if body.startswith(opener):
                    body = body[len(opener) :]
            for marker in LLAMA_ENDS:
                body = body.split(marker, 1)[0]
            yield start, end, body
            return
        end, body = closed
        if _is_bare(reply, start) and reply[end:].split("\n", 1)[0].strip(" \t`"):
            index = start + 1  # a sentence that begins with a call's text: prose
            continue
        yield start, end, body
        index = end


def _is_bare(text: str, start: int) -> bool:
    """Is the candidate at ``start`` neither tagged nor fenced (JSON or ``name(…)``)?"""
    return not any(text.startswith(opener, start) for opener in (*(t for t, _ in TAGS), FENCE))


def _next_opener(text: str, index: int, tools: Tools) -> int | None:
    """The first position from ``index`` where a candidate call begins."""
    position = index
    while position < len(text):
        line_start = position == 0 or text[position - 1] == "\n"
        if line_start:
            indent = len(text[position:]) - len(text[position:].lstrip(" \t"))
            position += indent
        if opener_at(text, position, tools, line_start=line_start) and (
            segment_end(text, position, tools) is not None or _open_ended(text, position)
        ):
            return position
        position += 1
    return None


def _open_ended(text: str, start: int) -> bool:
    return any(text.startswith(tag, start) for tag, _ in TAGS)


def parse_body(body: str, tools: Tools) -> list[FoundCall]:
    """The calls one candidate's body writes (JSON, or ``name(…)`` lines); ``[]`` unless every
    call in it names a bound tool with arguments that fit."""
    body = body.strip()
    if not body:
        return []
    mistral = _mistral_calls(body, tools)
    if mistral is not None:
        return mistral
    try:
        value = json.loads(body)
    except ValueError:
        return _python_calls(body, tools)
    items = value if isinstance(value, list) else [value]
    calls = [_json_call(item, tools) for item in items]
    return [c for c in calls if c is not None] if calls and None not in calls else []


def _json_call(value: object, tools: Tools) -> FoundCall | None:
    if not isinstance(value, dict):
        return None
    item: dict[str, Any] = value
    if isinstance(item.get("function"), dict):  # the OpenAI API's own shape
        item = item["function"]
    if not {"name"} <= item.keys() <= CALL_KEYS:
        return None
    tool = tools.tool(item["name"])
    if tool is None:
        return None
    arguments = item.get("arguments", item.get("parameters", {}))
    fitted = conform(arguments, tool.parameters)
    if fitted is None and _schema_shaped(arguments):  # the values written into the schema
        fitted = conform(arguments["properties"], tool.parameters)
    return None if fitted is None else FoundCall(tool.name, fitted, "")


def _schema_shaped(arguments: object) -> bool:
    """``{"properties": {...}, "required": [...], "type": "object"}``: a small model that
    copies the tool's schema and writes its values where the properties' specs stood."""
    return (
        isinstance(arguments, dict)
        and isinstance(arguments.get("properties"), dict)
        and set(arguments) <= {"properties", "required", "type"}
    )


def _mistral_calls(body: str, tools: Tools) -> list[FoundCall] | None:
    """Mistral's newer form, ``name[ARGS]{…}`` (repeated); ``None`` when the body is not in it."""
    if "[ARGS]" not in body:
        return None
    calls: list[FoundCall] = []
    position = 0
    decoder = json.JSONDecoder()
    while position < len(body):
        match = _MISTRAL_ARGS.match(body, position)
        if match is None:
            return [] if body[position:].strip() else calls
        tool = tools.tool(match.group(1))
        try:
            arguments, position = decoder.raw_decode(body, match.end())
        except ValueError:
            return []
        fitted = None if tool is None else conform(arguments, tool.parameters)
        if tool is None or fitted is None:
            return []
        calls.append(FoundCall(tool.name, fitted, ""))
        position += len(body[position:]) - len(body[position:].lstrip(" \t\n;"))
    return calls


def _python_calls(body: str, tools: Tools) -> list[FoundCall]:
    """``name(arg=value, …)`` calls, one per line or ``;``-separated."""
    try:
        tree = ast.parse(body.strip("`"), mode="exec")
    except SyntaxError:
        return []
    calls: list[FoundCall] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
            return []
        call = _python_call(statement.value, tools)
        if call is None:
            return []
        calls.append(call)
    return calls


def _python_call(node: ast.Call, tools: Tools) -> FoundCall | None:
    tool = tools.tool(_dotted(node.func))
    if tool is None:
        return None
    arguments: dict[str, Any] = {}
    try:
        for keyword in node.keywords:
            if keyword.arg is None:
                return None
            arguments[keyword.arg] = _literal(keyword.value)
        if node.args:
            names = positional_names(tool.parameters)
            if len(node.args) > len(names):
                return None
            for name, value in zip(names, node.args, strict=False):
                arguments[name] = _literal(value)
    except ValueError:
        return None
    fitted = conform(arguments, tool.parameters)
    return None if fitted is None else FoundCall(tool.name, fitted, "")


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


_JSON_WORDS = {"true": True, "false": False, "null": None}


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in _JSON_WORDS:
        return _JSON_WORDS[node.id]
    return ast.literal_eval(node)


def _balanced(text: str, start: int, open_: str, close: str) -> int | None:
    """The index after the bracket that closes the one at ``start`` (strings skipped), or
    ``None`` when it is not closed in ``text``."""
    depth = 0
    quote: str | None = None
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == open_:
            depth += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return index + 1
    return None
