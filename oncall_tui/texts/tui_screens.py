"""What the terminal UI's screens and widgets say (all but the main screen's own file): status
lines while sending or compacting, the context panel and gauge, the sessions list, dialogs and
the composer's placeholder. Keys are namespaced by the area they belong to."""

from __future__ import annotations

from oncall_tui.errors import Language

STATUS: dict[str, dict[Language, str]] = {
    "status.sending": {"en": "Sending…", "zh": "发送中…"},
    "status.retrying": {"en": "Retrying…", "zh": "重试中…"},
    "status.nothing_to_retry": {
        "en": "Nothing to retry: the last message here has its answer (a failed or stopped one "
        "is answered again).",
        "zh": "没有可重试的消息：这里的最后一条消息已有回答（失败或中断的回答才会重新回答）。",
    },
    "draft.restored": {
        "en": "Restored your unsent message from last time.",
        "zh": "已恢复上次未发送的消息。",
    },
    "draft.prompt_kept": {
        "en": "Your unsaved prompt edits from last time are kept: {keys} opens them.",
        "zh": "上次未保存的提示词修改已保留：按 {keys} 打开。",
    },
    "status.reply_cancelled": {
        "en": "Reply cancelled; the partial answer is kept.",
        "zh": "已取消回复；已收到的部分会保留。",
    },
    "memory.compacted_notice": {
        "en": "Memory compacted: {count:,} messages summarised",
        "zh": "记忆已压缩：总结了 {count:,} 条消息",
    },
    "memory.compacting": {
        "en": "Compacting: the model is summarising the messages after the boundary…",
        "zh": "压缩中：模型正在总结边界之后的消息…",
    },
    "memory.stop_hint": {"en": "({keys} stops)", "zh": "（{keys} 停止）"},
    "memory.stopped": {"en": "Compacting stopped.", "zh": "已停止压缩。"},
    "memory.compacting_count": {
        "en": "Compacting: the model is summarising {count:,} messages…",
        "zh": "压缩中：模型正在总结 {count:,} 条消息…",
    },
    "memory.busy_streaming": {
        "en": "A reply is still streaming; memory can change after it.",
        "zh": "回复仍在输出；结束后才能修改记忆。",
    },
    "memory.busy_changing": {
        "en": "The session memory is being changed already; wait for it.",
        "zh": "会话记忆正在修改中，请稍候。",
    },
    "memory.nothing_to_compact": {
        "en": "Nothing to compact yet: the session starts with its first message.",
        "zh": "暂无可压缩内容：会话从第一条消息开始。",
    },
    "memory.compacted_done": {
        "en": "Memory compacted: the messages above the divider are summarised ({keys} shows "
        "the summary).",
        "zh": "记忆已压缩：分隔线上方的消息已总结（{keys} 查看摘要）。",
    },
    "memory.mode_done": {"en": "Memory mode: {mode}.", "zh": "记忆模式：{mode}。"},
    "memory.saving_mode": {"en": "Saving the memory mode…", "zh": "正在保存记忆模式…"},
    "memory.manual.title": {"en": "Switch to manual memory", "zh": "切换为手动记忆"},
    "memory.manual.question": {
        "en": (
            "Manual mode compacts now: the model summarises the messages after the boundary, "
            "and from then on only {keys} compacts. Compact now and switch?"
        ),
        "zh": (
            "手动模式会立即压缩：模型总结边界之后的消息，此后只有 {keys} 会压缩。现在压缩并切换吗？"
        ),
    },
}

PANEL: dict[str, dict[Language, str]] = {
    "panel.mode.every_30_turns": {"en": "Every 30 replies", "zh": "每 30 次回复"},
    "panel.mode.context_70_percent": {"en": "At 70% of the window", "zh": "达到窗口的 70%"},
    "panel.mode.manual": {"en": "Manual only", "zh": "仅手动"},
    "panel.context": {"en": "Context", "zh": "上下文"},
    "panel.memory": {"en": "Memory", "zh": "记忆"},
    "panel.compact_now": {"en": "Compact now", "zh": "立即压缩"},
    "panel.key.next_mode": {"en": "Next mode", "zh": "下一模式"},
    "panel.no_summary": {"en": "No summary yet.", "zh": "暂无摘要。"},
    "panel.nothing_to_summarise": {"en": "Nothing to summarise yet.", "zh": "暂无可总结的内容。"},
    "panel.prompt": {"en": "Prompt", "zh": "提示词"},
    "panel.skills": {"en": "Skills", "zh": "技能"},
    "panel.model": {"en": "Model", "zh": "模型"},
    "panel.summary_stamp": {"en": " ({when})", "zh": "（{when}）"},
    "panel.summary_cut_off": {"en": " (cut off)", "zh": "（已截断）"},
    "panel.summary_head": {
        "en": "{count:,} messages summarised{stamp}:",
        "zh": "已总结 {count:,} 条消息{stamp}：",
    },
    "panel.no_skills": {"en": "none selected", "zh": "未选择"},
    "panel.missing_model_hint": {
        "en": "{keys} picks an installed model",
        "zh": "按 {keys} 选择已安装的模型",
    },
    "panel.ollama.checking": {"en": "checking {url}…", "zh": "正在检查 {url}…"},
    "panel.ollama.not_pulled": {
        "en": "not pulled on Ollama {version}: {hint}",
        "zh": "Ollama {version} 上未拉取：{hint}",
    },
    "panel.ollama.reachable": {
        "en": "Ollama {version} at {url}",
        "zh": "Ollama {version}，位于 {url}",
    },
    "panel.server.not_served": {
        "en": "not served by {url}: {hint}",
        "zh": "{url} 未提供此模型：{hint}",
    },
    "panel.server.reachable": {
        "en": "server {version} at {url}",
        "zh": "模型服务器 {version}，位于 {url}",
    },
    "panel.server.unreachable": {
        "en": "model server unreachable at {url}",
        "zh": "无法连接模型服务器：{url}",
    },
    "panel.answers_otherwise": {
        "en": "{url} answers HTTP {status}",
        "zh": "{url} 返回 HTTP {status}",
    },
    "panel.ollama.unreachable": {
        "en": "Ollama unreachable at {url}",
        "zh": "无法连接 Ollama：{url}",
    },
    "gauge.summary": {
        "en": "context {percent}% of {window:,}",
        "zh": "上下文 {percent}%／{window:,}",
    },
    "gauge.unknown": {"en": "context window unknown", "zh": "上下文窗口未知"},
    "gauge.reading": {"en": "reading the context…", "zh": "正在读取上下文用量…"},
    "gauge.figures": {
        "en": "{used:,} / {window:,} tokens · {percent}%",
        "zh": "{used:,} / {window:,} 词元 · {percent}%",
    },
    "gauge.figures_short": {
        "en": "{used:,} / {window:,} · {percent}%",
        "zh": "{used:,} / {window:,} · {percent}%",
    },
}

SESSIONS: dict[str, dict[Language, str]] = {
    "sessions.new": {"en": "New session", "zh": "新会话"},
    "sessions.no_match": {"en": "no session matches “{needle}”", "zh": "没有匹配“{needle}”的会话"},
    "sessions.filter": {"en": "Filter sessions", "zh": "筛选会话"},
    "sessions.key.delete": {"en": "Delete session", "zh": "删除会话"},
    "sessions.key.filter": {"en": "Filter", "zh": "筛选"},
    "sessions.key.clear_filter": {"en": "Clear filter", "zh": "清除筛选"},
}

COMPOSER: dict[str, dict[Language, str]] = {
    "composer.placeholder": {
        "en": "Message · Enter sends · ctrl+j new line · ↑ history",
        "zh": "输入消息 · Enter 发送 · ctrl+j 换行 · ↑ 历史",
    },
    "composer.key.submit": {"en": "Send", "zh": "发送"},
    "composer.key.newline": {"en": "Newline", "zh": "换行"},
    "composer.key.clear_text": {"en": "Clear", "zh": "清空"},
    "composer.key.clear_text.help": {"en": "Empty the composer", "zh": "清空输入框"},
    "composer.key.select_all": {"en": "Select all", "zh": "全选"},
}

DIALOGS: dict[str, dict[Language, str]] = {
    "dialog.yes": {"en": "Yes", "zh": "是"},
    "dialog.no": {"en": "No", "zh": "否"},
    "dialog.cancel": {"en": "Cancel", "zh": "取消"},
    "dialog.save": {"en": "Save", "zh": "保存"},
    "dialog.discard": {"en": "Discard", "zh": "放弃"},
    "dialog.close": {"en": "Close", "zh": "关闭"},
    "dialog.parent": {"en": "Parent directory", "zh": "上级目录"},
    "dialog.confirm.keys": {
        "en": "y yes · n/esc no · tab switches · enter = {focused}",
        "zh": "y 是 · n/esc 否 · tab 切换 · enter = {focused}",
    },
    "dialog.tool.waiting": {
        "en": "Not answering yet: what you type goes to your message. Stop typing to answer.",
        "zh": "暂不接受回答：现在输入的内容会进入你的消息。停止输入后再回答。",
    },
    "dialog.tool.keys": {
        "en": "y run · n/esc don't run · tab switches · enter = {focused}",
        "zh": "y 运行 · n/esc 不运行 · tab 切换 · enter = {focused}",
    },
    "dialog.unsaved.title": {"en": "Unsaved changes", "zh": "未保存的修改"},
    "dialog.unsaved.keys": {
        "en": "s save · d discard · esc/c keep editing",
        "zh": "s 保存 · d 放弃 · esc/c 继续编辑",
    },
    "dialog.text.keys": {"en": "enter ok · esc cancel", "zh": "enter 确定 · esc 取消"},
    "dialog.viewer.keys": {
        "en": "read-only · arrows/pgup/pgdn scroll · esc/q close",
        "zh": "只读 · 方向键/pgup/pgdn 滚动 · esc/q 关闭",
    },
    "dialog.file.keys": {
        "en": "enter open/choose · backspace parent directory · esc cancel",
        "zh": "enter 打开/选择 · backspace 上级目录 · esc 取消",
    },
}

SUMMARY: dict[str, dict[Language, str]] = {
    "summary.title": {"en": "Session summary (model-written)", "zh": "会话摘要（模型撰写）"},
    "summary.close_keys": {"en": "esc/q/f6 close", "zh": "esc/q/f6 关闭"},
    "summary.scroll_keys": {"en": "↑↓/pgup/pgdn scroll", "zh": "↑↓/pgup/pgdn 滚动"},
    "summary.none": {
        "en": "No summary yet: nothing in this session has been compacted.",
        "zh": "暂无摘要：本会话尚未压缩过。",
    },
    "summary.time_unknown": {"en": "time unknown", "zh": "时间未知"},
    "summary.status.complete": {"en": "complete", "zh": "完整"},
    "summary.status.truncated": {"en": "truncated", "zh": "不完整"},
    "summary.cut_off": {
        "en": ", cut off at the model's length limit",
        "zh": "，已在模型长度上限处截断",
    },
    "summary.covers": {
        "en": "Summarises {count:,} earlier messages · {stamp}",
        "zh": "总结了之前的 {count:,} 条消息 · {stamp}",
    },
    "summary.covers_one": {
        "en": "Summarises {count:,} earlier message · {stamp}",
        "zh": "总结了之前的 {count:,} 条消息 · {stamp}",
    },
    "summary.status": {"en": "Status: {status}", "zh": "状态：{status}"},
    "summary.where": {
        "en": "Every message is still in the log, above the divider.",
        "zh": "所有消息仍在记录中，位于分隔线上方。",
    },
}

MODELS: dict[str, dict[Language, str]] = {
    "models.title": {
        "en": "Models on {url} (current: {current})",
        "zh": "{url} 上的模型（当前：{current}）",
    },
    "models.loading": {"en": "Loading…", "zh": "加载中…"},
    "models.current": {"en": "(current)", "zh": "（当前）"},
    "models.no_tools": {"en": "no tools", "zh": "不支持工具"},
    "models.window": {"en": "{trained} ctx", "zh": "{trained} 上下文"},
    "models.window_used": {
        "en": "{trained} ctx, uses {used}",
        "zh": "{trained} 上下文，使用 {used}",
    },
    "models.none": {
        "en": "Ollama has no models yet: run `ollama pull NAME`.",
        "zh": "Ollama 还没有模型：请运行 `ollama pull NAME`。",
    },
    "models.reading": {"en": "Reading each model's details…", "zh": "正在读取各模型的详情…"},
    "models.missing": {
        "en": "{model}, the configured model, is not installed: Enter picks the one under the "
        "cursor, or run `ollama pull {model}`.",
        "zh": "配置的模型 {model} 未安装：按 Enter 选用光标所在的模型，或运行 "
        "`ollama pull {model}`。",
    },
    "models.missing_server": {
        "en": "{model}, the configured model, is not served here: Enter picks the one under "
        "the cursor.",
        "zh": "此服务没有配置的模型 {model}：按 Enter 选用光标所在的模型。",
    },
    "models.no_details": {
        "en": "Ollama gave no details for {count} models: context and tool support unknown.",
        "zh": "Ollama 未提供 {count} 个模型的详情：上下文长度与工具支持未知。",
    },
    "models.no_details_one": {
        "en": "Ollama gave no details for 1 model: context and tool support unknown.",
        "zh": "Ollama 未提供 1 个模型的详情：上下文长度与工具支持未知。",
    },
}

CHAT_LOG: dict[str, dict[Language, str]] = {
    "log.you": {"en": "you", "zh": "你"},
    "log.assistant": {"en": "assistant", "zh": "助手"},
    "log.waited": {"en": "{seconds} s", "zh": "{seconds} 秒"},
    "log.status.interrupted": {"en": "interrupted", "zh": "已中断"},
    "log.status.failed": {"en": "failed", "zh": "失败"},
    "log.status.truncated": {"en": "truncated", "zh": "已截断"},
    "log.earlier": {
        "en": "↑ {count:,} earlier messages · {keys} or Enter here to load more",
        "zh": "↑ 还有 {count:,} 条更早的消息 · {keys} 或在此按 Enter 加载",
    },
    "log.divider": {
        "en": "{count:,} earlier messages summarised · {keys} shows the summary",
        "zh": "之前的 {count:,} 条消息已总结 · {keys} 查看摘要",
    },
    "log.key.previous": {"en": "Previous message", "zh": "上一条消息"},
    "log.key.next": {"en": "Next message", "zh": "下一条消息"},
    "log.key.copy": {"en": "Copy message", "zh": "复制消息"},
    "log.key.copy_code": {"en": "Copy code", "zh": "复制代码"},
    "log.key.open": {"en": "Open", "zh": "打开"},
}

PROMPTS: dict[str, dict[Language, str]] = {
    "prompts.title": {"en": "System prompts", "zh": "系统提示词"},
    "prompts.active": {"en": "active", "zh": "使用中"},
    "prompts.label": {"en": "Label", "zh": "名称"},
    "prompts.label.placeholder": {
        "en": "A short name for this prompt",
        "zh": "为这个提示词起个简短的名字",
    },
    "prompts.content": {"en": "Content", "zh": "内容"},
    "prompts.new_prompt": {"en": "New prompt", "zh": "新提示词"},
    "prompts.not_saved": {"en": "not saved yet", "zh": "尚未保存"},
    "prompts.editing": {"en": "Editing: {label}", "zh": "正在编辑：{label}"},
    "prompts.default": {"en": "default", "zh": "默认"},
    "prompts.default_mark": {"en": " (default)", "zh": "（默认）"},
    "prompts.counter.label": {"en": "label", "zh": "名称"},
    "prompts.counter.content": {"en": "content", "zh": "内容"},
    "prompts.modified": {"en": "modified", "zh": "已修改"},
    "prompts.saved": {"en": "Saved “{label}”.", "zh": "已保存“{label}”。"},
    "prompts.draft_restored": {
        "en": "Your unsaved edits are back: the app ended before they were saved (ctrl+s "
        "saves them).",
        "zh": "未保存的修改已恢复：应用在保存前就结束了（按 ctrl+s 保存）。",
    },
    "prompts.deleted": {"en": "Deleted “{label}”.", "zh": "已删除“{label}”。"},
    "prompts.unsaved": {
        "en": "This prompt has unsaved changes. Save them first?",
        "zh": "此提示词有未保存的修改。先保存吗？",
    },
    "prompts.now_active": {
        "en": "“{label}” is now the active prompt.",
        "zh": "“{label}”现为使用中的提示词。",
    },
    "prompts.active_unsaved_note": {
        "en": " Unsaved edits are not used until you save them.",
        "zh": "未保存的修改在保存前不会生效。",
    },
    "prompts.nothing_to_delete": {
        "en": "This prompt is not saved yet; there is nothing to delete.",
        "zh": "此提示词尚未保存，无需删除。",
    },
    "prompts.delete.title": {"en": "Delete prompt?", "zh": "删除提示词？"},
    "prompts.delete.question": {
        "en": "Delete “{label}”? This cannot be undone.",
        "zh": "删除“{label}”？此操作无法撤销。",
    },
    "prompts.delete.active": {
        "en": "It is your active prompt; the default prompt takes its place.",
        "zh": "它是当前使用的提示词，删除后由默认提示词代替。",
    },
    "prompts.delete.unsaved": {
        "en": "Your unsaved edits to it are lost as well.",
        "zh": "对它未保存的修改也会丢失。",
    },
    "prompts.key.save": {"en": "Save", "zh": "保存"},
    "prompts.key.new": {"en": "New", "zh": "新建"},
    "prompts.key.activate": {"en": "Use as active", "zh": "设为使用中"},
    "prompts.key.delete": {"en": "Delete", "zh": "删除"},
    "prompts.key.back": {"en": "Back", "zh": "返回"},
}

SKILLS: dict[str, dict[Language, str]] = {
    "skills.title": {"en": "Skills", "zh": "技能"},
    "skills.title_counts": {
        "en": "Skills · {count} stored · {used} selected for use",
        "zh": "技能 · 已存 {count} 个 · 选用 {used} 个",
    },
    "skills.placeholder": {
        "en": "Add a SKILL.md: type its path ({key} completes, enter adds)",
        "zh": "添加 SKILL.md：输入路径（{key} 补全，Enter 添加）",
    },
    "skills.none": {
        "en": "No skills yet: add a SKILL.md above.",
        "zh": "还没有技能：请在上方添加 SKILL.md。",
    },
    "skills.added": {"en": "Added skill {name} ({size}).", "zh": "已添加技能 {name}（{size}）。"},
    "skills.added_many": {
        "en": "Added {count} skills: {names}.",
        "zh": "已添加 {count} 个技能：{names}。",
    },
    "skills.stored_already": {
        "en": "Stored already, so not added: {names} (delete one first to replace it).",
        "zh": "已存在，未添加：{names}（要替换，请先删除）。",
    },
    "skills.left": {
        "en": "Skill folders not looked at: {count} (at most {most} at a time).",
        "zh": "未处理的技能文件夹：{count} 个（一次最多 {most} 个）。",
    },
    "skills.selected": {"en": "Selected skill {name}.", "zh": "已选用技能 {name}。"},
    "skills.unselected": {"en": "Unselected skill {name}.", "zh": "已取消选用技能 {name}。"},
    "skills.delete.title": {"en": "Delete skill?", "zh": "删除技能？"},
    "skills.delete.ask": {
        "en": "Delete the skill '{name}'? This cannot be undone.",
        "zh": "删除技能 '{name}'？此操作无法撤销。",
    },
    "skills.delete.in_use": {
        "en": " It is also removed from the skills in use.",
        "zh": "它也会从正在使用的技能中移除。",
    },
    "skills.delete.yes": {"en": "Delete", "zh": "删除"},
    "skills.deleted": {"en": "Deleted skill {name}.", "zh": "已删除技能 {name}。"},
    "skills.column.use": {"en": "Use", "zh": "用"},
    "skills.column.name": {"en": "Name", "zh": "名称"},
    "skills.column.size": {"en": "Size", "zh": "大小"},
    "skills.column.description": {"en": "Description", "zh": "描述"},
    "skills.key.back": {"en": "Back", "zh": "返回"},
    "skills.key.toggle": {"en": "Select/unselect", "zh": "选用/取消"},
    "skills.key.view": {"en": "View", "zh": "查看"},
    "skills.key.add": {"en": "Add", "zh": "添加"},
    "skills.key.browse": {"en": "Browse", "zh": "浏览"},
    "skills.key.delete": {"en": "Delete", "zh": "删除"},
    "skills.key.reload": {"en": "Reload", "zh": "重新读取"},
    "panel.tools": {"en": "Tools", "zh": "工具"},
    "panel.no_tools": {"en": "none allowed", "zh": "没有允许的工具"},
    "panel.tools_failed": {
        "en": "{server}: did not start (oncall-tui doctor says why)",
        "zh": "{server}：未能启动（oncall-tui doctor 会说明原因）",
    },
    "panel.tools_stopped": {
        "en": "{server}: kept stopping; not started again until oncall-tui restarts",
        "zh": "{server}：多次停止；在 oncall-tui 重启前不再启动",
    },
    "path.key.complete": {"en": "Complete path", "zh": "补全路径"},
    "prompts.save_first": {
        "en": "Save this new prompt first (ctrl+s), then make it active.",
        "zh": "请先保存这个新提示词（ctrl+s），再将其设为当前使用。",
    },
    "prompts.already_active": {
        "en": "This prompt is already the active one.",
        "zh": "这个提示词已经是当前使用的。",
    },
    "status.unexpected": {"en": "Unexpected error: {error}", "zh": "意外错误：{error}"},
}

SCREENS: dict[str, dict[Language, str]] = {
    **PROMPTS,
    **CHAT_LOG,
    **STATUS,
    **PANEL,
    **SESSIONS,
    **COMPOSER,
    **DIALOGS,
    **SUMMARY,
    **MODELS,
    **SKILLS,
}
