"""CLI commands for prompts, skills and the selection (``prompts``, ``skills``, ``config``),
and where the settings come from (``config paths``).

The prompt and skill rules (and the YAML parser they bring) are imported by the handlers that
use them, so registering these commands costs ``--version`` and ``--help`` nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oncall_tui.cli.output import add_command, emit_deleted, emit_json, emit_line, emit_table, pad
from oncall_tui.core.text import one_line
from oncall_tui.errors import Language, OncallError
from oncall_tui.inputs import id_type, read_stdin_text, read_text_file
from oncall_tui.settings.values import masked_url
from oncall_tui.texts import text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.services.views import ConfigurationView, PromptView, SkillView
    from oncall_tui.settings import Settings


def register(commands: argparse._SubParsersAction[Any]) -> None:
    prompts = commands.add_parser("prompts", help="manage your system prompts")
    prompt_actions = prompts.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_command(prompt_actions, "list", "list your prompts", prompts_list)
    add_command(prompt_actions, "show", "print one prompt in full", prompts_show, "id")
    p = add_command(prompt_actions, "add", "add a prompt", prompts_add)
    p.add_argument("--label", required=True)
    _content_options(p, required=True)
    p = add_command(
        prompt_actions, "edit", "change a prompt's label and/or content", prompts_edit, "id"
    )
    p.add_argument("--label")
    _content_options(p, required=False)
    add_command(prompt_actions, "delete", "delete a prompt", prompts_delete, "id")

    skills = commands.add_parser("skills", help="manage your SKILL.md skills")
    skill_actions = skills.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = add_command(
        skill_actions,
        "add",
        "upload a SKILL.md (or the one in a folder; a folder of such folders: each)",
        skills_add,
    )
    p.add_argument("path", help="a SKILL.md, a folder holding one, or a folder of such folders")
    p = add_command(skill_actions, "select", "add skills to the selection in use", skills_select)
    p.add_argument("refs", nargs="+", metavar="NAME_OR_ID")
    p = add_command(
        skill_actions, "unselect", "remove skills from the selection in use", skills_unselect
    )
    p.add_argument("refs", nargs="+", metavar="NAME_OR_ID")
    add_command(skill_actions, "list", "list your skills (without their bodies)", skills_list)
    p = add_command(skill_actions, "show", "print one skill in full", skills_show)
    p.add_argument("ref", metavar="NAME_OR_ID")
    p = add_command(skill_actions, "delete", "delete a skill (and deselect it)", skills_delete)
    p.add_argument("ref", metavar="NAME_OR_ID")

    config = commands.add_parser(
        "config", help="show or set the prompt and skills in use; where settings come from"
    )
    config_actions = config.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_command(config_actions, "show", "show the active prompt and selected skills", config_show)
    p = add_command(config_actions, "set", "choose the active prompt and/or skills", config_set)
    p.add_argument("--prompt", type=id_type("--prompt"), metavar="ID")
    p.add_argument(
        "--skills", metavar="SKILL[,SKILL...]", help='comma-separated names or ids; "" clears'
    )
    add_command(
        config_actions,
        "paths",
        "the settings file, database and log, and where each setting came from",
        config_paths,
    )


def _content_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--content")
    group.add_argument(
        "--file", metavar="PATH", help="read the content from a UTF-8 file ('-': standard input)"
    )


def prompt_file_bytes() -> int:
    """The most a ``--file`` is read: the content's limit in UTF-8 (up to 4 bytes a character)
    and a little surrounding whitespace. Trimming and the exact length in characters are the
    prompt rule's to judge; past this the file is refused unread."""
    from oncall_tui.core.prompts import MAX_CONTENT_CHARS

    return 4 * MAX_CONTENT_CHARS + 4


def _read_content(args: argparse.Namespace) -> str | None:
    if args.file is None:
        value: str | None = args.content
        return value
    if args.file == "-":  # ``cat runbook-prompt.md | oncall-tui prompts add --file -``
        return read_stdin_text(prompt_file_bytes())
    return read_text_file(Path(args.file), prompt_file_bytes())


def prompts_list(ctx: Services, args: argparse.Namespace) -> int:
    prompts = ctx.configuration.list_prompts(ctx.owner)
    if args.json:
        emit_json([p.to_json() for p in prompts])
        return 0
    lang = ctx.settings.lang
    active = ctx.configuration.get_configuration(ctx.owner).system_prompt_id
    default = text("cli.prompts.flag_default", lang)
    rows = [
        (
            p.id,
            ("*" if p.id == active else "") + (default if p.is_default else ""),
            one_line(p.label, 40),
            len(p.content),
        )
        for p in prompts
    ]
    emit_table(_headers("cli.prompts.header", ("id", "flags", "label", "chars"), lang), rows)
    return 0


def _print_prompt(ctx: Services, prompt: PromptView, as_json: bool) -> None:
    if as_json:
        emit_json(prompt.to_json())
        return
    key = "cli.prompt.heading_default" if prompt.is_default else "cli.prompt.heading"
    emit_line(text(key, ctx.settings.lang, id=prompt.id, label=prompt.label))
    emit_line(prompt.content)


def prompts_show(ctx: Services, args: argparse.Namespace) -> int:
    _print_prompt(ctx, ctx.configuration.get_prompt(ctx.owner, args.id), args.json)
    return 0


def prompts_add(ctx: Services, args: argparse.Namespace) -> int:
    content = _read_content(args)
    if content is None:  # argparse requires --content or --file
        raise RuntimeError("prompts add was called without --content or --file")
    _print_prompt(ctx, ctx.configuration.create_prompt(ctx.owner, args.label, content), args.json)
    return 0


def prompts_edit(ctx: Services, args: argparse.Namespace) -> int:
    prompt = ctx.configuration.update_prompt(
        ctx.owner, args.id, label=args.label, content=_read_content(args)
    )
    _print_prompt(ctx, prompt, args.json)
    return 0


def prompts_delete(ctx: Services, args: argparse.Namespace) -> int:
    ctx.configuration.delete_prompt(ctx.owner, args.id)
    line = text("cli.deleted_prompt", ctx.settings.lang, id=args.id)
    emit_deleted("prompt", args.id, line, args.json)
    return 0


def _headers(prefix: str, names: tuple[str, ...], lang: Language) -> tuple[str, ...]:
    """A table's column headers from the catalog: ``prefix.name`` for each column."""
    return tuple(text(f"{prefix}.{name}", lang) for name in names)


def _print_skill(skill: SkillView, lang: Language) -> None:
    emit_line(text("cli.skill.heading", lang, id=skill.id, name=skill.name, size=skill.size_bytes))
    emit_line(f"    {skill.description}")


def skills_add(ctx: Services, args: argparse.Namespace) -> int:
    """One skill (a SKILL.md, or the folder holding it) as it is stored; a folder of skill
    folders, each added, then each refused on stderr with why (exit 2 if any was)."""
    from oncall_tui.services.skill_files import MAX_FOLDERS

    result = ctx.configuration.add_skill_files(ctx.owner, args.path)
    lang = ctx.settings.lang
    if not result.of_folders:
        (skill,) = result.added
        if args.json:
            emit_json(skill.to_json())
        else:
            _print_skill(skill, lang)
        return 0
    if args.json:
        emit_json(result.to_json(lang))
    else:
        for skill in result.added:
            _print_skill(skill, lang)
        for folder, error in result.refused:
            emit_line(
                text("cli.skill.refused", lang, folder=folder, message=error.message(lang)),
                sys.stderr,
            )
        if result.left:
            left = text("cli.skills.left", lang, count=result.left, most=MAX_FOLDERS)
            emit_line(left, sys.stderr)
    return 2 if result.refused else 0


def skills_list(ctx: Services, args: argparse.Namespace) -> int:
    skills = ctx.configuration.list_skills(ctx.owner)
    if args.json:
        emit_json([s.to_json() for s in skills])
        return 0
    selected = set(ctx.configuration.get_configuration(ctx.owner).skill_ids)
    rows = [
        (s.id, "*" if s.id in selected else "", s.name, s.size_bytes, one_line(s.description, 60))
        for s in skills
    ]
    columns = ("id", "selected", "name", "bytes", "description")
    emit_table(_headers("cli.skills.header", columns, ctx.settings.lang), rows)
    return 0


def skills_show(ctx: Services, args: argparse.Namespace) -> int:
    detail = ctx.configuration.show_skill(ctx.owner, args.ref)
    if args.json:
        emit_json(detail.to_json())
    else:
        emit_line(detail.content.rstrip("\n"))
    return 0


def skills_delete(ctx: Services, args: argparse.Namespace) -> int:
    skill = ctx.configuration.delete_skill(ctx.owner, args.ref)
    line = text("cli.deleted_skill", ctx.settings.lang, id=skill.id, name=skill.name)
    emit_deleted("skill", skill.id, line, args.json)
    return 0


def _print_configuration(configuration: ConfigurationView, as_json: bool, lang: Language) -> None:
    if as_json:
        emit_json(configuration.to_json())
        return
    prompt = configuration.active_prompt
    emit_line(text("cli.config.prompt", lang, id=prompt.id, label=prompt.label))
    selected = configuration.selected_skills
    names = ", ".join(f"[{s.id}] {s.name}" for s in selected) or text("cli.none", lang)
    emit_line(text("cli.config.skills", lang, skills=names))


def config_show(ctx: Services, args: argparse.Namespace) -> int:
    _print_configuration(
        ctx.configuration.get_configuration(ctx.owner), args.json, ctx.settings.lang
    )
    return 0


def config_set(ctx: Services, args: argparse.Namespace) -> int:
    if args.prompt is None and args.skills is None:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "nothing_to_change", options="--prompt or --skills"
        )
    refs = None if args.skills is None else parse_ref_list(args.skills)
    configuration = ctx.configuration.save_configuration(
        ctx.owner, system_prompt_id=args.prompt, skill_refs=refs
    )
    _print_configuration(configuration, args.json, ctx.settings.lang)
    return 0


def config_paths(ctx: Services, args: argparse.Namespace) -> int:
    """Reads no data: it works with a database that cannot be opened, to find it."""
    settings = ctx.settings
    sources = settings.sources
    files = _path_files(settings)
    values = _setting_values(settings)
    problem = settings.config_problem
    if args.json:
        emit_json(
            {
                **files,
                "settings": {
                    name: {"value": value, "source": sources.get(name, "default")}
                    for name, value in values.items()
                },
                "ignored_keys": list(settings.config_ignored),
                "problem": None if problem is None else problem.to_json(settings.lang),
            }
        )
        return 0
    lang = settings.lang
    for name in ("config_file", "db_file", "log_file"):
        entry = files[name]
        emit_line(
            text(
                "cli.paths.file" if entry["exists"] else "cli.paths.file_missing",
                lang,
                label=pad(text(f"cli.paths.{name}", lang), 12),
                path=entry["path"] or text("cli.none", lang),
                source=entry["source"],
            )
        )
    emit_line()
    rows = [
        (name, _shown_value(name, value, lang), sources.get(name, "default"))
        for name, value in values.items()
    ]
    emit_table(_headers("cli.paths.header", ("setting", "value", "source"), lang), rows)
    if settings.config_ignored:
        emit_line()
        emit_line(text("cli.paths.ignored", lang, keys=settings.ignored_said()))
    if problem is not None:
        emit_line(f"\n{problem.message(settings.lang)}")
    return 0


def _path_files(settings: Settings) -> dict[str, dict[str, object]]:
    """The settings file, the database (a file, or a server's masked URL) and the log."""
    sources = settings.sources
    return {
        "config_file": _file_entry(settings.config_path, sources.get("config")),
        "db_file": _file_entry(settings.db_path, sources.get("db"))
        if settings.db_url is None
        else {"path": masked_url(settings.db_url), "exists": True, "source": sources.get("db")},
        "log_file": _file_entry(settings.log_path, sources.get("log_file")),
    }


def _setting_values(settings: Settings) -> dict[str, object]:
    """The settings ``config paths`` shows, by the settings file's names, in its order."""
    return {
        "user": settings.user,
        "lang": settings.lang,
        "ollama_url": settings.ollama_url,
        "provider": settings.provider,
        "base_url": settings.base_url,
        "model": settings.model,
        "theme": settings.theme,
        "num_ctx": settings.num_ctx,
        "timeout": settings.request_timeout,
        "deadline": settings.deadline,
        "log_level": settings.log_level,
        "recover_tool_calls": settings.recover_tool_calls,
        "keys": dict(settings.keymap),
    }


def _file_entry(path: Path | None, source: str | None) -> dict[str, object]:
    return {
        "path": None if path is None else str(path),
        "exists": path is not None and path.exists(),
        "source": source or "default",
    }


def _shown_value(name: str, value: object, lang: Language) -> str:
    if name == "num_ctx" and value is None:
        return text("cli.paths.num_ctx_discovered", lang)
    if name == "theme" and value is None:
        return text("cli.paths.theme_default", lang)
    if isinstance(value, dict):
        shown = ", ".join(f"{action}={keys}" for action, keys in value.items())
        return shown or text("cli.none", lang)
    if isinstance(value, bool):
        return "true" if value else "false"  # as the settings file writes it
    return str(value)


def skills_select(ctx: Services, args: argparse.Namespace) -> int:
    configuration = ctx.configuration.select_skills(ctx.owner, args.refs)
    _print_configuration(configuration, args.json, ctx.settings.lang)
    return 0


def skills_unselect(ctx: Services, args: argparse.Namespace) -> int:
    configuration = ctx.configuration.unselect_skills(ctx.owner, args.refs)
    _print_configuration(configuration, args.json, ctx.settings.lang)
    return 0


def parse_ref_list(value: str) -> list[str]:
    """``--skills``: comma-separated names or ids; an empty string is an empty list."""
    parts = [part.strip() for part in value.split(",")]
    if parts == [""]:
        return []
    if not all(parts):
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "bad_ref_list", value=value)
    return parts
