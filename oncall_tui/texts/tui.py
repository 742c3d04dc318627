"""What the terminal UI says: footer keys, the command palette, the keys help, dialogs, status
lines and panels."""

from __future__ import annotations

from oncall_tui.errors import Language

COMMANDS: dict[str, dict[Language, str]] = {
    "command.quit": {"en": "Quit", "zh": "退出"},
    "command.quit.title": {"en": "Quit", "zh": "退出"},
    "command.quit.help": {
        "en": "Leave oncall-tui (a streaming reply is kept, marked interrupted)",
        "zh": "退出 oncall-tui（正在输出的回复会保留并标记为中断）",
    },
    "command.quit.also": {"en": "quit", "zh": "退出"},
    "command.keys": {"en": "Keys", "zh": "按键"},
    "command.keys.title": {"en": "Keys", "zh": "按键帮助"},
    "command.keys.help": {
        "en": "List every key, and the ids that rebind them",
        "zh": "列出所有按键及用于改键的 id",
    },
    "command.keys.also": {"en": "every key, and their ids", "zh": "所有按键及其 id"},
    "command.toggle_panel": {"en": "Panel", "zh": "面板"},
    "command.toggle_panel.title": {"en": "Toggle context panel", "zh": "显示/隐藏上下文面板"},
    "command.toggle_panel.help": {
        "en": "Show or hide the context panel (prompt, skills, memory, gauge)",
        "zh": "显示或隐藏上下文面板（提示词、技能、记忆、用量）",
    },
    "command.toggle_panel.also": {"en": "toggle the context panel", "zh": "上下文面板"},
    "command.toggle_sessions": {"en": "Sessions", "zh": "会话栏"},
    "command.toggle_sessions.title": {"en": "Toggle sessions pane", "zh": "显示/隐藏会话栏"},
    "command.toggle_sessions.help": {
        "en": "Show or hide the sessions list on the left (the chat takes its width)",
        "zh": "显示或隐藏左侧的会话列表（聊天区占用其宽度）",
    },
    "command.toggle_sessions.also": {"en": "toggle the sessions pane", "zh": "会话栏"},
    "command.cancel_reply": {"en": "Cancel", "zh": "取消"},
    "command.cancel_reply.title": {"en": "Cancel reply", "zh": "取消回复"},
    "command.cancel_reply.help": {
        "en": "Stop the streaming reply, keeping what arrived",
        "zh": "停止正在输出的回复，保留已收到的内容",
    },
    "command.cancel_reply.also": {"en": "stop the reply", "zh": "停止回复"},
    "command.interrupt_reply": {"en": "Cancel", "zh": "取消"},
    "command.interrupt_reply.title": {"en": "Stop reply", "zh": "停止回复"},
    "command.interrupt_reply.help": {
        "en": "While a reply streams: stop it, as in the CLI",
        "zh": "回复输出时：停止它（与命令行一致）",
    },
    "command.interrupt_reply.also": {"en": "stop the reply", "zh": "停止回复"},
    "command.new_session": {"en": "New", "zh": "新建"},
    "command.new_session.title": {"en": "New session", "zh": "新建会话"},
    "command.new_session.help": {
        "en": "Start an empty session",
        "zh": "开始一个空会话",
    },
    "command.new_session.also": {"en": "new session", "zh": "新会话"},
    "command.compact": {"en": "Compact", "zh": "压缩"},
    "command.compact.title": {"en": "Compact memory", "zh": "压缩记忆"},
    "command.compact.help": {
        "en": "Summarise the messages after the boundary now (history is kept)",
        "zh": "立即总结边界之后的消息（历史会保留）",
    },
    "command.compact.also": {"en": "compact now", "zh": "立即压缩"},
    "command.prompts": {"en": "Prompts", "zh": "提示词"},
    "command.prompts.title": {"en": "Prompts", "zh": "提示词"},
    "command.prompts.help": {
        "en": "Write, edit and choose your system prompts",
        "zh": "编写、编辑和选择系统提示词",
    },
    "command.prompts.also": {"en": "prompt editor;system prompt", "zh": "提示词编辑器;系统提示词"},
    "command.skills": {"en": "Skills", "zh": "技能"},
    "command.skills.title": {"en": "Skills", "zh": "技能"},
    "command.skills.help": {
        "en": "Add SKILL.md skills, read them, choose which the model may load",
        "zh": "添加 SKILL.md 技能、查看内容、选择模型可加载的技能",
    },
    "command.skills.also": {"en": "skill library;SKILL.md", "zh": "技能库;SKILL.md"},
    "command.models": {"en": "Model", "zh": "模型"},
    "command.models.title": {"en": "Model", "zh": "模型"},
    "command.models.help": {
        "en": "Pick the chat model from those Ollama has",
        "zh": "从 Ollama 已有的模型中选择对话模型",
    },
    "command.models.also": {"en": "pick the model;Ollama models", "zh": "选择模型;Ollama 模型"},
    "command.search": {"en": "Search", "zh": "搜索"},
    "command.search.title": {"en": "Search messages", "zh": "搜索消息"},
    "command.search.help": {
        "en": "Search every message and title; open the session at the match",
        "zh": "搜索所有消息和标题，并在匹配处打开会话",
    },
    "command.search.also": {"en": "search every message", "zh": "搜索所有消息"},
    "command.rename_session": {"en": "Rename", "zh": "重命名"},
    "command.rename_session.title": {"en": "Rename session", "zh": "重命名会话"},
    "command.rename_session.help": {
        "en": "Give the open session a title",
        "zh": "为当前会话命名",
    },
    "command.rename_session.also": {"en": "rename session", "zh": "重命名会话"},
    "command.delete_session": {"en": "Delete", "zh": "删除"},
    "command.delete_session.title": {"en": "Delete session", "zh": "删除会话"},
    "command.delete_session.help": {
        "en": "Delete the open session and its messages (asks first)",
        "zh": "删除当前会话及其消息（会先确认）",
    },
    "command.delete_session.also": {"en": "delete session", "zh": "删除会话"},
    "command.show_summary": {"en": "Summary", "zh": "摘要"},
    "command.show_summary.title": {"en": "Show summary", "zh": "查看摘要"},
    "command.show_summary.help": {
        "en": "Read the model-written summary of the session's earlier messages",
        "zh": "查看模型为会话较早消息写的摘要",
    },
    "command.show_summary.also": {"en": "show the summary", "zh": "查看摘要"},
    "command.cycle_mode": {"en": "Memory mode", "zh": "记忆模式"},
    "command.cycle_mode.title": {"en": "Cycle memory mode", "zh": "切换记忆模式"},
    "command.cycle_mode.help": {
        "en": "When memory compacts: every 30 replies, at 70% of the window, or by hand",
        "zh": "何时压缩记忆：每 30 条回复、达到窗口 70% 时，或手动",
    },
    "command.cycle_mode.also": {"en": "cycle the memory mode", "zh": "切换记忆模式"},
    "command.export": {"en": "Export", "zh": "导出"},
    "command.export.title": {"en": "Export session", "zh": "导出会话"},
    "command.export.help": {
        "en": "Write the session to a Markdown file for the postmortem",
        "zh": "把会话写入 Markdown 文件，用于事后复盘",
    },
    "command.export.also": {
        "en": "export the session to a file;postmortem",
        "zh": "把会话导出到文件;复盘",
    },
    "command.copy_message": {"en": "Copy message", "zh": "复制消息"},
    "command.copy_message.title": {"en": "Copy message", "zh": "复制消息"},
    "command.copy_message.help": {
        "en": "Copy the selected message (else the last one) with its time",
        "zh": "复制选中的消息（未选中则复制最后一条），带时间",
    },
    "command.copy_message.also": {"en": "copy a message", "zh": "复制一条消息"},
    "command.copy_code": {"en": "Copy code block", "zh": "复制代码块"},
    "command.copy_code.title": {"en": "Copy code block", "zh": "复制代码块"},
    "command.copy_code.help": {
        "en": "Copy one code block of the selected message (else the last reply)",
        "zh": "复制选中消息（未选中则最后一条回复）中的一个代码块",
    },
    "command.copy_code.also": {"en": "copy a code block", "zh": "复制一个代码块"},
    "command.filter_sessions": {"en": "Filter sessions", "zh": "筛选会话"},
    "command.filter_sessions.title": {"en": "Filter sessions", "zh": "筛选会话"},
    "command.filter_sessions.help": {
        "en": "Narrow the sessions list by title",
        "zh": "按标题筛选会话列表",
    },
    "command.filter_sessions.also": {"en": "filter the sessions list", "zh": "筛选会话列表"},
    "command.load_earlier": {"en": "Earlier", "zh": "更早"},
    "command.load_earlier.title": {"en": "Load earlier messages", "zh": "加载更早的消息"},
    "command.load_earlier.help": {
        "en": "Show the page of messages before the oldest one shown",
        "zh": "显示当前最早消息之前的一页消息",
    },
    "command.load_earlier.also": {"en": "load earlier messages", "zh": "加载更早的消息"},
    "command.retry": {"en": "Retry", "zh": "重试"},
    "command.retry.title": {"en": "Retry", "zh": "重试"},
    "command.retry.help": {
        "en": "Answer the session's last message again (its reply failed or was cut off)",
        "zh": "重新回答会话的最后一条消息（其回复失败或被中断）",
    },
    "command.retry.also": {"en": "answer a failed message again", "zh": "重新回答失败的消息"},
    "command.check_ollama": {"en": "Check model server", "zh": "检查模型服务"},
    "command.check_ollama.title": {"en": "Check the model server", "zh": "检查模型服务"},
    "command.check_ollama.help": {
        "en": "Ask the model server (Ollama or the OpenAI-compatible one) again whether it "
        "answers and has the model",
        "zh": "再次询问模型服务（Ollama 或 OpenAI 兼容服务）是否可用、是否有该模型",
    },
    "command.check_ollama.also": {"en": "ask Ollama again;Ollama", "zh": "再次询问 Ollama;Ollama"},
}

KEYS: dict[str, dict[Language, str]] = {
    "keys.title": {"en": "Keys", "zh": "按键"},
    "keys.footer": {
        "en": "Enter runs it · Esc closes · rebind: [keys] in the settings file, e.g. "
        'compact = "alt+k"',
        "zh": 'Enter 执行 · Esc 关闭 · 改键：设置文件的 [keys]，如 compact = "alt+k"',
    },
    "keys.column.keys": {"en": "Keys", "zh": "按键"},
    "keys.column.what": {"en": "What it does", "zh": "作用"},
    "keys.column.id": {"en": "id", "zh": "id"},
    "keys.section.app": {"en": "oncall-tui", "zh": "oncall-tui"},
    "keys.section.composer": {"en": "Typing a message", "zh": "输入消息时"},
    "keys.section.log": {"en": "Chat log (shift+tab)", "zh": "聊天记录（shift+tab）"},
    "keys.section.sessions": {"en": "Sessions list", "zh": "会话列表"},
    "keys.section.everywhere": {"en": "Everywhere", "zh": "任何位置"},
    "keys.composer.send": {"en": "Send the message", "zh": "发送消息"},
    "keys.composer.newline": {
        "en": "New line (shift+enter too, where the terminal reports it)",
        "zh": "换行（终端支持时也可用 shift+enter）",
    },
    "keys.composer.history": {
        "en": "In an empty message: earlier messages, this session's first",
        "zh": "输入框为空时：调出之前的消息，本会话的优先",
    },
    "keys.composer.clear": {"en": "Empty the message", "zh": "清空输入框"},
    "keys.composer.select_all": {"en": "Select all the text", "zh": "全选文本"},
    "keys.composer.focus": {
        "en": "Move to the next or previous pane",
        "zh": "切换到下一个或上一个区域",
    },
    "keys.log.move": {"en": "Select the previous or next message", "zh": "选择上一条或下一条消息"},
    "keys.log.copy": {
        "en": "Copy the selected message with its time",
        "zh": "复制选中的消息（带时间）",
    },
    "keys.log.code": {
        "en": "Copy a code block of the selected message",
        "zh": "复制选中消息中的代码块",
    },
    "keys.log.open": {
        "en": "Show the message's tool calls in full",
        "zh": "展开该消息的工具调用详情",
    },
    "keys.typing": {
        "en": "In the messages, the sessions or the panel: typed in the message (the focus "
        "goes there)",
        "zh": "在消息区、会话栏或面板中：输入到消息框（焦点随之移过去）",
    },
    "keys.sessions.open": {"en": "Open a session", "zh": "打开会话"},
    "keys.sessions.filter": {"en": "Filter by title", "zh": "按标题筛选"},
    "keys.sessions.delete": {"en": "Delete the session (asks first)", "zh": "删除会话（会先确认）"},
    "keys.palette": {
        "en": "Command palette: every action, by name",
        "zh": "命令面板：按名称查找所有操作",
    },
}

COPYING: dict[str, dict[Language, str]] = {
    "screenshot.saved": {"en": "Saved the screen to {path}", "zh": "屏幕已保存到 {path}"},
    "screenshot.failed": {
        "en": "The screen was not saved in {directory}: {reason}",
        "zh": "屏幕未能保存到 {directory}：{reason}",
    },
    "palette.placeholder": {"en": "Search for commands…", "zh": "搜索命令…"},
    "palette.theme_placeholder": {"en": "Search for themes…", "zh": "搜索主题…"},
    "quit.how.title": {"en": "Do you want to quit?", "zh": "要退出吗？"},
    "quit.how": {"en": "Press {keys} to quit the app", "zh": "按 {keys} 退出应用"},
    "copy.nothing": {"en": "No message to copy yet.", "zh": "还没有可复制的消息。"},
    "copy.message_done": {"en": "Message copied to the clipboard", "zh": "消息已复制到剪贴板"},
    "code.title": {"en": "Copy a code block", "zh": "复制代码块"},
    "code.keys": {
        "en": "1-9 or Enter copies · Esc cancels",
        "zh": "按 1-9 或 Enter 复制 · Esc 取消",
    },
    "code.lines": {"en": "{count} lines", "zh": "{count} 行"},
    "code.lines_one": {"en": "1 line", "zh": "1 行"},
    "code.none": {
        "en": "The selected message has no code block (shift+tab selects messages).",
        "zh": "选中的消息中没有代码块（shift+tab 可选择消息）。",
    },
    "code.copied": {
        "en": "Code block copied ({lines})",
        "zh": "代码块已复制（{lines}）",
    },
}

PALETTE: dict[str, dict[Language, str]] = {
    "palette.open": {"en": "palette", "zh": "命令"},
    "palette.open.help": {
        "en": "Open the command palette: every action, by name",
        "zh": "打开命令面板：按名称查找所有操作",
    },
    "palette.theme": {"en": "Theme", "zh": "主题"},
    "palette.theme.help": {
        "en": "Change the colours (remembered in the settings file)",
        "zh": "更换配色（记录在设置文件中）",
    },
    "palette.screenshot": {"en": "Screenshot", "zh": "截图"},
    "palette.screenshot.help": {
        "en": "Save an SVG picture of the screen in the current directory",
        "zh": "把当前屏幕保存为 SVG 图片（当前目录）",
    },
    "palette.maximize": {"en": "Maximize", "zh": "最大化"},
    "palette.maximize.help": {
        "en": "Fill the screen with the focused pane",
        "zh": "让当前区域占满屏幕",
    },
    "palette.minimize": {"en": "Minimize", "zh": "还原"},
    "palette.minimize.help": {"en": "Put the panes back", "zh": "恢复各区域的布局"},
}

WELCOME: dict[str, dict[Language, str]] = {
    "welcome.title": {"en": "oncall-tui: where to start", "zh": "oncall-tui：从这里开始"},
    "welcome.loading": {
        "en": "Reading your sessions… the most recent one opens here.",
        "zh": "正在读取你的会话……最近的会话将在这里打开。",
    },
    "welcome.type": {
        "en": "Type your question below and press Enter; alt+enter or ctrl+j starts a new line.",
        "zh": "在下方输入问题并按 Enter 发送；alt+enter 或 ctrl+j 换行。",
    },
    "welcome.skills": {
        "en": "{keys} adds a skill (a SKILL.md runbook the model loads when it needs it).",
        "zh": "{keys} 添加技能（模型按需加载的 SKILL.md 手册）。",
    },
    "welcome.examples": {
        "en": "Examples to start with (this folder adds them all): {path}",
        "zh": "可先试用示例（输入此文件夹即全部添加）：{path}",
    },
    "welcome.prompt_model": {
        "en": "{prompts} sets your system prompt; {models} picks the model.",
        "zh": "{prompts} 设置系统提示词；{models} 选择模型。",
    },
    "welcome.keys": {
        "en": "{keys} lists every key; ctrl+p finds any action by name.",
        "zh": "{keys} 列出所有按键；ctrl+p 可按名称查找任何操作。",
    },
    "welcome.checking": {
        "en": "Asking Ollama whether it is ready…",
        "zh": "正在询问 Ollama 是否就绪…",
    },
    "welcome.ollama_down": {
        "en": "Ollama does not answer at {url}: start it with `ollama serve` (or set OLLAMA_HOST).",
        "zh": "{url} 上的 Ollama 没有响应：请运行 `ollama serve`（或设置 OLLAMA_HOST）。",
    },
    "welcome.ollama_up": {
        "en": "Ollama {version} answers at {url}.",
        "zh": "Ollama {version} 已在 {url} 就绪。",
    },
    "welcome.model_missing": {
        "en": "The model {model} is not pulled: run `ollama pull {model}`, or pick another one.",
        "zh": "模型 {model} 尚未拉取：请运行 `ollama pull {model}`，或选择其他模型。",
    },
    "welcome.checking_server": {
        "en": "Asking the model server whether it is ready…",
        "zh": "正在询问模型服务器是否就绪…",
    },
    "welcome.server_down": {
        "en": "The model server does not answer at {url}: start it (llama-server, vLLM, …) or "
        "set --base-url.",
        "zh": "{url} 上的模型服务器没有响应：请启动它（llama-server、vLLM 等）或设置 --base-url。",
    },
    "welcome.server_up": {
        "en": "The model server ({version}) answers at {url}.",
        "zh": "模型服务器（{version}）已在 {url} 就绪。",
    },
    "welcome.model_not_served": {
        "en": "The server does not serve the model {model}: pick one it serves.",
        "zh": "服务器没有提供模型 {model}：请选择它提供的模型。",
    },
    "welcome.model_ready": {"en": "The model {model} is ready.", "zh": "模型 {model} 已就绪。"},
}

EXPORT: dict[str, dict[Language, str]] = {
    "export.nothing": {
        "en": "Nothing to export: this session has not started yet.",
        "zh": "没有可导出的内容：此会话尚未开始。",
    },
    "export.title": {"en": "Export session", "zh": "导出会话"},
    "export.prompt": {
        "en": "Write the session to this file (Markdown; a name ending .json writes JSON):",
        "zh": "把会话写入此文件（Markdown；以 .json 结尾则写 JSON）：",
    },
    "export.done": {"en": "Exported to {path}", "zh": "已导出到 {path}"},
    "export.replace.title": {"en": "Replace file?", "zh": "替换文件？"},
    "export.replace.ask": {
        "en": "{path} exists. Replace it with this session? Its content is lost.",
        "zh": "{path} 已存在。用此会话替换它吗？它原来的内容将丢失。",
    },
    "export.replace.yes": {"en": "Replace", "zh": "替换"},
}

PREFERENCES: dict[str, dict[Language, str]] = {
    "keys.unknown_ids": {
        "en": "The settings file's [keys] names actions that do not exist: {ids} ({keys} lists "
        "the ids); the other keys apply.",
        "zh": "设置文件的 [keys] 中有不存在的操作：{ids}（{keys} 列出所有 id）；其余按键已生效。",
    },
    "keys.taken": {
        "en": "The settings file's [keys] gives {key} to {id}: {other} no longer has it ({keys} "
        "lists the keys).",
        "zh": "设置文件的 [keys] 把 {key} 给了 {id}：{other} 不再使用它（{keys} 列出所有按键）。",
    },
    "keys.kept": {
        "en": "{key} stays the app's own: the settings file's [keys] cannot give it to {id}.",
        "zh": "{key} 仍归应用本身：设置文件的 [keys] 不能把它给 {id}。",
    },
    "keys.not_a_key": {
        "en": "The settings file's [keys] gives {id} '{key}', which names no key (keys are "
        "written like f5, ctrl+k, alt+x, pageup): {id} has its other keys, or keeps its own.",
        "zh": "设置文件的 [keys] 给 {id} 的 '{key}' 不是按键名（按键写作 f5、ctrl+k、alt+x、"
        "pageup）：{id} 使用其余按键，或保留原有按键。",
    },
    "keys.edits_text": {
        "en": "The settings file's [keys] gives {id} {key}, which the message box and the other "
        "text fields use to edit text: there {key} still edits, and {id} answers it elsewhere.",
        "zh": "设置文件的 [keys] 把 {key} 给了 {id}，但消息框等输入框用它编辑文字："
        "在输入框中 {key} 仍用于编辑，在其他地方才执行 {id}。",
    },
    "theme.unknown": {
        "en": "The settings file's theme '{theme}' does not exist (ctrl+p, Theme, lists them).",
        "zh": "设置文件中的主题 '{theme}' 不存在（ctrl+p 中的“主题”可列出全部）。",
    },
}

SEARCH: dict[str, dict[Language, str]] = {
    "search.title": {"en": "Search every message", "zh": "搜索所有消息"},
    "search.placeholder": {
        "en": "Words or part of a word (2 characters or more): 超时, 502, pool exhausted",
        "zh": "词或词的一部分（至少 2 个字符）：超时、502、pool exhausted",
    },
    "search.hint": {
        "en": "Type to search · Enter opens the newest · ↓ to choose another · Esc closes",
        "zh": "输入即可搜索 · Enter 打开最新一条 · ↓ 选择其他 · Esc 关闭",
    },
    "search.none": {"en": "No message or title matches.", "zh": "没有匹配的消息或标题。"},
    "search.count": {"en": "{count} found, newest first.", "zh": "找到 {count} 条，最新的在前。"},
    "search.many": {
        "en": "The newest {count} shown; add a word to narrow the search.",
        "zh": "仅显示最新的 {count} 条；再加一个词可缩小范围。",
    },
    "search.role.user": {"en": "you", "zh": "你"},
    "search.role.assistant": {"en": "assistant", "zh": "助手"},
    "search.role.title": {"en": "title", "zh": "标题"},
    "search.far_back": {
        "en": "The message found is {count:,} messages back: {keys} loads earlier pages.",
        "zh": "找到的消息在 {count:,} 条之前：{keys} 可加载更早的消息。",
    },
}

MAIN: dict[str, dict[Language, str]] = {
    "send.still_streaming": {
        "en": "A reply is still streaming; {keys} cancels it.",
        "zh": "回复仍在输出中；按 {keys} 可取消。",
    },
    "send.full_hint": {
        "en": "({compact} compacts, {new} starts a new session)",
        "zh": "（{compact} 压缩记忆，{new} 新建会话）",
    },
    "send.retry_hint": {"en": "({retry} retries)", "zh": "（{retry} 重试）"},
    "send.sending": {"en": "Sending…", "zh": "发送中…"},
    "delete.nothing": {
        "en": "Nothing to delete: this session has not started yet.",
        "zh": "没有可删除的内容：此会话尚未开始。",
    },
    "delete.title": {"en": "Delete session", "zh": "删除会话"},
    "delete.ask": {
        "en": "Delete “{title}” and its {count:,} messages? This cannot be undone.",
        "zh": "删除“{title}”及其 {count:,} 条消息？此操作无法撤销。",
    },
    "delete.ask_one": {
        "en": "Delete “{title}” and its one message? This cannot be undone.",
        "zh": "删除“{title}”及其 1 条消息？此操作无法撤销。",
    },
    "delete.ask_id": {
        "en": "Delete session {id}? This cannot be undone.",
        "zh": "删除会话 {id}？此操作无法撤销。",
    },
    "delete.yes": {"en": "Delete", "zh": "删除"},
    "rename.title": {"en": "Rename session", "zh": "重命名会话"},
    "rename.prompt": {"en": "Title", "zh": "标题"},
    "models.chatting": {"en": "Chatting with {model}", "zh": "正在使用 {model} 对话"},
}

TOOLS: dict[str, dict[Language, str]] = {
    "tools.confirm.title": {"en": "Run {name}?", "zh": "运行 {name}？"},
    "tools.confirm.ask": {
        "en": "The model asks to run a tool.\n\nServer: {server}\nTool: {tool}\n"
        "Arguments:\n{arguments}",
        "zh": "模型请求运行一个工具。\n\n服务器：{server}\n工具：{tool}\n参数：\n{arguments}",
    },
    "tools.confirm.yes": {"en": "Run", "zh": "运行"},
    "tools.confirm.no": {"en": "Don't run", "zh": "不运行"},
    "tools.confirm.waiting": {
        "en": "Waiting for your answer: run {name}?",
        "zh": "等待你的答复：是否运行 {name}？",
    },
}

TUI: dict[str, dict[Language, str]] = {
    **TOOLS,
    **MAIN,
    **SEARCH,
    **PREFERENCES,
    **EXPORT,
    **COMMANDS,
    **KEYS,
    **COPYING,
    **PALETTE,
    **WELCOME,
}
