"""The Textual TUI: a thin client of the services, opened by ``oncall-tui`` with no subcommand."""
