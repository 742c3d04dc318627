"""A stdio tool server that breaks the transport's rule: lines that are not MCP messages on its
standard output, as a wrapper script's banner or a library logging to stdout would write.

``python noisy.py --banner N`` writes N such lines, then serves the tools of ``ops.py`` and
``chatty`` (which writes one more such line, mid-session, before it answers); ``--exit``
ends after the banner without serving; ``--binary`` makes the banner bytes that are not
UTF-8.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.*

from tests.mcp_servers.ops import StdioServer, tool


@tool
def chatty() -> str:
    """Write a stray line to stdout, then answer."""
    os.write(1, b"debug: chatty was called\n")
    return "chatty answered"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--banner", type=int, default=50)
    parser.add_argument("--exit", action="store_true")
    parser.add_argument("--binary", action="store_true")
    args = parser.parse_args()
    for number in range(args.banner):
        line = b"\xff\xfe banner\n" if args.binary else f"starting up: step {number}\n".encode()
        os.write(1, line)
    if not args.exit:
        StdioServer("noisy").run()
