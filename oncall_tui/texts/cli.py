"""What the command line prints for people (``--json`` output is data, not text).

Command names, flags, setting names, memory modes and where a setting came from (``flag``,
``env``, ``file``, ``default``) are identifiers a person types back, so they stay as they are
in both languages; argparse's ``--help`` is usage for scripts and stays English."""

from __future__ import annotations

from oncall_tui.errors import Language

CLI: dict[str, dict[Language, str]] = {
    "cli.search.none": {"en": "No messages or titles match.", "zh": "没有匹配的消息或标题。"},
    "cli.search.header.session": {"en": "SESSION", "zh": "会话"},
    "cli.search.header.time": {"en": "TIME (UTC)", "zh": "时间 (UTC)"},
    "cli.search.header.role": {"en": "ROLE", "zh": "角色"},
    "cli.search.header.title": {"en": "TITLE", "zh": "标题"},
    "cli.search.header.match": {"en": "MATCH", "zh": "匹配内容"},
    "session.untitled": {"en": "New session", "zh": "新会话"},
    "cli.none": {"en": "(none)", "zh": "（无）"},
    "cli.warning": {"en": "oncall-tui: warning: {message}", "zh": "oncall-tui: 警告：{message}"},
    "cli.tui.unsent": {
        "en": "oncall-tui: this was typed and not sent:",
        "zh": "oncall-tui: 以下内容已输入但未发送：",
    },
    # tools
    "cli.tools.none": {
        "en": "No tool servers are registered ([[mcp_servers]] in the settings file).",
        "zh": "没有注册任何工具服务器（设置文件中的 [[mcp_servers]]）。",
    },
    "cli.tools.header.server": {"en": "SERVER", "zh": "服务器"},
    "cli.tools.header.transport": {"en": "TRANSPORT", "zh": "传输"},
    "cli.tools.header.state": {"en": "STATE", "zh": "状态"},
    "cli.tools.header.tool": {"en": "TOOL", "zh": "工具"},
    "cli.tools.header.policy": {"en": "POLICY", "zh": "策略"},
    "cli.tools.state.ready": {"en": "ready", "zh": "就绪"},
    "cli.tools.state.failed": {"en": "failed", "zh": "失败"},
    "cli.tools.not_bound": {"en": "not allowed", "zh": "未允许"},
    "cli.tools.not_offered": {"en": "{policy}, not offered", "zh": "{policy}，服务器未提供"},
    "cli.tools.no_example": {
        "en": "oncall-tui: this install has no example tool server (examples/mcp in a checkout, "
        "oncall_tui/mcp_example in a wheel).",
        "zh": "oncall-tui：此安装没有示例工具服务器（源码中的 examples/mcp，或 wheel 中的 "
        "oncall_tui/mcp_example）。",
    },
    "cli.chat.tool_refused": {
        "en": "oncall-tui: {name} asks before every call and was not run; to allow it for one "
        "run: --allow-tool {name}",
        "zh": "oncall-tui：{name} 每次调用前都需确认，本次未运行；如需在本次运行中允许："
        "--allow-tool {name}",
    },
    "cli.doctor.tools": {"en": "Tools", "zh": "工具"},
    "cli.doctor.tools_ready": {
        "en": "{server}: ready, {count} allowed of {offered} offered",
        "zh": "{server}：就绪，提供 {offered} 个，允许 {count} 个",
    },
    "cli.doctor.tools_failed": {"en": "{server}: failed", "zh": "{server}：失败"},
    # prompts
    "cli.prompts.header.id": {"en": "ID", "zh": "ID"},
    "cli.prompts.header.flags": {"en": "FLAGS", "zh": "标记"},
    "cli.prompts.header.label": {"en": "LABEL", "zh": "名称"},
    "cli.prompts.header.chars": {"en": "CHARS", "zh": "字符数"},
    "cli.prompts.flag_default": {"en": "default", "zh": "默认"},
    "cli.prompt.heading": {"en": "[{id}] {label}", "zh": "[{id}] {label}"},
    "cli.prompt.heading_default": {
        "en": "[{id}] {label} (default)",
        "zh": "[{id}] {label}（默认）",
    },
    "cli.deleted_prompt": {"en": "Deleted prompt {id}.", "zh": "已删除提示词 {id}。"},
    # skills
    "cli.skills.header.id": {"en": "ID", "zh": "ID"},
    "cli.skills.header.selected": {"en": "SEL", "zh": "选中"},
    "cli.skills.header.name": {"en": "NAME", "zh": "名称"},
    "cli.skills.header.bytes": {"en": "BYTES", "zh": "字节"},
    "cli.skills.header.description": {"en": "DESCRIPTION", "zh": "描述"},
    "cli.skill.refused": {
        "en": "oncall-tui: {folder}: {message}",
        "zh": "oncall-tui：{folder}：{message}",
    },
    "cli.skills.left": {
        "en": "oncall-tui: skill folders not looked at: {count} (at most {most} at a time); "
        "add them by their own paths.",
        "zh": "oncall-tui：未处理的技能文件夹：{count} 个（一次最多 {most} 个）；"
        "请按各自的路径添加。",
    },
    "cli.skill.heading": {
        "en": "[{id}] {name} ({size} bytes)",
        "zh": "[{id}] {name}（{size} 字节）",
    },
    "cli.deleted_skill": {
        "en": "Deleted skill {id} ({name}).",
        "zh": "已删除技能 {id}（{name}）。",
    },
    # config show / set
    "cli.config.prompt": {"en": "Prompt: [{id}] {label}", "zh": "提示词：[{id}] {label}"},
    "cli.config.skills": {"en": "Skills: {skills}", "zh": "技能：{skills}"},
    # config paths
    "cli.paths.config_file": {"en": "Config file", "zh": "配置文件"},
    "cli.paths.db_file": {"en": "Database", "zh": "数据库"},
    "cli.paths.log_file": {"en": "Log", "zh": "日志"},
    "cli.paths.file": {"en": "{label} {path}  ({source})", "zh": "{label} {path}（{source}）"},
    "cli.paths.file_missing": {
        "en": "{label} {path}  ({source}, not created yet)",
        "zh": "{label} {path}（{source}，尚未创建）",
    },
    "cli.paths.header.setting": {"en": "SETTING", "zh": "设置"},
    "cli.paths.header.value": {"en": "VALUE", "zh": "值"},
    "cli.paths.header.source": {"en": "SOURCE", "zh": "来源"},
    "cli.paths.num_ctx_discovered": {
        "en": "(discovered from the model)",
        "zh": "（从模型读取）",
    },
    "cli.paths.theme_default": {"en": "(the app's own)", "zh": "（应用默认）"},
    "cli.paths.ignored": {
        "en": "Ignored in the settings file: {keys}",
        "zh": "设置文件中被忽略的项：{keys}",
    },
    # sessions
    "cli.sessions.header.id": {"en": "ID", "zh": "ID"},
    "cli.sessions.header.updated": {"en": "UPDATED (UTC)", "zh": "更新时间 (UTC)"},
    "cli.sessions.header.messages": {"en": "MSGS", "zh": "消息数"},
    "cli.sessions.header.memory": {"en": "MEMORY", "zh": "记忆"},
    "cli.sessions.header.title": {"en": "TITLE", "zh": "标题"},
    "cli.session.created": {
        "en": "Session {id} created: {title}",
        "zh": "已创建会话 {id}：{title}",
    },
    "cli.session.renamed": {
        "en": "Session {id} renamed: {title}",
        "zh": "会话 {id} 已重命名：{title}",
    },
    "cli.session.deleted": {"en": "Deleted session {id}.", "zh": "已删除会话 {id}。"},
    "cli.session.exported": {
        "en": "Exported session {id} to {path}",
        "zh": "已将会话 {id} 导出到 {path}",
    },
    "cli.session.heading": {"en": "# {title} (session {id})", "zh": "# {title}（会话 {id}）"},
    "cli.session.summarised": {
        "en": "----- {count} earlier messages summarised -----",
        "zh": "----- 之前的 {count} 条消息已摘要 -----",
    },
    "cli.session.tool_call": {"en": "  tool {name}: {summary}", "zh": "  工具 {name}：{summary}"},
    "cli.session.tool_call_bare": {"en": "  tool {name}", "zh": "  工具 {name}"},
    "cli.tool_status.error": {"en": "error", "zh": "出错"},
    "cli.tool_status.cut": {"en": "cut", "zh": "已截断"},
    "cli.tool_status.withheld": {"en": "withheld", "zh": "未载入"},
    "cli.tool_status.declined": {"en": "not run", "zh": "未运行"},
    "cli.tool_status.interrupted": {"en": "interrupted", "zh": "已中断"},
    # stored words: what the CLI prints and the exported Markdown say of a message
    "role.user": {"en": "user", "zh": "用户"},
    "role.assistant": {"en": "assistant", "zh": "助手"},
    "role.title": {"en": "title", "zh": "标题"},  # a search hit on a session's title
    "reply.interrupted": {"en": "interrupted", "zh": "已中断"},
    "reply.truncated": {"en": "truncated", "zh": "已截断"},
    "reply.failed": {"en": "failed", "zh": "失败"},
    # memory
    "cli.memory.context": {
        "en": (
            "Context: {used} / {window} tokens ({percent}%) · memory: {mode} · "
            "{count} messages summarised"
        ),
        "zh": (
            "上下文：{used} / {window} tokens（{percent}%）· 记忆：{mode} · 已摘要 {count} 条消息"
        ),
    },
    "cli.memory.summary": {"en": "Summary ({at} UTC):", "zh": "摘要（{at} UTC）："},
    "cli.memory.no_summary": {"en": "No summary yet.", "zh": "尚无摘要。"},
    "cli.memory.summary_cut": {
        "en": "Summary ({at} UTC, cut off at the model's length limit):",
        "zh": "摘要（{at} UTC，在模型长度上限处被截断）：",
    },
    # chat
    "cli.chat.interrupted": {"en": "[interrupted]", "zh": "[已中断]"},
    "cli.chat.session": {"en": "[session {id}]", "zh": "[会话 {id}]"},
    "cli.chat.waiting": {
        "en": "[waiting for the model: {seconds} s · ctrl+c stops]",
        "zh": "[等待模型：{seconds} 秒 · ctrl+c 停止]",
    },
    "cli.chat.waiting_tool": {
        "en": "[waiting for {name}: {seconds} s · ctrl+c stops]",
        "zh": "[等待 {name}：{seconds} 秒 · ctrl+c 停止]",
    },
    "cli.chat.retry": {
        "en": "[to answer it again: oncall-tui chat --session {id} --retry]",
        "zh": "[重新回答：oncall-tui chat --session {id} --retry]",
    },
    "cli.chat.with_stdin": {
        "en": "[standard input sent after your words: {count} lines]",
        "zh": "[标准输入已附在你的文字之后发送：{count} 行]",
    },
    "cli.chat.with_stdin_one": {
        "en": "[standard input sent after your words: one line]",
        "zh": "[标准输入已附在你的文字之后发送：1 行]",
    },
    "cli.chat.compacting": {
        "en": "[compacting: the model summarises {count} messages first]",
        "zh": "[正在压缩：模型先摘要 {count} 条消息]",
    },
    "cli.chat.usage": {
        "en": "[context {percent}% of {tokens} tokens]",
        "zh": "[上下文已用 {percent}%，共 {tokens} tokens]",
    },
    "cli.chat.truncated": {
        "en": "[{status}: the model stopped at its length limit]",
        "zh": "[{status}：模型在长度上限处停止]",
    },
    "cli.chat.retry_usage": {
        "en": "--retry takes --session ID and no message",
        "zh": "--retry 需要 --session ID，且不带消息",
    },
    "cli.chat.empty_message": {"en": "the message is empty", "zh": "消息为空"},
    "cli.chat.one_dash": {
        "en": "one - at most: it stands for standard input in the message",
        "zh": "最多一个 -：它在消息中代表标准输入",
    },
    "cli.chat.typing_stdin": {
        "en": "Type the message; ctrl+d on a line of its own sends it (ctrl+c gives up).",
        "zh": "请输入消息；在单独一行按 ctrl+d 发送（ctrl+c 放弃）。",
    },
    "cli.chat.reading_stdin": {
        "en": "Reading the message's text from standard input (a pipe); ctrl+d ends it, "
        "and </dev/null leaves it out.",
        "zh": "正在从标准输入（管道）读取消息内容；ctrl+d 结束输入，</dev/null 则不读取。",
    },
    "cli.export.json_not_md": {
        "en": "--json prints JSON: leave out --format md, or write the Markdown with -o FILE",
        "zh": "--json 输出 JSON：请去掉 --format md，或用 -o FILE 写出 Markdown",
    },
    # doctor
    "cli.doctor.ollama": {"en": "Ollama", "zh": "Ollama"},
    "cli.doctor.server": {"en": "Server", "zh": "模型服务"},
    "cli.doctor.model": {"en": "Model", "zh": "模型"},
    "cli.doctor.context": {"en": "Context", "zh": "上下文"},
    "cli.doctor.database": {"en": "Database", "zh": "数据库"},
    "cli.doctor.user": {"en": "User", "zh": "用户"},
    "cli.doctor.log": {"en": "Log", "zh": "日志"},
    "cli.doctor.recovery": {"en": "Recovery", "zh": "文本调用"},
    "cli.doctor.recovery_on": {
        "en": "on: tool calls a model writes as text are read and made "
        "(recover_tool_calls = false in the settings file turns it off)",
        "zh": "开启：模型以文本写出的工具调用会被识别并执行"
        "（在设置文件中写 recover_tool_calls = false 可关闭）",
    },
    "cli.doctor.recovery_off": {
        "en": "off: only native tool calls are made (recover_tool_calls = false)",
        "zh": "关闭：只执行原生工具调用（recover_tool_calls = false）",
    },
    "cli.doctor.reachable": {
        "en": "{url}  reachable, version {version}",
        "zh": "{url}  可连接，版本 {version}",
    },
    "cli.doctor.unreachable": {"en": "{url}  NOT reachable", "zh": "{url}  无法连接"},
    "cli.doctor.key_refused": {
        "en": "{url}  answers, but refused the key (HTTP {status})",
        "zh": "{url}  可以连接，但拒绝了密钥（HTTP {status}）",
    },
    "cli.doctor.not_the_api": {
        "en": "{url}  answers, but not as its API (HTTP {status} from {endpoint})",
        "zh": "{url}  有响应，但不是该 API（{endpoint} 返回 HTTP {status}）",
    },
    "cli.doctor.pulled": {"en": "{model}  pulled", "zh": "{model}  已拉取"},
    "cli.doctor.not_pulled": {
        "en": "{model}  NOT pulled: run `{command}`",
        "zh": "{model}  未拉取：请运行 `{command}`",
    },
    "cli.doctor.model_unchecked": {
        "en": "{model}  (cannot check until Ollama answers)",
        "zh": "{model}  （Ollama 响应之前无法检查）",
    },
    "cli.doctor.model_unchecked_server": {
        "en": "{model}  (cannot check until the server answers)",
        "zh": "{model}  （模型服务器响应之前无法检查）",
    },
    "cli.doctor.served": {"en": "{model}  served", "zh": "{model}  已提供"},
    "cli.doctor.not_listed": {
        "en": "{model}  (the server lists no models: not checked)",
        "zh": "{model}  （服务器未列出任何模型：未检查）",
    },
    "cli.doctor.not_served": {
        "en": "{model}  NOT served (it serves: {served})",
        "zh": "{model}  未提供（它提供：{served}）",
    },
    "cli.doctor.window": {
        "en": "{tokens} tokens (from {source})",
        "zh": "{tokens} tokens（来自 {source}）",
    },
    "cli.doctor.window_flag": {
        "en": "the num_ctx setting",
        "zh": "num_ctx 设置",
    },
    "cli.doctor.window_modelfile": {
        "en": "the model's Modelfile num_ctx",
        "zh": "模型 Modelfile 中的 num_ctx",
    },
    "cli.doctor.window_trained": {
        "en": "trained length {trained}, capped; --num-ctx sets more",
        "zh": "训练长度 {trained}，已封顶；--num-ctx 可设更大",
    },
    "cli.doctor.window_props": {
        "en": "the server's llama.cpp /props",
        "zh": "服务器的 llama.cpp /props",
    },
    "cli.doctor.window_models": {
        "en": "the server's vLLM /v1/models",
        "zh": "服务器的 vLLM /v1/models",
    },
    "cli.doctor.window_default": {
        "en": "the default: the server did not say",
        "zh": "默认值：服务器未告知",
    },
    "cli.doctor.db_new": {"en": "{path} (created on first use)", "zh": "{path}（首次使用时创建）"},
    "cli.doctor.db_mode": {"en": "{path}, mode {mode}", "zh": "{path}，权限 {mode}"},
    "cli.doctor.db_server": {
        "en": "{path} (PostgreSQL, schema version {version})",
        "zh": "{path}（PostgreSQL，架构版本 {version}）",
    },
    "cli.doctor.db_unreachable": {
        "en": "{path}  NOT reachable: {detail}",
        "zh": "{path}  无法连接：{detail}",
    },
}


ARGPARSE_ZH: tuple[tuple[str, str], ...] = (
    (r"the following arguments are required: (.+)", "缺少必需的参数：{0}"),
    (r"unrecognized arguments: (.+)", "无法识别的参数：{0}"),
    (r"one of the arguments (.+) is required", "以下参数必须给出其一：{0}"),
    (r"ambiguous option: (\S+) could match (.+)", "选项 {0} 有歧义，可能是：{1}"),
    (
        r"argument (.+?): invalid choice: (.+) \(choose from (.+)\)",
        "参数 {0}：无效的选项 {1}（可选：{2}）",
    ),
    (r"argument (.+?): invalid (\S+) value: (.+)", "参数 {0}：无效的 {1} 值：{2}"),
    (r"argument (.+?): expected (one|\d+) arguments?", "参数 {0}：缺少它的值"),
    (r"argument (.+?): not allowed with argument (.+)", "参数 {0}：不能与参数 {1} 同时使用"),
    (r"argument (.+?): ignored explicit argument (.+)", "参数 {0}：不接受值 {1}"),
)
"""argparse's own messages (English only), as the Chinese CLI says them: a pattern of the
English message, and the Chinese with its parts (argument names, values) kept as typed."""
