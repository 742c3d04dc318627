"""The one way the TUI calls a service (tui/service_calls.py): the result comes back on the UI's
loop, a catalog error goes to the caller's sink, a bug is said and the app goes on; one flow at
a time, and Esc pressed meanwhile waits for its end."""

from __future__ import annotations

import asyncio
import gc
import threading
import warnings

from textual.app import App

from oncall_tui.errors import OncallError
from oncall_tui.tui.service_calls import ServiceCalls
from tests.tui.harness import notifications, wait_until


class CallsApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.reported: list[str] = []
        self.faults: list[str] = []
        self.bells = 0

    def bell(self) -> None:
        self.bells += 1


async def test_the_call_runs_off_the_loop_and_its_result_comes_back_on_it() -> None:
    app = CallsApp()
    async with app.run_test() as pilot:
        calls = ServiceCalls(app.screen, lambda e: app.reported.append(e.code))
        threads: list[str] = []
        results: list[tuple[int, str]] = []
        loop_thread = threading.current_thread().name

        def call() -> int:
            threads.append(threading.current_thread().name)
            return 42

        calls.start(call, lambda value: results.append((value, threading.current_thread().name)))
        await wait_until(pilot, lambda: bool(results))
        assert threads != [loop_thread]
        assert results == [(42, loop_thread)]
        assert app.reported == []


async def test_a_catalog_error_goes_to_the_sink_and_a_bug_is_said_as_unexpected() -> None:
    app = CallsApp()
    async with app.run_test() as pilot:
        calls = ServiceCalls(app.screen, lambda e: app.reported.append(e.code))
        shown: list[object] = []

        def refused() -> None:
            raise OncallError("DATABASE_BUSY")

        def buggy() -> None:
            raise RuntimeError("a bug")

        calls.start(refused, shown.append)
        calls.start(buggy, shown.append)
        await wait_until(pilot, lambda: bool(app.reported) and bool(notifications(app)))
        assert app.reported == ["DATABASE_BUSY"]
        assert notifications(app) == ["Unexpected error: a bug"]
        assert shown == []  # neither result was acted on
        assert app.is_running  # the app goes on


async def test_a_given_fault_sink_takes_the_bug_instead() -> None:
    app = CallsApp()
    async with app.run_test() as pilot:
        calls = ServiceCalls(app.screen, lambda e: None, lambda exc: app.faults.append(str(exc)))

        def buggy() -> None:
            raise KeyError("gone")

        calls.start(buggy, lambda _: None)
        await wait_until(pilot, lambda: bool(app.faults))
        assert app.faults == ["'gone'"]
        assert notifications(app) == []


async def test_one_flow_at_a_time_and_an_action_asked_meanwhile_runs_after_it() -> None:
    app = CallsApp()
    async with app.run_test() as pilot:
        calls = ServiceCalls(app.screen, lambda e: app.reported.append(e.code))
        release = asyncio.Event()
        order: list[str] = []

        async def steps() -> None:
            order.append("flow")
            await release.wait()
            raise OncallError("DATABASE_BUSY")  # let out of the flow: said by the sink

        calls.flow(steps, finished=lambda: order.append("finished"))
        await wait_until(pilot, lambda: calls.busy and order == ["flow"])
        calls.flow(steps, finished=lambda: order.append("second"))  # refused: the bell
        calls.when_idle(lambda: order.append("esc"))
        assert app.bells == 1
        assert order == ["flow"]  # Esc waits for the flow
        release.set()
        await wait_until(pilot, lambda: "esc" in order)
        assert order == ["flow", "finished", "esc"]
        assert app.reported == ["DATABASE_BUSY"]
        assert not calls.busy
        calls.when_idle(lambda: order.append("now"))  # idle: at once
        assert order[-1] == "now"


async def test_a_call_asked_for_as_the_app_closes_leaves_no_coroutine_never_awaited() -> None:
    """The app ends before the worker starts (a poll due as the user quits): nothing of the
    call was made, so nothing is left for the garbage collector to warn about."""
    app = CallsApp()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with app.run_test():
            calls = ServiceCalls(app.screen, lambda e: app.reported.append(e.code))
            app.exit()
            calls.start(lambda: 1, lambda _: None)
            calls.flow(lambda: asyncio.sleep(0), finished=lambda: None)
        gc.collect()
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
