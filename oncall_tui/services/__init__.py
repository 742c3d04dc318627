"""Use cases: the product API that the TUI and the headless CLI are thin clients of."""
