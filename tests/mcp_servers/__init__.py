"""FastMCP servers the MCP tests start: over stdio (``python -m`` each module) or over
Streamable HTTP on 127.0.0.1 (``ops.py --http PORT``)."""
