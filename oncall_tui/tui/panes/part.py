"""What the main screen's parts share: the services, and a status line that says their outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oncall_tui.tui.service_calls import ServiceCalls

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from oncall_tui.services.container import Services
    from oncall_tui.tui.widgets.status_line import StatusLine


class StatusPart:
    """A part of the main screen's work, done on behalf of ``host`` (the widget it serves): its
    service calls run in ``host``'s workers, and their catalog errors and faults are said on
    ``status``."""

    def __init__(self, services: Services, host: DOMNode, status: StatusLine) -> None:
        self._services = services
        self._status = status
        self._calls = ServiceCalls(host, status.report, status.show_fault)
