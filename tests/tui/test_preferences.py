"""The settings file in the TUI: key bindings rebound, the theme applied and kept, and a file
with a mistake said on the status line while the app starts with its defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from oncall_tui.core.memory import MemoryMode
from oncall_tui.errors import Language
from oncall_tui.settings import Settings
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.chat_log.entries import LogStyles
from oncall_tui.tui.chat_log.plain import block_look
from oncall_tui.tui.chat_log.rich_markdown import markdown_theme
from oncall_tui.tui.commands import checked_keymap, key_name, still_streaming
from oncall_tui.tui.screens.keys import KeysScreen
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.welcome import Welcome
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.gateway import StaticGateway
from tests.tui.harness import notifications, screen_rows, seed_session, settled, wait_until
from tests.tui.test_main_screen import drawn
from tests.tui.test_welcome import shown

SIZE = (120, 36)


def app_with_file(tmp_path: Path, body: str) -> tuple[OncallApp, Path]:
    config = tmp_path / "config.toml"
    config.write_text(body, encoding="utf-8")
    settings = Settings.resolve(
        db=str(tmp_path / "t.db"), user="alice", config=str(config), environ={}
    )
    return build_app(settings, gateway=StaticGateway(ScriptedChatModel([]), 8192)), config


def status_text(app: OncallApp) -> str:
    return app.screen.query_one("#status", PlainText).text


async def test_a_rebound_key_runs_the_action_and_its_old_key_does_not(tmp_path: Path) -> None:
    app, _ = app_with_file(tmp_path, '[keys]\nprompts = "ctrl+t"\n')
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))


async def test_the_keys_help_shows_the_keys_as_rebound(tmp_path: Path) -> None:
    app, _ = app_with_file(tmp_path, '[keys]\ncompact = "ctrl+k,f9"\n')
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        from textual.widgets import DataTable

        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(row) for row in range(table.row_count)]
        compact = next(row for row in rows if str(row[2]) == "compact")
        assert str(compact[0]) == "ctrl+k, f9"


def welcome(app: OncallApp) -> Welcome:
    return app.screen.query_one(Welcome)


def keys_help_rows(app: OncallApp) -> dict[str, str]:
    """The keys help's keys by action id."""
    from textual.widgets import DataTable

    table = app.screen.query_one(DataTable)
    rows = [table.get_row_at(row) for row in range(table.row_count)]
    return {str(row[2]): str(row[0]) for row in rows if str(row[2])}


async def test_a_key_given_to_another_action_moves_and_the_app_says_so(tmp_path: Path) -> None:
    """alt+p was the prompts' second key: given to the skills, it opens the skills, the prompts
    keep f3, and the guide and the keys help show it so. ctrl+q, the app's own, stays Quit."""
    app, _ = app_with_file(tmp_path, '[keys]\nskills = "alt+p"\ncompact = "ctrl+q,ctrl+k"\n')
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "alt+p to skills: prompts" in status_text(app))
        assert "ctrl+q stays the app's own" in status_text(app)
        assert "(f1 / alt+h lists the keys)" in status_text(app)
        await wait_until(pilot, lambda: "f3 sets your system prompt" in shown(welcome(app)))
        await pilot.press("alt+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SkillLibraryScreen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        rows = keys_help_rows(app)
        assert (rows["prompts"], rows["skills"], rows["compact"]) == ("f3", "alt+p", "ctrl+k")


async def test_a_key_the_composer_edits_with_is_said_and_the_action_keeps_its_place(
    tmp_path: Path,
) -> None:
    """`compact = "ctrl+k,f9"` (the README's example until now): in the composer ctrl+k
    deletes to the line's end, which nothing said, and Compact moved to the end of the key bar,
    out of sight at 100 columns (Textual's keymap appends the bindings it rebinds)."""
    app, _ = app_with_file(tmp_path, '[keys]\ncompact = "ctrl+k,f9"\n')
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(
            pilot, lambda: "gives compact ctrl+k, which the message" in status_text(app)
        )
        assert "there ctrl+k still edits, and compact answers it elsewhere" in status_text(app)
        assert "^n New f9 Compact f3 Prompts" in screen_rows(app)[-1]


def test_only_the_keys_the_text_fields_take_first_are_said() -> None:
    """show_summary acts before the text fields (f6 is theirs too): a key given to it is not
    said; ctrl+g and alt+k are no text field's."""
    checked = checked_keymap(
        {"compact": "ctrl+k,f9", "retry": "ctrl+g", "search": "alt+k", "show_summary": "ctrl+e"}
    )
    assert checked.edits == [("ctrl+k", "compact")]
    assert checked_keymap({"retry": "home,ctrl+r"}).edits == [("home", "retry")]


async def test_a_key_given_to_two_actions_opens_the_one_the_app_says_has_it(
    tmp_path: Path,
) -> None:
    """Found in tmux: with prompts and skills both given f11, the start said skills had it,
    the keys help too, and f11 opened the prompts; the skills had no key left at all."""
    app, _ = app_with_file(tmp_path, '[keys]\nprompts = "f11"\nskills = "f11"\n')
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "f11 to skills: prompts" in status_text(app))
        await pilot.press("f11")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SkillLibraryScreen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("f3")  # the prompts keep their own keys
        await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))


def test_the_later_rebinding_of_a_key_wins_and_an_action_may_be_left_without_one() -> None:
    checked = checked_keymap({"compact": "ctrl+k,f9", "search": "ctrl+k", "skills": "alt+p"})
    assert checked.keys["search"] == ("ctrl+k",)
    assert checked.keys["compact"] == ("f9",)  # ctrl+k went on to search
    assert (checked.keys["skills"], checked.keys["prompts"]) == (("alt+p",), ("f3",))
    assert checked.taken == [("ctrl+k", "search", "compact"), ("alt+p", "skills", "prompts")]
    # Textual is told the key once, for the action that has it (it went to the first).
    assert checked.applied == {"compact": "f9", "search": "ctrl+k", "skills": "alt+p"}
    both = checked_keymap({"prompts": "f11", "skills": "f11"})
    assert both.applied == {"skills": "f11"}
    assert (both.keys["prompts"], both.keys["skills"]) == (("f3", "alt+p"), ("f11",))
    assert both.taken == [("f11", "skills", "prompts")]
    alone = checked_keymap({"retry": "alt+g"})
    assert alone.keys["check_ollama"] == ()
    assert alone.taken == [("alt+g", "retry", "check_ollama")]


def test_the_app_keeps_its_own_keys_and_a_rebinding_of_only_those_changes_nothing() -> None:
    checked = checked_keymap({"compact": "ctrl+q", "quit": "ctrl+q,ctrl+x", "search": "ctrl+p"})
    assert checked.kept == [("ctrl+q", "compact"), ("ctrl+p", "search")]
    assert checked.keys["compact"] == ("f9", "alt+c")
    assert checked.keys["search"] == ("ctrl+f",)
    assert checked.keys["quit"] == ("ctrl+q", "ctrl+x")
    assert checked.applied == {"quit": "ctrl+q,ctrl+x"}
    assert checked.taken == []


@pytest.mark.parametrize(
    ("written", "named"),
    [
        ("F5", "f5"),  # the way a person writes it
        ("Ctrl+K", "ctrl+k"),
        ("alt+PageUp", "alt+pageup"),
        ("/", "slash"),
        ("ctrl+-", "ctrl+minus"),
        ("ctrl+shift+f", "ctrl+shift+f"),
        ("f24", "f24"),  # the last function key a terminal has
        ("f25", None),  # one past it
        ("ctlr+k", None),
        ("ctrl+ctrl+k", None),
        ("ctrl+", None),
        ("pgup", None),
    ],
)
def test_a_key_is_read_as_textual_names_it_or_said_to_name_none(
    written: str, named: str | None
) -> None:
    """A binding matches a key only by Textual's exact name: "F5" or "Ctrl+K" in the file
    bound nothing, and "f99" left its action with no key, without a word."""
    assert key_name(written) == named


def test_what_names_no_key_is_set_aside_and_the_action_keeps_its_keys() -> None:
    checked = checked_keymap(
        {"new_session": "f99", "compact": "F10,ctlr+k", "prompts.save": "Ctrl+W,nope"}
    )
    assert checked.not_keys == [
        ("f99", "new_session"),
        ("ctlr+k", "compact"),
        ("nope", "prompts.save"),
    ]
    assert checked.keys["new_session"] == ("ctrl+n",)  # its own: f99 is no key
    assert checked.keys["compact"] == ("f10",)
    assert checked.applied == {"compact": "f10", "prompts.save": "ctrl+w"}
    # A value with no key at all is said too (",," was set aside without a word).
    empty = checked_keymap({"compact": ",,", "retry": ""})
    assert empty.not_keys == [(",,", "compact"), ("", "retry")]
    assert (empty.keys["compact"], empty.applied) == (("f9", "alt+c"), {})  # its own


async def test_a_key_written_in_capitals_acts_and_one_that_is_no_key_is_said(
    tmp_path: Path,
) -> None:
    app, _ = app_with_file(tmp_path, '[keys]\nskills = "Ctrl+G"\nnew_session = "f99"\n')
    said = "gives new_session 'f99', which names no key"
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: said in status_text(app))
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SkillLibraryScreen")


async def test_an_unknown_action_id_is_said_and_the_other_keys_apply(tmp_path: Path) -> None:
    app, _ = app_with_file(tmp_path, '[keys]\nno_such_action = "ctrl+t"\nskills = "ctrl+g"\n')
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "no_such_action" in status_text(app))
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SkillLibraryScreen")


async def test_the_theme_in_the_file_is_applied_and_a_new_choice_is_written(
    tmp_path: Path,
) -> None:
    app, config = app_with_file(tmp_path, '# mine\ntheme = "nord"\n')
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "nord"
        app.theme = "gruvbox"
        await wait_until(pilot, lambda: 'theme = "gruvbox"' in config.read_text("utf-8"))
        assert config.read_text("utf-8").startswith("# mine\n")


def test_every_theme_the_palette_offers_styles_markdown_with_code_that_shows() -> None:
    """Each theme's variables make rich styles; inline code is never its own background."""
    app = App[None]()
    for name in sorted(app.available_themes):
        app.theme = name
        theme = markdown_theme(app.get_css_variables())
        code = theme.styles["markdown.code"]
        assert code.color is not None, name
        assert code.color != code.bgcolor, name
        assert all(theme.styles[f"markdown.h{level}"].color for level in range(1, 7)), name


@pytest.mark.parametrize(("theme", "then"), [("ansi-light", "ansi-dark"), ("ansi-dark", "nord")])
async def test_markdown_is_drawn_in_the_terminals_own_colours(
    tmp_path: Path, theme: str, then: str
) -> None:
    """The ANSI themes (the terminal's own colours) ended the app with a traceback once
    Markdown was drawn, and at each start after it, the theme being remembered."""
    config = tmp_path / "config.toml"
    config.write_text(f'theme = "{theme}"\n', encoding="utf-8")
    settings = Settings.resolve(
        db=str(tmp_path / "t.db"), user="alice", config=str(config), environ={}
    )
    reply = (
        "## Rollback\n\nRun `kubectl rollout undo`, see [the runbook](https://runbooks.example)."
    )
    model = ScriptedChatModel([reply])
    app = build_app(settings, gateway=StaticGateway(model, 8192))
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(Composer).text = "rollback?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("kubectl rollout undo" in r for r in screen_rows(app)))
        assert app.theme == theme
        app.theme = then
        await wait_until(pilot, lambda: f'theme = "{then}"' in config.read_text("utf-8"))
        await settled(pilot)
        assert any("Rollback" in row for row in screen_rows(app))


@pytest.mark.parametrize(("theme", "shaded"), [("ansi-dark", False), ("textual-dark", True)])
async def test_a_terminals_own_colours_shade_no_message(
    tmp_path: Path, theme: str, shaded: bool
) -> None:
    """A tenth of the theme's blue behind the user's message, and a twentieth behind pasted
    output, were a solid blue band in the ANSI themes: a terminal's colours have no shades."""
    app, _ = app_with_file(tmp_path, f'theme = "{theme}"\n')
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        log = app.query_one(ChatLog)
        user = LogStyles.of(log.get_component_rich_style, 0).user
        assert (user.bgcolor is not None) == shaded
        variables = app.theme_variables
        text, _ = block_look(
            variables["background"], variables["primary"], variables["text-accent"]
        )
        assert (text.bgcolor is not None) == shaded


async def test_an_unknown_theme_is_said_and_the_default_kept(tmp_path: Path) -> None:
    app, _ = app_with_file(tmp_path, 'theme = "no-such-theme"\n')
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "no-such-theme" in status_text(app))
        assert app.theme != "no-such-theme"


async def test_a_malformed_file_is_said_with_its_line_and_the_app_starts(tmp_path: Path) -> None:
    app, config = app_with_file(tmp_path, 'model = "qwen3:8b"\nnum_ctx = = 3\n')
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "line 2" in status_text(app))
        assert str(config) in status_text(app)
        assert app.services.settings.model != "qwen3:8b"  # the file gave nothing
        assert isinstance(app.screen, MainScreen)


async def test_a_key_written_with_a_slip_is_said_and_the_rest_of_the_file_applies(
    tmp_path: Path,
) -> None:
    """``nmu_ctx = 16384`` left the window as it was, and nothing said why."""
    app, config = app_with_file(tmp_path, 'nmu_ctx = 16384\nmodel = "qwen3:8b"\n')
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "nmu_ctx (num_ctx?)" in status_text(app))
        assert str(config) in status_text(app)
        assert app.services.settings.model == "qwen3:8b"


@pytest.mark.parametrize(
    ("lang", "keymap", "said"),
    [
        ("zh", {}, "按 ctrl+q 退出应用"),
        ("en", {"quit": "ctrl+x"}, "Press ctrl+x to quit the app"),
    ],
)
async def test_ctrl_c_with_no_reply_says_how_to_quit_in_the_app_s_words(
    tmp_path: Path, lang: Language, keymap: dict[str, str], said: str
) -> None:
    """Textual's own note ("Press ctrl+q to quit the app") was English in the Chinese app,
    and named ctrl+q where the settings file had moved quit to another key."""
    settings = Settings(db_path=tmp_path / "t.db", user="alice", lang=lang, keymap=keymap)
    app = build_app(settings, gateway=StaticGateway(ScriptedChatModel([]), 8192))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: said in notifications(app))


async def test_the_log_and_the_memory_name_the_keys_as_rebound(tmp_path: Path) -> None:
    """The earlier-messages line, the divider, "memory compacted", the manual mode's question
    and a send during a reply said the default keys (ctrl+up, f6, f9, Esc), whatever ``[keys]``
    bound."""
    config = tmp_path / "config.toml"
    config.write_text(
        '[keys]\nload_earlier = "alt+k"\nshow_summary = "ctrl+k"\ncompact = "f10"\n'
        'cancel_reply = "ctrl+g"\n'
    )
    settings = Settings.resolve(
        db=str(tmp_path / "t.db"), user="alice", config=str(config), environ={}
    )
    model = ScriptedChatModel(["Goal: fix api-7."])  # the summary f10 asks for
    app = build_app(settings, gateway=StaticGateway(model, 8192))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.shown.open(seed_session(app, 40, compacted=60, summary="Disk filled."))
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.earlier == 40 and log.boundary == 60)
        assert still_streaming(screen) == "A reply is still streaming; ctrl+g cancels it."
        shown = " ".join(" ".join(drawn(log)).split())  # the lines wrapped at the log's width
        assert "40 earlier messages · alt+k or Enter here to load more" in shown
        assert "60 earlier messages summarised · ctrl+k shows the summary" in shown
        assert "ctrl+up" not in shown
        assert "f6" not in shown
        memory = screen.memory_actions
        await wait_until(pilot, lambda: memory.state is not None and memory.state.can_compact)
        memory.set_mode(MemoryMode.MANUAL)
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        dialog = app.screen

        def question() -> str:  # its message, not the rows: they run beside the panes' edges
            said = [str(static.render()) for static in dialog.query(".dialog--message")]
            return " ".join(" ".join(said).split())

        await wait_until(pilot, lambda: "from then on only f10 compacts" in question())
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("f10")
        await wait_until(pilot, lambda: "Memory compacted" in status_text(app))
        assert status_text(app) == (
            "Memory compacted: the messages above the divider are summarised (ctrl+k shows "
            "the summary)."
        )


async def test_the_summary_closes_with_the_keys_that_open_it_as_rebound(tmp_path: Path) -> None:
    """Found in tmux: with show_summary given f9, the summary said "esc/f6 close"; f9 did not
    close it, and f6, which no longer opened it, did."""
    app, _ = app_with_file(tmp_path, '[keys]\nshow_summary = "f9"\n')
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        main = app.screen
        await pilot.press("f9")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SummaryScreen")
        box = app.screen.query_one("#summary-box")
        assert box.border_subtitle == "esc/f9 close"
        await pilot.press("f9")
        await wait_until(pilot, lambda: app.screen is main)
        await pilot.pause(0.2)
        assert app.screen is main  # closed, not opened again
