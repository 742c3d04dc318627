"""The code blocks of a message, as the chat log draws them: fenced (```` ``` ````, ``~~~``)
and indented, in the order they appear. Copying one on its own is what an on-call engineer
wants from a reply most often: the command, not the prose around it."""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt


@dataclass(frozen=True, slots=True)
class CodeBlock:
    language: str
    """The fence's info word (``bash``), empty when it has none."""
    code: str
    """The block's text, without its fences, ending without a newline."""

    @property
    def first_line(self) -> str:
        return next((line for line in self.code.splitlines() if line.strip()), "")

    @property
    def line_count(self) -> int:
        return len(self.code.splitlines())


_parser = MarkdownIt("commonmark")


def code_blocks(markdown: str) -> list[CodeBlock]:
    """Every code block of ``markdown``; an unclosed fence (a reply cut off) runs to the end,
    as CommonMark reads it."""
    return [
        CodeBlock(token.info.strip().split(" ", 1)[0], token.content.rstrip("\n"))
        for token in _parser.parse(markdown)
        if token.type in ("fence", "code_block")
    ]
