"""Idle memory with a 40-message session open, against elia: figures, asserting nothing.

Each run starts an app in a real pseudo-terminal of 120x40 (``tests/terminal.py``) on a
database holding one session of 40 messages (20 exchanges of on-call questions and answers,
Markdown, some with fenced code), and waits until the session is on screen: oncall-tui opens
its newest session by itself; elia is sent down and enter on its home screen to open the chat
from its list. Its resident memory is read from ``/proc`` then (the session's first frame)
and again ``--settle`` seconds later, once it idles: oncall-tui's rendering warm-up (Markdown
and code lexers, in a thread after the first frame) is over by then; its model stack
(LangChain) loads only once a message is being typed. ``--typing`` adds oncall-tui with a few
characters typed into its composer once the session is on screen, nothing sent: what the model
stack adds. RSS is ``VmRSS``; PSS and USS (private pages) come from ``smaps_rollup``. Figures
are medians of ``--runs`` per app, the runs alternating so that both meet the same load: about
50 s with elia at the defaults, 20 s more with ``--typing``.

elia (the ``elia-chat`` package) is measured when ``--elia`` names its executable, installed
apart (``python -m venv VENV && VENV/bin/pip install elia-chat``). Its chat is written
straight into its SQLite database, in a temporary ``XDG_DATA_HOME``, with the same messages;
its settings, in a temporary ``XDG_CONFIG_HOME``, name a local Ollama model. Both apps are
pointed at a loopback fake of Ollama (``tests/fakes/ollama_server.py``): oncall-tui asks it
for its version and models at start, as it would a real server; elia never calls it while
idle.

    python bench/idle_memory.py [--elia PATH] [--settle 5] [--runs 3] [--typing]

Target: oncall-tui's idle RSS with a 40-message session open <= 1.5 times elia's.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from oncall_tui.services.container import Services  # noqa: E402
from oncall_tui.settings import Settings  # noqa: E402
from oncall_tui.store.sessions import MessageRepository, SessionRepository  # noqa: E402
from tests.fakes.ollama_server import FakeOllama  # noqa: E402
from tests.terminal import Terminal  # noqa: E402

COLUMNS, LINES = 120, 40
USER = "bench"
MODEL = "qwen3:8b"
TITLE = "payments-api p99 latency"
LAST_LINE = "Closing the page: all back to baseline."
"""The last line of the last answer: on screen once the session is open, in either app."""

EXCHANGES: tuple[tuple[str, str], ...] = (
    (
        "Paged: payments-api p99 latency 2.4s (SLO 800ms) since 14:05 UTC.\nWhere do I start?",
        "Start with what changed and how wide it is:\n\n"
        "1. Recent deploys of payments-api and its dependencies.\n"
        "2. Whether all pods are slow or a few.\n"
        "3. Saturation: CPU, memory, connection pools.\n\n"
        "```bash\nkubectl -n payments rollout history deploy/payments-api\n"
        "kubectl -n payments top pods -l app=payments-api\n```",
    ),
    (
        "Last deploy was yesterday. top shows all 6 pods at ~40% CPU, nothing odd.",
        "Then the code is probably not the trigger. Look downstream: the service waits on "
        "PostgreSQL and on the fraud-check API. Compare their latency panels for the same "
        "window; a slow dependency shows up as flat CPU with rising latency, which is what "
        "you describe.",
    ),
    (
        "Database dashboard: active connections 98/100 on payments-db primary.",
        "That is the likely bottleneck: the pool is exhausted and requests queue for a "
        "connection. Find what holds them:\n\n"
        "```sql\nSELECT pid, state, now() - query_start AS age, left(query, 80)\n"
        "FROM pg_stat_activity\nWHERE datname = 'payments'\nORDER BY age DESC\nLIMIT 20;\n```",
    ),
    (
        "Lots of 'idle in transaction', some for 20+ minutes, all from the batch-reconciler user.",
        "The reconciler opens transactions and does not close them, so each one pins a "
        "connection. Two options:\n\n"
        "- stop the reconciler (safe: it is a batch job and resumes from its checkpoint);\n"
        "- or terminate its idle sessions, which frees connections at once.\n\n"
        "Doing both is best: stop it first so it does not reconnect.",
    ),
    (
        "How do I stop the reconciler? It's a CronJob I think.",
        "Suspend the CronJob and delete the running job:\n\n"
        '```bash\nkubectl -n batch patch cronjob reconciler -p \'{"spec":{"suspend":true}}\'\n'
        "kubectl -n batch get jobs -l app=reconciler\n"
        "kubectl -n batch delete job <running-job-name>\n```\n\n"
        "Note the job name in the incident channel; it helps the owners later.",
    ),
    (
        "Suspended and deleted. Connections still at 97.",
        "Deleting the pod does not end its server-side sessions straight away: PostgreSQL "
        "notices only when TCP gives up. Terminate them explicitly:\n\n"
        "```sql\nSELECT pg_terminate_backend(pid)\nFROM pg_stat_activity\n"
        "WHERE usename = 'batch_reconciler'\n  AND state = 'idle in transaction';\n```",
    ),
    (
        "Done, 41 sessions terminated. Active connections 52/100.",
        "Good. Latency should follow within a minute or two as the queued requests drain. "
        "Watch p99 and the error rate together: a short spike of errors is normal while "
        "clients retry.",
    ),
    (
        "p99 is down to 1.1s but not back to normal (usually ~300ms).",
        "Something else still holds capacity. Check for lock waits, since the reconciler's "
        "transactions may have left rows locked that other sessions now wait on:\n\n"
        "```sql\nSELECT blocked.pid, blocking.pid AS blocking_pid, left(blocked.query, 60)\n"
        "FROM pg_stat_activity blocked\n"
        "JOIN pg_stat_activity blocking\n"
        "  ON blocking.pid = ANY(pg_blocking_pids(blocked.pid));\n```",
    ),
    (
        "No lock waits. But payments-api logs show 'pool timeout after 5000ms' warnings.",
        "The application's own pool may still be sized for the old state or holding broken "
        "connections. Which driver and pool does payments-api use? If it is HikariCP or "
        "SQLAlchemy, broken connections are only dropped when they are next checked out.",
    ),
    (
        "It's Python, SQLAlchemy, pool_size=10, max_overflow=5, pool_pre_ping off.",
        "Without pre-ping, connections killed by ``pg_terminate_backend`` stay in the pool "
        "until a request fails on them. A rolling restart clears them quickly:\n\n"
        "```bash\nkubectl -n payments rollout restart deploy/payments-api\n"
        "kubectl -n payments rollout status deploy/payments-api --timeout=5m\n```\n\n"
        "For later: turn on ``pool_pre_ping=True``.",
    ),
    (
        "Restart done, all 6 pods ready.",
        "Give it five minutes and compare p50, p99 and the 5xx rate with the same hour "
        "yesterday. Meanwhile, post an update: cause found (connection exhaustion from the "
        "reconciler), mitigation applied, monitoring.",
    ),
    (
        "Can you draft the update for the status page?",
        "**Investigating → Monitoring**\n\n"
        "Between 14:05 and 14:52 UTC some payments took longer than usual to confirm. "
        "We found the cause, a background job holding database connections, and stopped "
        "it. Payments are processing normally and we are monitoring.",
    ),
    (
        "Posted. p99 now 340ms, 5xx 0.02%. Should I resume the reconciler?",
        "Not yet: it will do the same again. Keep it suspended until its owners have a fix "
        "or at least a statement timeout. Reconciliation can wait a few hours; its next "
        "run catches up from the checkpoint.",
    ),
    (
        "Which setting would stop idle transactions piling up like this?",
        "PostgreSQL can end them for you. Set it for the reconciler's role only, so other "
        "clients are unaffected:\n\n"
        "```sql\nALTER ROLE batch_reconciler\n"
        "  SET idle_in_transaction_session_timeout = '60s';\n```\n\n"
        "New sessions of that role pick it up; existing ones keep the old value.",
    ),
    (
        "Would an alert have caught this earlier?",
        "Yes: alert on pool saturation rather than on latency alone. For example, "
        "connections above 85% of ``max_connections`` for 5 minutes:\n\n"
        "```yaml\n- alert: PaymentsDbConnectionsHigh\n"
        '  expr: pg_stat_activity_count{datname="payments"} / pg_settings_max_connections'
        " > 0.85\n  for: 5m\n  labels:\n    severity: page\n```",
    ),
    (
        "Who owns the reconciler?",
        "The CronJob's labels or annotations usually say. Check:\n\n"
        "```bash\nkubectl -n batch get cronjob reconciler -o jsonpath='{.metadata.labels}'\n```\n\n"
        "If there is no owner label, the repository's CODEOWNERS for the batch directory is "
        "the next best place.",
    ),
    (
        "Label says team=ledger. Their on-call is asleep (different timezone).",
        "Then do not page them for this: the mitigation holds and nothing is at risk while "
        "the job is suspended. Open a ticket for their morning with the timeline, the query "
        "you ran and the suggested timeout, and link it from the incident.",
    ),
    (
        "Write me a short timeline for the ticket.",
        "- 14:05 p99 latency of payments-api above SLO, paged.\n"
        "- 14:18 payments-db at 98/100 connections; batch-reconciler idle in transaction.\n"
        "- 14:24 reconciler CronJob suspended, running job deleted.\n"
        "- 14:27 41 idle sessions terminated.\n"
        "- 14:41 payments-api restarted to clear its pool.\n"
        "- 14:52 latency and errors at baseline.",
    ),
    (
        "Anything else before I resolve?",
        "Check that nothing else queued during the incident: payment webhooks retry with "
        "backoff, so look at the webhook queue depth and make sure it is draining. Then "
        "resolve, and keep the reconciler suspended with a note on the CronJob.",
    ),
    (
        "Webhook queue is at 0. Resolving now.",
        "Good work. Summary for the handover: connection exhaustion on payments-db caused "
        "by the reconciler's idle transactions; mitigated by suspending it, terminating its "
        "sessions and restarting payments-api; follow-ups are the role timeout, the "
        "saturation alert and pre-ping in the pool.\n\n" + LAST_LINE,
    ),
)
"""20 exchanges: the session both apps hold open."""

ELIA_SCHEMA = """
CREATE TABLE system_prompt (
    id INTEGER NOT NULL, title VARCHAR NOT NULL, prompt VARCHAR NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (id));
CREATE TABLE chat (
    id INTEGER NOT NULL, model VARCHAR NOT NULL, title VARCHAR,
    started_at DATETIME DEFAULT CURRENT_TIMESTAMP, archived BOOLEAN NOT NULL,
    PRIMARY KEY (id));
CREATE TABLE message (
    id INTEGER NOT NULL, chat_id INTEGER, role VARCHAR NOT NULL, content VARCHAR NOT NULL,
    timestamp DATETIME DEFAULT CURRENT_TIMESTAMP, meta JSON, parent_id INTEGER,
    model VARCHAR, PRIMARY KEY (id), FOREIGN KEY(chat_id) REFERENCES chat (id),
    FOREIGN KEY(parent_id) REFERENCES message (id));
"""
"""elia's tables as its SQLModel models create them (elia-chat 1.10)."""

DOWN, ENTER = "\x1b[B", "\r"


@dataclass(frozen=True)
class Memory:
    """One process's resident memory, in MiB; PSS and USS ``None`` without smaps_rollup."""

    rss: float
    pss: float | None
    uss: float | None


@dataclass(frozen=True)
class Run:
    shown: Memory
    settled: Memory


def memory(pid: int) -> Memory:
    """VmRSS from ``/proc/PID/status``; PSS and USS (private clean + dirty) from
    ``/proc/PID/smaps_rollup`` where the kernel has it."""
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    rss = int(fields["VmRSS"].split()[0]) / 1024
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            kib = {
                name: int(rest.split()[0])
                for name, _, rest in (line.partition(":") for line in rollup)
                if rest.strip().endswith("kB")
            }
    except OSError:
        return Memory(rss, None, None)
    return Memory(rss, kib["Pss"] / 1024, (kib["Private_Clean"] + kib["Private_Dirty"]) / 1024)


def seed_oncall(db_path: Path) -> None:
    """The session, written through the app's own store before the app starts."""
    services = Services(Settings(db_path=db_path, user=USER))
    try:
        with services.database.session() as session:
            chat = SessionRepository(session).create(USER, TITLE, "every_30_turns")
            messages = MessageRepository(session)
            for question, answer in EXCHANGES:
                messages.add(chat, "user", question)
                messages.add(chat, "assistant", answer)
            SessionRepository(session).save(chat)
    finally:
        services.close()


def seed_elia(home: Path, ollama_url: str) -> None:
    """elia's database and settings under ``home``'s XDG directories: one chat of the same
    40 messages after the system prompt elia stores first, on a local Ollama model."""
    model = f"ollama/{MODEL}"
    config = home / "config" / "elia"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        f'default_model = "{model}"\n\n[[models]]\nname = "{model}"\napi_base = "{ollama_url}"\n'
    )
    data = home / "data" / "elia"
    data.mkdir(parents=True)
    rows = [("system", "You are a helpful assistant named Elia.")]
    for question, answer in EXCHANGES:
        rows += [("user", question), ("assistant", answer)]
    with sqlite3.connect(data / "elia.sqlite") as connection:
        connection.executescript(ELIA_SCHEMA)
        connection.execute(
            "INSERT INTO chat (id, model, title, archived) VALUES (1, ?, ?, 0)", (model, TITLE)
        )
        connection.executemany(
            "INSERT INTO message (chat_id, role, content, meta, model) VALUES (1, ?, ?, '{}', ?)",
            [(role, content, model) for role, content in rows],
        )
    connection.close()


def base_env(home: Path) -> dict[str, str]:
    """A small environment of the machine's (nothing of its settings, keys or data), with
    home and XDG directories of the run's own."""
    env = {name: os.environ[name] for name in ("PATH", "TMPDIR") if name in os.environ}
    return {
        **env,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }


def measure(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    settle: float,
    open_it: Callable[[Terminal], None],
) -> Run:
    """Start ``argv`` in a pseudo-terminal, open the session, note memory when its last line
    is on screen and ``settle`` seconds later; then end the process."""
    here = os.getcwd()
    os.chdir(cwd)  # the child's working directory (an export would land there)
    try:
        terminal = Terminal(env, COLUMNS, LINES, argv)
    finally:
        os.chdir(here)
    try:
        open_it(terminal)
        terminal.wait_to_show(LAST_LINE)
        shown = memory(terminal.pid)
        time.sleep(settle)
        settled = memory(terminal.pid)
    finally:
        stop(terminal)
    return Run(shown, settled)


def stop(terminal: Terminal) -> None:
    """SIGTERM (oncall-tui quits as on ctrl+q; elia's Python ends), SIGKILL if it lingers."""
    os.kill(terminal.pid, signal.SIGTERM)
    try:
        terminal.wait(timeout=10)
    except AssertionError:  # it lingered and was killed: reap it
        os.waitpid(terminal.pid, 0)
    finally:
        os.close(terminal.fd)


def open_in_elia(terminal: Terminal) -> None:
    """From the home screen's prompt, down to the chat list (its first chat highlighted),
    then enter opens it."""
    terminal.wait_to_show(TITLE)
    time.sleep(0.3)  # the list's focus handlers have run
    terminal.write(DOWN)
    time.sleep(0.3)
    terminal.write(ENTER)


def nothing(_: Terminal) -> None:
    """oncall-tui opens the newest session by itself."""


def start_typing(terminal: Terminal) -> None:
    """The session on screen, a few characters of the next message typed, nothing sent."""
    terminal.wait_to_show(LAST_LINE)
    terminal.write("why is")


def median(runs: list[Run], pick: Callable[[Run], float | None]) -> float | None:
    values = [value for value in map(pick, runs) if value is not None]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elia", type=Path, metavar="PATH", help="elia's executable")
    parser.add_argument("--settle", type=float, default=5.0, metavar="SECONDS")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--typing", action="store_true")
    args = parser.parse_args()
    compileall.compile_dir(REPO / "oncall_tui", quiet=1)  # as after the first use
    results: dict[str, list[Run]] = {}
    with tempfile.TemporaryDirectory() as work, FakeOllama() as ollama:
        root = Path(work)
        database = root / "oncall.db"
        seed_oncall(database)
        oncall_env = {
            **base_env(root / "oncall-home"),
            "PYTHONPATH": str(REPO),
            "ONCALL_TUI_DB": str(database),
            "ONCALL_TUI_USER": USER,
            "ONCALL_TUI_MODEL": MODEL,
            "OLLAMA_HOST": ollama.url,
        }
        apps: dict[str, tuple[list[str], dict[str, str], Callable[[Terminal], None]]] = {
            "oncall-tui": ([sys.executable, "-m", "oncall_tui"], oncall_env, nothing)
        }
        if args.typing:
            argv = [sys.executable, "-m", "oncall_tui"]
            apps["oncall-tui, typing"] = (argv, oncall_env, start_typing)
        if args.elia:
            elia_home = root / "elia-home"
            seed_elia(elia_home, ollama.url)
            # litellm, imported by elia only to send, would fetch a price list: never here.
            elia_env = {**base_env(elia_home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
            executable = shutil.which(args.elia) or str(args.elia.resolve())
            apps["elia"] = ([executable], elia_env, open_in_elia)
        for _ in range(args.runs):
            for name, (argv, env, open_it) in apps.items():
                run = measure(argv, env, root, args.settle, open_it)
                results.setdefault(name, []).append(run)
    report(results, args.runs, args.settle)


def report(results: dict[str, list[Run]], runs: int, settle: float) -> None:
    names = list(results)
    header = "| figure (median of {runs}, MiB) | " + " | ".join(names)
    elia = "elia" in results
    print((header + (" | oncall-tui / elia | target |" if elia else " |")).format(runs=runs))
    print("|---" * (len(names) + 1 + (2 if elia else 0)) + "|")
    rows: list[tuple[str, Callable[[Run], float | None], str]] = [
        ("RSS, session on screen", lambda run: run.shown.rss, ""),
        (f"RSS, {settle:g} s later (idle)", lambda run: run.settled.rss, "<= 1.5x"),
        (f"PSS, {settle:g} s later", lambda run: run.settled.pss, ""),
        (f"USS, {settle:g} s later", lambda run: run.settled.uss, ""),
    ]
    for label, pick, target in rows:
        values = {name: median(results[name], pick) for name in names}
        cells = ["n/a" if value is None else f"{value:.1f}" for value in values.values()]
        line = f"| {label} | " + " | ".join(cells)
        if elia:
            ours, theirs = values["oncall-tui"], values["elia"]
            ratio = "n/a" if ours is None or not theirs else f"{ours / theirs:.2f}x"
            line += f" | {ratio} | {target}"
        print(line + " |")


if __name__ == "__main__":
    main()
