"""Configuration use cases: prompts, skills and the selection the agent will use.

Each public method is one unit of work (one transaction) scoped to ``owner``, or, where a read
finds a selection that needs repair first, a read and then a write. Rules are those of
docs/ARCHITECTURE.md "Configuration rules"; errors come from the catalog.

Reading the selection does not take the write lock unless something must be written: the first
read of an owner (the default prompt and an empty selection are created), a selected prompt or
skill that no longer exists (the selection is repaired and written back). Skill bodies are read
only for the selected skills of a request (:func:`read_active_context`); listings and the
configuration view never load them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from oncall_tui.core.prompts import validate_content, validate_label, validate_prompt
from oncall_tui.core.skills import validate_skill_upload
from oncall_tui.errors import OncallError
from oncall_tui.inputs import is_storable_id
from oncall_tui.services.skill_files import (
    MAX_FOLDERS,
    AddedSkills,
    read_skill_file,
    skill_folders,
)
from oncall_tui.services.views import ConfigurationView, PromptView, SkillDetail, SkillView
from oncall_tui.store.engine import Database, lock_owner
from oncall_tui.store.failures import FAILED_DATABASE_CODES
from oncall_tui.store.ids import stored_id
from oncall_tui.store.repositories import (
    ConfigurationRepository,
    PromptRepository,
    SkillRepository,
)
from oncall_tui.store.tables import ConfigurationRow, PromptRow, SkillRow

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ActiveContext:
    """What one chat request is assembled from: the active prompt and the selected skills."""

    prompt: PromptView
    skills: tuple[SkillDetail, ...]


class ConfigurationService:
    def __init__(self, database: Database) -> None:
        self._database = database

    @contextlib.contextmanager
    def _writing(self, owner: str) -> Iterator[Session]:
        """A unit of work that may change the owner's prompts, skills or selection: it holds
        the owner's lock, so two of them never interleave their read-modify-writes."""
        with self._database.session() as session:
            lock_owner(session, owner)
            yield session

    # -- prompts ---------------------------------------------------------------------------

    def list_prompts(self, owner: str) -> list[PromptView]:
        with self._writing(owner) as session:
            prompts = PromptRepository(session)
            prompts.ensure_default(owner)
            return [PromptView.of(row) for row in prompts.list(owner)]

    def get_prompt(self, owner: str, prompt_id: int) -> PromptView:
        with self._database.read() as session:
            return PromptView.of(_require_prompt(session, owner, prompt_id))

    def create_prompt(self, owner: str, label: str, content: str) -> PromptView:
        text = validate_prompt(label, content)
        with self._writing(owner) as session:
            row = PromptRepository(session).add(owner, text.label, text.content)
            log.info("prompt %s created (%d chars)", row.id, len(text.content))
            return PromptView.of(row)

    def update_prompt(
        self, owner: str, prompt_id: int, *, label: str | None = None, content: str | None = None
    ) -> PromptView:
        if label is None and content is None:
            raise OncallError(
                "VALIDATION_INVALID_ARGUMENT", "nothing_to_change", options="a label or content"
            )
        new_label = None if label is None else validate_label(label)
        new_content = None if content is None else validate_content(content)
        with self._writing(owner) as session:
            row = PromptRepository(session).update(
                owner, prompt_id, label=new_label, content=new_content
            )
            if row is None:
                raise OncallError("NOT_FOUND", kind="prompt", ref=prompt_id)
            log.info("prompt %s updated", prompt_id)
            return PromptView.of(row)

    def delete_prompt(self, owner: str, prompt_id: int) -> None:
        """Delete a prompt; if it was the active one the owner falls back to the default."""
        with self._writing(owner) as session:
            row = _require_prompt(session, owner, prompt_id)
            if row.is_default:
                raise OncallError("PROMPT_DEFAULT_PROTECTED")
            PromptRepository(session).delete(owner, prompt_id)
            configuration = ConfigurationRepository(session).get(owner)
            if configuration is not None and configuration.system_prompt_id == prompt_id:
                default = PromptRepository(session).ensure_default(owner)
                ConfigurationRepository(session).save(owner, default.id, configuration.skill_ids)
            log.info("prompt %s deleted", prompt_id)

    # -- skills ----------------------------------------------------------------------------

    def add_skill(self, owner: str, filename: str, data: bytes) -> SkillView:
        document = validate_skill_upload(filename, data)
        with self._writing(owner) as session:
            row = SkillRepository(session).add(owner, filename, document)
            log.info("skill %s (%s) stored, %d bytes", row.id, row.name, row.size_bytes)
            return SkillView.of(row)

    def add_skill_files(self, owner: str, path: str) -> AddedSkills:
        """Upload what a user named (:mod:`.skill_files`), the TUI's path field and ``skills
        add`` alike: a ``SKILL.md``, a folder holding one (refused as one: the error is
        raised), or a folder of such folders, each added on its own: one refused (a name
        stored already) does not stop the others, and the result says which and why. A
        database that fails stops them all (it is raised)."""
        folders = skill_folders(path)
        if folders is None:
            return AddedSkills((self.add_skill(owner, *read_skill_file(path)),))
        added: list[SkillView] = []
        refused: list[tuple[str, OncallError]] = []
        for skill_file in folders[:MAX_FOLDERS]:
            try:
                added.append(self.add_skill(owner, *read_skill_file(str(skill_file))))
            except OncallError as error:
                if error.code in FAILED_DATABASE_CODES:
                    raise
                refused.append((skill_file.parent.name, error))
        left = max(0, len(folders) - MAX_FOLDERS)
        return AddedSkills(tuple(added), tuple(refused), left, of_folders=True)

    def list_skills(self, owner: str) -> list[SkillView]:
        with self._database.read() as session:
            return [SkillView.of(row) for row in SkillRepository(session).list(owner)]

    def show_skill(self, owner: str, ref: str | int) -> SkillDetail:
        with self._database.read() as session:
            row = _require_skill(session, owner, ref)
            return SkillDetail(skill=SkillView.of(row), content=row.content)

    def delete_skill(self, owner: str, ref: str | int) -> SkillView:
        """Delete a skill and remove it from the owner's selection in the same transaction."""
        with self._writing(owner) as session:
            row = _require_skill(session, owner, ref)
            view = SkillView.of(row)
            SkillRepository(session).delete(owner, view.id)
            configurations = ConfigurationRepository(session)
            configuration = configurations.get(owner)
            if configuration is not None and view.id in configuration.skill_ids:
                remaining = [i for i in configuration.skill_ids if i != view.id]
                configurations.save(owner, configuration.system_prompt_id, remaining)
            log.info("skill %s deleted", view.id)
            return view

    # -- selection -------------------------------------------------------------------------

    def get_configuration(self, owner: str) -> ConfigurationView:
        """The owner's selection; the first read creates the default prompt and an empty one.

        Read without the write lock; only a selection that needs repair (or does not exist
        yet) is written, in a second unit of work that checks again under the lock."""
        with self._database.read() as session:
            view = _read_configuration(session, owner)
        if view is not None:
            return view
        with self._writing(owner) as session:
            return _load_configuration(session, owner)

    def save_configuration(
        self,
        owner: str,
        *,
        system_prompt_id: int | None = None,
        skill_ids: Sequence[int] | None = None,
        skill_refs: Sequence[str] | None = None,
    ) -> ConfigurationView:
        """Save a new selection; ``None`` keeps that part as it is.

        Skills are given by id, or by name or id (``skill_refs``, as typed on a command line).
        Every id is checked against the owner first: one unknown or foreign id fails the
        whole save and the previous selection stays.
        """
        with self._writing(owner) as session:
            current = _load_configuration(session, owner)
            if skill_refs is not None:
                skill_ids = _resolve_refs(current.skills, skill_refs)
            prompt_id = current.system_prompt_id if system_prompt_id is None else system_prompt_id
            if PromptRepository(session).get(owner, prompt_id) is None:
                raise OncallError("VALIDATION_INVALID_ARGUMENT", "unknown_prompt_id", ref=prompt_id)
            wanted = list(current.skill_ids if skill_ids is None else _unique(skill_ids))
            owned = {skill.id for skill in current.skills}
            missing = [skill_id for skill_id in wanted if skill_id not in owned]
            if missing:
                raise OncallError(
                    "VALIDATION_INVALID_ARGUMENT",
                    "unknown_skill_ids",
                    refs=", ".join(str(i) for i in missing),
                )
            ConfigurationRepository(session).save(owner, prompt_id, wanted)
            return _load_configuration(session, owner)

    def select_skills(self, owner: str, refs: Sequence[str]) -> ConfigurationView:
        """Add skills (names or ids) to the selection, after those already in it."""
        with self._writing(owner) as session:
            current = _load_configuration(session, owner)
            added = _resolve_refs(current.skills, refs)
            wanted = _unique([*current.skill_ids, *added])
            ConfigurationRepository(session).save(owner, current.system_prompt_id, wanted)
            return _load_configuration(session, owner)

    def unselect_skills(self, owner: str, refs: Sequence[str]) -> ConfigurationView:
        """Remove skills (names or ids) from the selection; each must be one of the owner's."""
        with self._writing(owner) as session:
            current = _load_configuration(session, owner)
            removed = set(_resolve_refs(current.skills, refs))
            wanted = [skill_id for skill_id in current.skill_ids if skill_id not in removed]
            ConfigurationRepository(session).save(owner, current.system_prompt_id, wanted)
            return _load_configuration(session, owner)

    def active_context(self, owner: str) -> ActiveContext:
        """The prompt and skill bodies for one request; stale skill ids are dropped for good.

        One read; a selection that needs repair is repaired by :meth:`repaired_active_context`.
        """
        with self._database.read() as session:
            context = read_active_context(session, owner)
        return context if context is not None else self.repaired_active_context(owner)

    def repaired_active_context(self, owner: str) -> ActiveContext:
        """One unit of work that repairs the selection as the rules say (creating it on first
        use) and returns the context it then holds; for a reader that found it needs repair."""
        with self._writing(owner) as session:
            return active_context_in(session, owner)


def read_active_context(session: Session, owner: str) -> ActiveContext | None:
    """The owner's active prompt and selected skills, bodies included, read in the caller's
    unit of work without writing: the stored selection, its prompt and the selected skills
    only (other skills' bodies are not read).

    ``None`` when the selection needs repair first, which only a write may do: it does not
    exist yet, its prompt is gone, or a selected skill is gone (:func:`active_context_in`).
    """
    row = ConfigurationRepository(session).get(owner)
    if row is None or row.system_prompt_id is None:
        return None
    prompt = PromptRepository(session).get(owner, row.system_prompt_id)
    found = SkillRepository(session).get_many(owner, row.skill_ids)
    if prompt is None or any(skill_id not in found for skill_id in row.skill_ids):
        return None
    skills = tuple(_detail(found[skill_id]) for skill_id in row.skill_ids)
    return ActiveContext(prompt=PromptView.of(prompt), skills=skills)


def active_context_in(session: Session, owner: str) -> ActiveContext:
    """The owner's active context, in the caller's unit of work, which must be one that may
    write: a selection that needs repair is repaired and written back first."""
    context = read_active_context(session, owner)
    if context is not None:
        return context
    lock_owner(session, owner)  # then re-read: another unit may have repaired it meanwhile
    configuration = _load_configuration(session, owner)
    rows = SkillRepository(session).get_many(owner, configuration.skill_ids)
    skills = tuple(_detail(rows[skill_id]) for skill_id in configuration.skill_ids)
    return ActiveContext(prompt=configuration.active_prompt, skills=skills)


def _detail(row: SkillRow) -> SkillDetail:
    return SkillDetail(skill=SkillView.of(row), content=row.content)


def _read_configuration(session: Session, owner: str) -> ConfigurationView | None:
    """The selection as stored, read without writing; ``None`` when it needs what only
    :func:`_load_configuration` may do: creating it, or repairing it."""
    row = ConfigurationRepository(session).get(owner)
    if row is None:
        return None
    prompt_rows = PromptRepository(session).list(owner)
    skill_rows = SkillRepository(session).list(owner)
    owned = {s.id for s in skill_rows}
    has_default = any(p.is_default for p in prompt_rows)
    prompt_known = any(p.id == row.system_prompt_id for p in prompt_rows)
    if not (has_default and prompt_known) or any(i not in owned for i in row.skill_ids):
        return None
    return _view(row, prompt_rows, skill_rows)


def _load_configuration(session: Session, owner: str) -> ConfigurationView:
    """Read (creating on first use) and repair the selection: a missing prompt falls back to
    the default, skill ids that no longer exist are dropped and the cleaned row written back.
    Skills are listed without their bodies."""
    prompts = PromptRepository(session)
    skills = SkillRepository(session)
    configurations = ConfigurationRepository(session)
    default = prompts.ensure_default(owner)
    row = configurations.get(owner)
    prompt_rows = prompts.list(owner)
    skill_rows = skills.list(owner)
    prompt_ids = {p.id for p in prompt_rows}
    skill_ids_owned = {s.id for s in skill_rows}
    stored_prompt = row.system_prompt_id if row is not None else None
    prompt_id = stored_prompt if stored_prompt in prompt_ids else default.id
    stored_skills = list(row.skill_ids) if row is not None else []
    skill_ids = [i for i in stored_skills if i in skill_ids_owned]
    if row is None or prompt_id != stored_prompt or skill_ids != stored_skills:
        configurations.save(owner, prompt_id, skill_ids)
        row = configurations.get(owner)
        if row is None:
            raise RuntimeError("the configuration just saved in this unit of work is missing")
    return _view(row, prompt_rows, skill_rows)


def _view(
    row: ConfigurationRow, prompt_rows: Sequence[PromptRow], skill_rows: Sequence[SkillRow]
) -> ConfigurationView:
    if row.system_prompt_id is None:  # repaired (or found whole) before it is shown
        raise RuntimeError("a configuration without a prompt cannot be shown")
    return ConfigurationView(
        system_prompt_id=row.system_prompt_id,
        skill_ids=tuple(row.skill_ids),
        prompts=tuple(PromptView.of(p) for p in prompt_rows),
        skills=tuple(SkillView.of(s) for s in skill_rows),
        updated_at=row.updated_at,
    )


def _require_prompt(session: Session, owner: str, prompt_id: int) -> PromptRow:
    row = PromptRepository(session).get(owner, prompt_id)
    if row is None:
        raise OncallError("NOT_FOUND", kind="prompt", ref=prompt_id)
    return row


def _require_skill(session: Session, owner: str, ref: str | int) -> SkillRow:
    """Find a skill by id or by name; a reference that could be an id is tried as one first
    (a name of digits too long for an id, or of other scripts' digits, is only a name). One
    that is a skill's id and another's name is refused (:func:`_unambiguous`)."""
    repository = SkillRepository(session)
    text = str(ref).strip()
    row = repository.get(owner, int(text)) if is_storable_id(text) else None
    named = repository.get_by_name(owner, text)
    if row is None:
        row = named
    elif named is not None:
        _unambiguous(text, stored_id(row), stored_id(named))
    if row is None:
        raise OncallError("NOT_FOUND", kind="skill", ref=text)
    return row


def _unambiguous(ref: str, by_id: int, by_name: int) -> None:
    """``ref`` is skill ``by_id``'s id and skill ``by_name``'s name: neither is acted on
    (``skills show 5`` showed skill 5, never the skill named "5")."""
    if by_id != by_name:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "skill_ref_ambiguous", ref=ref, id=by_id, other=by_name
        )


def _resolve_refs(skills: Sequence[SkillView], refs: Sequence[str]) -> list[int]:
    """Skill ids for names or ids, in order, found among ``skills`` (all of the owner's, as
    listed in this unit of work: no body is read) by :func:`_require_skill`'s rule; any
    unknown one fails them all."""
    owned = {skill.id for skill in skills}
    by_name = {skill.name: skill.id for skill in skills}
    ids: list[int] = []
    unknown: list[str] = []
    for ref in refs:
        text = ref.strip()
        found = int(text) if is_storable_id(text) and int(text) in owned else None
        named = by_name.get(text)
        if found is not None and named is not None:
            _unambiguous(text, found, named)
        found = named if found is None else found
        if found is None:
            unknown.append(repr(text))
            continue
        ids.append(found)
    if unknown:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "unknown_skills", refs=", ".join(unknown))
    return ids


def _unique(ids: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(ids))
