"""Costly first uses, paid once in a thread at start-up instead of mid-reply on the event loop.

The first code fence in a language makes Pygments import its lexer module and compile a few
dozen regular expressions (40 ms for bash); the first Markdown makes Rich and markdown-it load
theirs, and builds the parser the chat log's documents share. Paid inside a streaming reply,
that is a visible stall; paid here, it overlaps the start.
"""

from __future__ import annotations

import io

WARM_LANGUAGES = ("bash", "console", "json", "yaml", "python", "sql")
"""What on-call answers are mostly written in; other languages load when first seen."""

SAMPLE = (
    "# Check\n\n- one `item`\n\n```bash\nkubectl get pods\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
)


def warm_up_rendering() -> None:
    from rich.console import Console

    from oncall_tui.tui.chat_log.rich_markdown import code_lexer, rich_markdown

    for language in WARM_LANGUAGES:
        code_lexer(language)  # the one the chat log uses; making it compiles the patterns
    Console(file=io.StringIO(), width=80, color_system="truecolor").print(rich_markdown(SAMPLE))
