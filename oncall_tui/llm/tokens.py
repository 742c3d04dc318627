"""Fast token estimates for the context gauge and the memory thresholds.

The base is LangChain's ``count_tokens_approximately`` (about four characters per token plus
a per-message overhead). That undercounts Chinese, Japanese and Korean badly: tokenizers
spend roughly one token per ideograph or syllable, not a quarter. So each CJK character is
topped up to one token. Tool schemas are measured once per tool object and cached, because
the estimate runs on every send over the whole history.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence

from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.tools import BaseTool

CHARS_PER_TOKEN = 4.0
_CJK_TOP_UP = 1.0 - 1.0 / CHARS_PER_TOKEN
"""What a CJK character is missing after the base counted it as a quarter token."""

_CJK = re.compile(
    "["
    "\u1100-\u11ff"  # Hangul Jamo
    "\u2e80-\u2fdf"  # CJK radicals, Kangxi radicals
    "\u3000-\u303f"  # CJK symbols and punctuation
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u31ff"  # Bopomofo, Hangul compatibility Jamo, Kanbun, Katakana extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff00-\uffef"  # half- and full-width forms
    "\U00020000-\U0003134f"  # CJK extensions B..G
    "]"
)

_TOOL_CACHE_SIZE = 256
_tool_tokens: dict[tuple[str, str, object], int] = {}


def cjk_characters(text: str) -> int:
    """How many characters of ``text`` are CJK ideographs, kana, Hangul or CJK punctuation."""
    if text.isascii():
        return 0
    return len(text) - len(_CJK.sub("", text))


def estimate_text_tokens(text: str) -> int:
    """Tokens for one bare string (no message overhead)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN + cjk_characters(text) * _CJK_TOP_UP)


def estimate_tokens(
    system_prompt: str,
    messages: Sequence[tuple[str, str]],
    tools: Sequence[BaseTool] = (),
) -> int:
    """Tokens of a whole request: system prompt, ``(role, content)`` messages, tool schemas.

    Monotonic in every text's length; never below LangChain's own approximation.
    """
    conversation: list[tuple[str, str]] = [("system", system_prompt), *messages]
    base = count_tokens_approximately(conversation, chars_per_token=CHARS_PER_TOKEN)
    cjk = cjk_characters(system_prompt) + sum(cjk_characters(content) for _, content in messages)
    return base + math.ceil(cjk * _CJK_TOP_UP) + sum(tool_schema_tokens(t) for t in tools)


def tool_schema_tokens(tool: BaseTool) -> int:
    """Tokens the tool's schema (name, description, parameters) adds.

    Cached by what the schema is made of, so a tool rebuilt for every request (``load_skill``)
    is measured once, not per estimate.
    """
    key = _schema_key(tool)
    tokens = _tool_tokens.get(key)
    if tokens is None:
        tokens = count_tokens_approximately([], chars_per_token=CHARS_PER_TOKEN, tools=[tool])
        tokens += math.ceil(cjk_characters(tool.description) * _CJK_TOP_UP)
        if len(_tool_tokens) >= _TOOL_CACHE_SIZE:
            _tool_tokens.clear()
        _tool_tokens[key] = tokens
    return tokens


def _schema_key(tool: BaseTool) -> tuple[str, str, object]:
    schema = tool.args_schema
    if isinstance(schema, dict):
        return tool.name, tool.description, json.dumps(schema, sort_keys=True)
    return tool.name, tool.description, schema
