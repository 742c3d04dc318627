"""The [[mcp_servers]] tables: checked strictly, ${NAME} from the environment, every failure
a catalogued CONFIG_INVALID naming the server (en and zh); and the CLI that lists them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from oncall_tui.settings import Settings
from tests.conftest import RunCli

OPS = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py")
GOOD = """
[[mcp_servers]]
name = "logs"
command = "python3"
args = ["srv.py", "--token", "${LOG_TOKEN}"]
env = {API_KEY = "${LOG_TOKEN}"}
allow = ["search_logs", "restart"]
confirm = ["restart"]

[[mcp_servers]]
name = "remote"
url = "http://127.0.0.1:8931/mcp"
headers = {Authorization = "Bearer ${LOG_TOKEN}"}
allow = ["query"]
"""


def resolve(tmp_path: Path, text: str, **environ: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return Settings.resolve(config=str(path), user="alice", environ=environ)


def test_servers_are_read_with_variables_taken_from_the_environment(tmp_path: Path) -> None:
    settings = resolve(tmp_path, GOOD, LOG_TOKEN="s3cret")
    assert settings.config_problem is None
    logs, remote = settings.mcp_servers
    assert logs.args == ("srv.py", "--token", "s3cret")
    assert dict(logs.env) == {"API_KEY": "s3cret"}
    assert logs.policy("restart") == "confirm"
    assert logs.policy("search_logs") == "auto"
    assert logs.policy("delete") is None
    assert remote.transport == "streamable_http"
    assert dict(remote.headers) == {"Authorization": "Bearer s3cret"}


def test_a_missing_variable_names_server_and_variable_in_both_languages(tmp_path: Path) -> None:
    settings = resolve(tmp_path, GOOD)
    problem = settings.config_problem
    assert problem is not None
    assert problem.reason == "config_mcp_variable"
    assert "'logs'" in problem.message("en")
    assert "${LOG_TOKEN}" in problem.message("en")
    assert "'logs'" in problem.message("zh")
    assert "${LOG_TOKEN}" in problem.message("zh")
    assert settings.mcp_servers == ()


ENTRY = '[[mcp_servers]]\nname = "logs"\ncommand = "x"\n'


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (ENTRY + 'allow = ["*"]\n', "config_mcp_wildcard"),
        (ENTRY + "allow = []\n", "config_mcp_allow_empty"),
        (ENTRY, "config_mcp_allow_empty"),
        (ENTRY + 'allow = ["a"]\nconfirm = ["b"]\n', "config_mcp_confirm_not_allowed"),
        (ENTRY + 'allow = ["a"]\nurl = "http://h/mcp"\n', "config_mcp_transport"),
        ('[[mcp_servers]]\nname = "logs"\nallow = ["a"]\n', "config_mcp_transport"),
        ('[[mcp_servers]]\nname = "Logs"\ncommand = "x"\nallow = ["a"]\n', "config_mcp_name"),
        (ENTRY + 'allow = ["a"]\nalow = ["b"]\n', "config_mcp_unknown_key"),
        (ENTRY + 'allow = ["a"]\n' + ENTRY + 'allow = ["a"]\n', "config_mcp_duplicate"),
        ('mcp_servers = "logs"\n', "config_mcp_not_array"),
        (ENTRY + "allow = [1]\n", "config_mcp_wrong_type"),
        ('[[mcp_servers]]\nname = "r"\nurl = "ftp://h"\nallow = ["a"]\n', "config_mcp_url"),
    ],
)
def test_a_bad_entry_is_the_files_problem_and_registers_nothing(
    tmp_path: Path, text: str, reason: str
) -> None:
    settings = resolve(tmp_path, 'model = "m"\n' + text)
    assert settings.config_problem is not None
    assert settings.config_problem.reason == reason
    assert settings.mcp_servers == ()
    assert settings.model != "m"  # a file wrong anywhere is not used at all


def test_a_name_of_exactly_the_allowed_characters_is_accepted(tmp_path: Path) -> None:
    text = '[[mcp_servers]]\nname = "a-b_9"\ncommand = "x"\nallow = ["t"]\n'
    assert resolve(tmp_path, text).mcp_servers[0].name == "a-b_9"


def registered(config: Path, *entries: str) -> None:
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(entries), encoding="utf-8")


def test_tools_list_shows_servers_their_state_tools_and_policy(
    cli: RunCli, private_config: Path
) -> None:
    registered(
        private_config,
        f'[[mcp_servers]]\nname = "ops"\ncommand = "{sys.executable}"\nargs = ["{OPS}"]\n'
        'allow = ["search_logs", "restart_service", "missing"]\nconfirm = ["restart_service"]\n',
        '[[mcp_servers]]\nname = "gone"\ncommand = "/nonexistent/server"\nallow = ["x"]\n',
    )
    result = cli("tools", "list", "--json")
    assert result.code == 2, result.err  # a server that cannot start: the chat lacks its tools
    ops, gone = result.json_object()["servers"]
    tools = {tool["name"]: tool for tool in ops["tools"]}
    assert ops["state"] == "ready"
    assert tools["ops.search_logs"]["policy"] == "auto"
    assert tools["ops.restart_service"]["policy"] == "confirm"
    assert tools["ops.delete_all"] == {
        "name": "ops.delete_all",
        "description": "Delete every log file. Never allowed in the tests' settings.",
        "allowed": False,
        "policy": None,
        "offered": True,
    }
    assert tools["ops.missing"]["offered"] is False
    assert gone["state"] == "failed"
    assert gone["error"]["code"] == "TOOL_SERVER_FAILED"
    human = cli("--lang", "zh", "tools", "list")
    assert human.code == 2
    assert "就绪" in human.out
    assert "失败" in human.out
    assert "ops.search_logs" in human.out


def test_tools_list_without_servers_says_so(cli: RunCli) -> None:
    result = cli("tools", "list")
    assert result.code == 0
    assert "No tool servers" in result.out
    assert cli("tools", "list", "--json").json_object() == {"servers": []}


def test_tools_list_exits_0_when_every_server_starts(cli: RunCli, private_config: Path) -> None:
    registered(
        private_config,
        f'[[mcp_servers]]\nname = "ops"\ncommand = "{sys.executable}"\nargs = ["{OPS}"]\n'
        'allow = ["search_logs"]\n',
    )
    assert cli("tools", "list").code == 0
    assert cli("tools", "list", "--json").code == 0


@pytest.mark.parametrize("as_json", [False, True])
def test_tools_list_exits_2_when_a_server_cannot_start(
    cli: RunCli, private_config: Path, as_json: bool
) -> None:
    registered(
        private_config,
        '[[mcp_servers]]\nname = "gone"\ncommand = "/nonexistent/server"\nallow = ["x"]\n',
    )
    result = cli("tools", "list", *(["--json"] if as_json else []))
    assert result.code == 2
    if as_json:
        assert result.json_object()["servers"][0]["state"] == "failed"
    else:
        assert "gone" in result.out
