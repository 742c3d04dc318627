"""oncall-tui: a terminal chat workbench for on-call engineers, on local Ollama models."""

__version__ = "0.1.0"
