"""Textual's stylesheets parsed once per test process, not once per app.

An app parses the CSS of every widget class it mounts when it starts (Textual caches the parse
in the app's own ``Stylesheet``): about 30 ms of the 0.25 s of CPU a Pilot test's app start
takes. The app runs once per process, so this costs users nothing; the test processes start
hundreds of apps. :func:`share_parsed_css` makes every ``Stylesheet`` of the process share one
cache of parsed rules, keyed as Textual keys its own cache plus the CSS variables the rules were
parsed with (the theme's). The rules are read, never changed, by the stylesheets that use them.
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

_parsed: dict[tuple[Any, ...], list[RuleSet]] = {}


def share_parsed_css() -> None:
    """Patch ``Stylesheet._parse_rules`` (Textual 8's name: ``tests/tui/test_parsed_css.py``
    fails if it moves or changes its use)."""
    parse = Stylesheet._parse_rules

    def parse_once(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (
            css,
            read_from,
            is_default_rules,
            tie_breaker,
            scope,
            *sorted(self._variables.items()),
        )
        rules = _parsed.get(key)
        if rules is None:
            rules = _parsed[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    Stylesheet._parse_rules = parse_once  # type: ignore[method-assign]
