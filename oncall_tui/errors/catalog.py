"""The error catalog's texts, in English and Chinese: a message per code (:data:`CATALOG`),
the rule a reason names (:data:`REASONS`), notes that complete a message (:data:`NOTES`) and
the words for what a message is about (:data:`KINDS`). Read through
:class:`~oncall_tui.errors.OncallError`; ``tests/core/test_texts.py`` checks every key has both
languages and the same fields in each."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oncall_tui.errors import Language

CATALOG: dict[str, dict[Language, str]] = {
    "VALIDATION_INVALID_ARGUMENT": {
        "en": "Invalid argument: {detail}",
        "zh": "参数无效：{detail}",
    },
    "PROMPT_INVALID": {
        "en": "Prompt rejected: {detail}",
        "zh": "提示词无效：{detail}",
    },
    "PROMPT_DEFAULT_PROTECTED": {
        "en": "The default prompt cannot be deleted; edit it instead.",
        "zh": "默认提示词不能删除，可以编辑它。",
    },
    "SKILL_INVALID": {
        "en": "SKILL.md rejected: {detail}",
        "zh": "SKILL.md 无效：{detail}",
    },
    "SKILL_DUPLICATE_NAME": {
        "en": "You already have a skill named '{name}'. Delete it first to replace it.",
        "zh": "已存在名为 '{name}' 的技能。如需替换，请先删除它。",
    },
    "NOT_FOUND": {
        "en": "No {kind} '{ref}' found.",
        "zh": "未找到{kind} '{ref}'。",
    },
    "FORBIDDEN": {
        "en": "That {kind} belongs to another user.",
        "zh": "该{kind}属于其他用户。",
    },
    "CHAT_CONTEXT_LIMIT_REACHED": {"en": "{detail}", "zh": "{detail}"},
    "MEMORY_COMPACTION_FAILED": {
        "en": "Memory compaction failed: {detail}. The summary and history are unchanged.",
        "zh": "记忆压缩失败：{detail}。摘要与历史均未改变。",
    },
    "MEMORY_MODE_UNCHANGED": {
        "en": "The memory mode is still {mode}, because switching to manual compacts at once: "
        "{detail}.",
        "zh": "记忆模式仍为 {mode}，因为切换到 manual 会立即压缩：{detail}。",
    },
    "MODEL_UNAVAILABLE": {
        "en": "Ollama is not reachable at {url}. Start it with `ollama serve` or set OLLAMA_HOST.",
        "zh": "无法连接 Ollama（{url}）。请运行 `ollama serve` 或设置 OLLAMA_HOST。",
    },
    "MODEL_NOT_FOUND": {
        "en": "Model '{model}' is not available in Ollama. Run: ollama pull {model}",
        "zh": "Ollama 中没有模型 '{model}'。请运行：ollama pull {model}",
    },
    "STREAM_FAILED": {
        "en": "The model stream failed: {detail}.",
        "zh": "模型输出中断：{detail}。",
    },
    "DATABASE_BUSY": {
        "en": (
            "The database at {path} stayed busy (another oncall-tui is writing to it). "
            "Nothing was changed; try again."
        ),
        "zh": "数据库 {path} 一直被占用（另一个 oncall-tui 正在写入）。未做任何更改，请重试。",
    },
    "DATABASE_UNAVAILABLE": {
        "en": "Cannot open the database at {path}: {detail}",
        "zh": "无法打开数据库 {path}：{detail}",
    },
    "EXPORT_FAILED": {
        "en": "The session was not exported: {detail}. Nothing was written.",
        "zh": "会话未导出：{detail}。未写入任何文件。",
    },
    "OUTPUT_FAILED": {
        "en": "Standard output could not be written ({problem}): it is incomplete. The command "
        "itself was carried out.",
        "zh": "无法写入标准输出（{problem}）：输出不完整。命令本身已执行。",
    },
    "CONFIG_INVALID": {
        "en": (
            "The settings file {path} was not used: {detail}. "
            "Everything it would have set has its default."
        ),
        "zh": "未使用设置文件 {path}：{detail}。它本应设置的各项均使用默认值。",
    },
    "CONFIG_KEY_IGNORED": {
        "en": "Ignored in the settings file {path}, as no setting has the name: {keys}. The rest "
        "of the file applies.",
        "zh": "设置文件 {path} 中被忽略的项（没有这个名称的设置项）：{keys}。"
        "文件其余部分照常生效。",
    },
    "TOOL_SERVER_FAILED": {
        "en": "The tool server '{server}' is not available: {detail}. The chat goes on without "
        "its tools.",
        "zh": "工具服务器 '{server}' 不可用：{detail}。聊天将在没有其工具的情况下继续。",
    },
    "CONFIG_NOT_SAVED": {
        "en": "The {setting} setting was not saved in {path}: {detail}. The file is unchanged.",
        "zh": "设置项 {setting} 未保存到 {path}：{detail}。文件未做任何改动。",
    },
}

# Reasons refine a code with the exact rule that was broken. A reason given to a code whose
# message has no {detail} replaces the whole message: the same code said of another server.
REASONS: dict[str, dict[Language, str]] = {
    "openai_unreachable": {
        "en": "The model server is not reachable at {url}. Start it (llama-server, vLLM, …) or "
        "set --base-url / ONCALL_TUI_BASE_URL.",
        "zh": "无法连接模型服务器（{url}）。请启动它（llama-server、vLLM 等）或设置 --base-url / "
        "ONCALL_TUI_BASE_URL。",
    },
    "not_the_api": {
        "en": "Something answers at {url}, but not as Ollama does: {endpoint} gave HTTP {status}. "
        "Check --ollama-url / OLLAMA_HOST (Ollama listens on port 11434).",
        "zh": "{url} 有服务响应，但不是 Ollama：{endpoint} 返回 HTTP {status}。"
        "请检查 --ollama-url / OLLAMA_HOST（Ollama 默认监听 11434 端口）。",
    },
    "server_not_the_api": {
        "en": "Something answers at {url}, but not as an OpenAI-compatible API does: {endpoint} "
        "gave HTTP {status}. Check --base-url: it usually ends in /v1.",
        "zh": "{url} 有服务响应，但不是 OpenAI 兼容的 API：{endpoint} 返回 HTTP {status}。"
        "请检查 --base-url：它通常以 /v1 结尾。",
    },
    "openai_refused_key": {
        "en": "The model server at {url} refused the request (HTTP {status}): set OPENAI_API_KEY "
        "to the key it expects.",
        "zh": "{url} 上的模型服务器拒绝了请求（HTTP {status}）：请将 OPENAI_API_KEY "
        "设为它要求的密钥。",
    },
    "openai_model_missing": {
        "en": "The model server at {url} does not serve '{model}' (it serves: {served}). "
        "Pick one of those with --model.",
        "zh": "{url} 上的模型服务器没有提供 '{model}'（它提供：{served}）。"
        "请用 --model 选择其中之一。",
    },
    "openai_model_refused": {
        "en": "The model server at {url} has no model '{model}'. Pick one it serves with --model.",
        "zh": "{url} 上的模型服务器没有模型 '{model}'。请用 --model 选择它提供的模型。",
    },
    "server_stream_dropped": {
        "en": "the connection to the model server dropped",
        "zh": "与模型服务器的连接中断",
    },
    "server_stream_ended_early": {
        "en": "the model server ended the stream before the reply was finished",
        "zh": "模型服务器在回复完成之前结束了数据流",
    },
    "server_stream_unreadable": {
        "en": "the model server sent a response that could not be read",
        "zh": "模型服务器返回了无法解析的响应",
    },
    "server_stream_silent_for": {
        "en": "no data from the model server for {seconds} s",
        "zh": "模型服务器已 {seconds} 秒没有发送数据",
    },
    "server_stream_silent": {
        "en": "no data from the model server for too long",
        "zh": "模型服务器太久没有发送数据",
    },
    "server_reported": {
        "en": "the model server reported: {problem}",
        "zh": "模型服务器报告：{problem}",
    },
    "server_needs_jinja": {
        "en": "the model server refused the tools ({problem}): llama.cpp's server takes tools "
        "only when started with --jinja; restart it so, or go on: the tools are offered to "
        "the model as text from now on",
        "zh": "模型服务器拒绝了工具（{problem}）：llama.cpp 的服务器只有以 --jinja 启动才接受工具；"
        "请以该参数重启它，或继续使用：之后以文本形式向模型提供工具",
    },
    "stream_dropped": {"en": "the connection to Ollama dropped", "zh": "与 Ollama 的连接中断"},
    "stream_ended_early": {
        "en": "Ollama ended the stream before the reply was finished",
        "zh": "Ollama 在回复完成之前结束了数据流",
    },
    "stream_unreadable": {
        "en": "Ollama sent a response that could not be read",
        "zh": "Ollama 返回了无法解析的响应",
    },
    "stream_too_many_steps": {
        "en": "the model kept calling tools without answering",
        "zh": "模型一直在调用工具而没有作答",
    },
    "stream_silent_for": {
        "en": "no data from Ollama for {seconds} s",
        "zh": "Ollama 已 {seconds} 秒没有发送数据",
    },
    "stream_silent": {
        "en": "no data from Ollama for too long",
        "zh": "Ollama 太久没有发送数据",
    },
    "stream_ollama_reported": {"en": "Ollama reported: {problem}", "zh": "Ollama 报告：{problem}"},
    "stream_tools_refused": {
        "en": "Ollama says {model} cannot call tools; its tools are offered to it as text from "
        "now on",
        "zh": "Ollama 表示 {model} 不能调用工具；之后以文本形式向它提供工具",
    },
    "limit_message": {
        "en": (
            "Your message would bring the context to {percent}% of {window} tokens (limit 95%). "
            "Nothing was sent. About {fit} of its {length} characters would fit: shorten it, "
            "compact the session memory, or start a new session."
        ),
        "zh": (
            "发送这条消息会使上下文达到 {window} 个 token 的 {percent}%（上限 95%），消息未发送。"
            "它的 {length} 个字符中约 {fit} 个放得下：请缩短消息、压缩会话记忆或新建会话。"
        ),
    },
    "limit_message_new": {
        "en": (
            "Your message would bring the context to {percent}% of {window} tokens (limit 95%). "
            "Nothing was sent. About {fit} of its {length} characters would fit: shorten it."
        ),
        "zh": (
            "发送这条消息会使上下文达到 {window} 个 token 的 {percent}%（上限 95%），消息未发送。"
            "它的 {length} 个字符中约 {fit} 个放得下：请缩短消息。"
        ),
    },
    "limit_message_full": {
        "en": (
            "Your message would bring the context to {percent}% of {window} tokens (limit 95%). "
            "Nothing was sent, and even a short message would not fit: compact the session "
            "memory or start a new session."
        ),
        "zh": (
            "发送这条消息会使上下文达到 {window} 个 token 的 {percent}%（上限 95%），消息未发送；"
            "即使很短的消息也放不下：请压缩会话记忆或新建会话。"
        ),
    },
    "limit_message_base": {
        "en": (
            "Your message would bring the context to {percent}% of {window} tokens (limit 95%). "
            "Nothing was sent: the prompt, the skills and the tools alone take {base}% of the "
            "window. Shorten the prompt, select fewer skills, or start with a larger window "
            "(--num-ctx)."
        ),
        "zh": (
            "发送这条消息会使上下文达到 {window} 个 token 的 {percent}%（上限 95%），消息未发送："
            "提示词、技能和工具本身就占了窗口的 {base}%。请缩短提示词、少选技能，"
            "或以更大的窗口启动（--num-ctx）。"
        ),
    },
    "limit_retry": {
        "en": (
            "Answering the message again would bring the context to {percent}% of {window} tokens "
            "(limit 95%). Nothing was sent. Compact the session memory or start a new session."
        ),
        "zh": (
            "重新回答这条消息会使上下文达到 {window} 个 token 的 {percent}%（上限 95%），未发送。"
            "请压缩会话记忆或新建会话。"
        ),
    },
    "limit_in_turn": {
        "en": (
            "The reply's next request to the model would bring the context to {percent}% of "
            "{window} tokens, so it was not sent. Compact the session memory or start a new "
            "session."
        ),
        "zh": (
            "本次回复的下一个模型请求会使上下文达到 {window} 个 token 的 {percent}%，因此未发送。"
            "请压缩会话记忆或新建会话。"
        ),
    },
    "session_gone": {
        "en": "Session {ref} was deleted while its answer came (in another window, or with "
        "the CLI): the answer was not saved.",
        "zh": "会话 {ref} 在回答生成期间被删除（在另一个窗口中或通过 CLI）：回答未保存。",
    },
    "session_cleared": {
        "en": "Session {ref} was cleared while its answer came (in another window, or with "
        "the CLI): the answer was not saved.",
        "zh": "会话 {ref} 在回答生成期间被清空（在另一个窗口中或通过 CLI）：回答未保存。",
    },
    "session_changed": {
        "en": "the session changed while the summary was written ({what}), so it was discarded",
        "zh": "生成摘要期间会话已改变（{what}），摘要已丢弃",
    },
    "nothing_to_retry": {
        "en": "session {ref} has no unanswered message to retry",
        "zh": "会话 {ref} 没有可重试的未回答消息",
    },
    "skill_filename": {
        "en": "the file must be named exactly SKILL.md (got '{filename}')",
        "zh": "文件名必须恰好是 SKILL.md（收到 '{filename}'）",
    },
    "skill_empty": {"en": "the file is empty", "zh": "文件为空"},
    "skill_blank": {"en": "the file contains only whitespace", "zh": "文件只包含空白字符"},
    "skill_too_large": {
        "en": "the file is {size} bytes; the limit is {limit} bytes",
        "zh": "文件大小为 {size} 字节，上限为 {limit} 字节",
    },
    "skill_not_utf8": {
        "en": "the file is not valid UTF-8 (byte {position})",
        "zh": "文件不是有效的 UTF-8 编码（第 {position} 字节）",
    },
    "skill_no_frontmatter": {
        "en": "the file must start with a YAML frontmatter block between '---' lines",
        "zh": "文件必须以 '---' 包围的 YAML frontmatter 开头",
    },
    "skill_frontmatter_yaml": {
        "en": "the frontmatter is not valid YAML ({problem})",
        "zh": "frontmatter 不是有效的 YAML（{problem}）",
    },
    "skill_frontmatter_not_mapping": {
        "en": "the frontmatter must be a mapping of fields, not {kind}",
        "zh": "frontmatter 必须是字段映射，而不是 {kind}",
    },
    "skill_field_missing": {
        "en": "the frontmatter has no '{field}' field",
        "zh": "frontmatter 缺少 '{field}' 字段",
    },
    "skill_field_not_string": {
        "en": "'{field}' must be a string, not {kind}",
        "zh": "'{field}' 必须是字符串，而不是 {kind}",
    },
    "skill_name_length": {
        "en": "'name' must be 1 to {limit} characters (got {length})",
        "zh": "'name' 长度必须为 1 到 {limit} 个字符（实际 {length}）",
    },
    "skill_name_charset": {
        "en": "'name' may contain only lowercase letters a-z, digits and hyphens (got '{name}')",
        "zh": "'name' 只能包含小写字母 a-z、数字和连字符（收到 '{name}'）",
    },
    "skill_name_hyphen_edge": {
        "en": "'name' must not start or end with a hyphen (got '{name}')",
        "zh": "'name' 不能以连字符开头或结尾（收到 '{name}'）",
    },
    "skill_name_double_hyphen": {
        "en": "'name' must not contain consecutive hyphens (got '{name}')",
        "zh": "'name' 不能包含连续的连字符（收到 '{name}'）",
    },
    "skill_description_empty": {
        "en": "'description' must not be empty",
        "zh": "'description' 不能为空",
    },
    "skill_description_length": {
        "en": "'description' must be at most {limit} characters (got {length})",
        "zh": "'description' 最多 {limit} 个字符（实际 {length}）",
    },
    "prompt_label_length": {
        "en": "the label must be 1 to {limit} characters after trimming (got {length})",
        "zh": "标签去除首尾空白后必须为 1 到 {limit} 个字符（实际 {length}）",
    },
    "prompt_content_length": {
        "en": "the content must be 1 to {limit} characters after trimming (got {length})",
        "zh": "内容去除首尾空白后必须为 1 到 {limit} 个字符（实际 {length}）",
    },
    "unknown_prompt_id": {
        "en": "prompt {ref} does not exist",
        "zh": "提示词 {ref} 不存在",
    },
    "unknown_skill_ids": {
        "en": "skill ids {refs} do not exist",
        "zh": "技能 {refs} 不存在",
    },
    "bad_ref_list": {
        "en": "'{value}' is not a comma-separated list of skill names or ids",
        "zh": "'{value}' 不是逗号分隔的技能名称或 id 列表",
    },
    "unknown_skills": {
        "en": "no skill {refs}",
        "zh": "没有技能 {refs}",
    },
    "json_needs_command": {
        "en": "--json is for the commands (oncall-tui --json sessions list); the TUI prints "
        "no JSON",
        "zh": "--json 用于命令（oncall-tui --json sessions list）；TUI 不输出 JSON",
    },
    "no_skill_in_folder": {
        "en": "there is no SKILL.md in '{path}', nor in a folder of it (a skill is a file named "
        "SKILL.md, or a folder holding one)",
        "zh": "'{path}' 及其下的文件夹中都没有 SKILL.md（技能是名为 SKILL.md 的文件，"
        "或包含它的文件夹）",
    },
    "unreadable_file": {
        "en": "cannot read '{path}' ({problem})",
        "zh": "无法读取 '{path}'（{problem}）",
    },
    "nothing_to_change": {
        "en": "nothing to change: give {options}",
        "zh": "没有要修改的内容：请提供 {options}",
    },
    "engine_error": {
        "en": "the model client failed ({problem})",
        "zh": "模型客户端出错（{problem}）",
    },
    "not_regular_file": {
        "en": "'{path}' is not a regular file (a directory, named pipe or device cannot be read)",
        "zh": "'{path}' 不是普通文件（目录、命名管道或设备无法读取）",
    },
    "file_too_large": {
        "en": "'{path}' is larger than {limit} bytes",
        "zh": "'{path}' 超过 {limit} 字节",
    },
    "stdin_too_long": {
        "en": "standard input holds more than {limit} characters, the limit for a message",
        "zh": "标准输入超过 {limit} 个字符，这是一条消息的上限",
    },
    "stdin_not_utf8": {
        "en": "standard input is not valid UTF-8 (byte {position})",
        "zh": "标准输入不是有效的 UTF-8 编码（第 {position} 字节）",
    },
    "value_not_utf8": {
        "en": "{name} is not valid UTF-8",
        "zh": "{name} 不是有效的 UTF-8 编码",
    },
    "bad_id": {
        "en": "{name} must be an id, a whole number from 1 to {highest} (got '{value}')",
        "zh": "{name} 必须是 id，即 1 到 {highest} 之间的整数（收到 '{value}'）",
    },
    "bad_ollama_address": {
        "en": "'{value}' is not an Ollama address: give host, host:port or http(s)://host:port",
        "zh": "'{value}' 不是有效的 Ollama 地址：请使用 host、host:port 或 http(s)://host:port",
    },
    "bad_provider": {
        "en": "provider '{value}' is not one of {names}",
        "zh": "提供方 '{value}' 不是以下之一：{names}",
    },
    "bad_base_url": {
        "en": "'{value}' is not a server's base URL: give http(s)://host[:port][/path], "
        "e.g. http://127.0.0.1:8080/v1",
        "zh": "'{value}' 不是有效的服务器基础地址：请使用 http(s)://host[:port][/path]，"
        "例如 http://127.0.0.1:8080/v1",
    },
    "skill_frontmatter_duplicate_key": {
        "en": "the frontmatter has the field '{field}' more than once (line {line})",
        "zh": "frontmatter 中字段 '{field}' 出现了不止一次（第 {line} 行）",
    },
    "skill_frontmatter_too_deep": {
        "en": "the frontmatter is nested more than {limit} levels deep (line {line})",
        "zh": "frontmatter 嵌套超过 {limit} 层（第 {line} 行）",
    },
    "skill_frontmatter_number": {
        "en": "the frontmatter holds a number of more than {limit} digits (line {line})",
        "zh": "frontmatter 中有超过 {limit} 位的数字（第 {line} 行）",
    },
    "database_not_sqlite": {
        "en": "the file is not a SQLite database; it was left as it was",
        "zh": "该文件不是 SQLite 数据库，未做任何改动",
    },
    "database_not_regular": {
        "en": "it is not a regular file (a directory, named pipe or device cannot hold a database)",
        "zh": "它不是普通文件（目录、命名管道或设备无法存放数据库）",
    },
    "database_url_unsupported": {
        "en": (
            "'{value}' is not a database this program can use: give a file's path, "
            "sqlite:///PATH or postgresql://USER@HOST:PORT/NAME"
        ),
        "zh": (
            "'{value}' 不是本程序可用的数据库：请给出文件路径、sqlite:///路径 "
            "或 postgresql://用户@主机:端口/库名"
        ),
    },
    "postgres_driver_missing": {
        "en": "PostgreSQL needs its driver; install it with: pip install 'oncall-tui[postgres]'",
        "zh": "使用 PostgreSQL 需要其驱动，请安装：pip install 'oncall-tui[postgres]'",
    },
    "user_locked": {
        "en": (
            "this shared database takes your user name from your login ({login}), and "
            "'{user}' is another; its administrator can allow that (see docs/TEAM.md)"
        ),
        "zh": (
            "该共享数据库以你的登录名（{login}）作为用户名，而 '{user}' 不是它；"
            "数据库管理员可以允许这样做（见 docs/TEAM.md）"
        ),
    },
    "user_not_role": {
        "en": (
            "you connect as the database role '{role}', and the database keeps each role to "
            "the rows of its own name, not '{user}': connect as '{user}', or ask the "
            "administrator to allow other names (see docs/TEAM.md)"
        ),
        "zh": (
            "你以数据库角色 '{role}' 连接，而数据库只允许每个角色使用与其同名的数据行，"
            "不是 '{user}' 的：请以 '{user}' 连接，或请管理员允许使用其他名称（见 docs/TEAM.md）"
        ),
    },
    "user_is_another_role": {
        "en": (
            "the user name '{user}' belongs to the database role of that name, and you "
            "connect as '{role}': connect as '{user}' to use its sessions (see docs/TEAM.md)"
        ),
        "zh": (
            "用户名 '{user}' 属于同名的数据库角色，而你以 '{role}' 连接："
            "请以 '{user}' 连接才能使用它的会话（见 docs/TEAM.md）"
        ),
    },
    "database_damaged": {
        "en": "the file is damaged ({problem}); move it aside or restore it from a backup",
        "zh": "文件已损坏（{problem}）；请将其移走或从备份恢复",
    },
    "database_newer": {
        "en": "it has schema version {version}, newer than this program's {ours}; upgrade "
        "oncall-tui",
        "zh": "它的数据库结构版本为 {version}，比本程序的 {ours} 更新；请升级 oncall-tui",
    },
    "database_read_only": {
        "en": (
            "it is read-only for this program ({problem}): SQLite must be able to write the "
            "file, and its -wal and -shm files in the same directory; nothing was changed"
        ),
        "zh": (
            "数据库对本程序是只读的（{problem}）：SQLite 需要能写入该文件，"
            "以及同一目录下的 -wal 和 -shm 文件；未做任何更改"
        ),
    },
    "search_query_empty": {
        "en": "the search is empty: give a word or a phrase to look for",
        "zh": "搜索内容为空：请输入要查找的词或短语",
    },
    "search_query_too_long": {
        "en": "a search is at most {limit} characters (got {length})",
        "zh": "搜索内容最多 {limit} 个字符（实际 {length}）",
    },
    "search_query_too_short": {
        "en": "a search needs a word of at least {minimum} characters",
        "zh": "搜索内容至少需要一个不少于 {minimum} 个字符的词",
    },
    "search_limit": {
        "en": "the number of results must be 1 to {limit} (got {value})",
        "zh": "结果数量必须为 1 到 {limit}（实际 {value}）",
    },
    "disk_full": {
        "en": "the disk is full ({problem}); free some space and try again",
        "zh": "磁盘已满（{problem}）；请释放空间后重试",
    },
    "export_no_directory": {
        "en": "there is no directory '{path}' to write the file in",
        "zh": "目录 '{path}' 不存在，无法在其中写入文件",
    },
    "export_is_directory": {
        "en": "'{path}' is a directory; give a file name",
        "zh": "'{path}' 是目录，请给出文件名",
    },
    "export_not_regular": {
        "en": "'{path}' exists and is not a regular file (a named pipe, device or socket is "
        "never written to)",
        "zh": "'{path}' 已存在且不是普通文件（不会写入命名管道、设备或套接字）",
    },
    "export_not_writable": {
        "en": "cannot write in the directory '{path}' ({problem})",
        "zh": "无法在目录 '{path}' 中写入（{problem}）",
    },
    "export_write_failed": {
        "en": "writing '{path}' failed ({problem})",
        "zh": "写入 '{path}' 失败（{problem}）",
    },
    "config_syntax": {
        "en": "it is not valid TOML at line {line}, column {column} ({problem})",
        "zh": "第 {line} 行第 {column} 列不是有效的 TOML（{problem}）",
    },
    "config_wrong_type": {
        "en": "'{key}' must be {kind}, not a TOML {got}",
        "zh": "'{key}' 必须是{kind}，而不是 TOML {got}",
    },
    "config_empty": {
        "en": "'{key}' must not be empty",
        "zh": "'{key}' 不能为空",
    },
    "config_bad_value": {
        "en": "'{key}' is refused: {problem}",
        "zh": "'{key}' 的值无效：{problem}",
    },
    "config_not_regular": {
        "en": "it is not a regular file",
        "zh": "它不是普通文件",
    },
    "config_unreadable": {
        "en": "it cannot be read ({problem})",
        "zh": "无法读取该文件（{problem}）",
    },
    "config_too_large": {
        "en": "it is larger than {limit} bytes",
        "zh": "文件超过 {limit} 字节",
    },
    "config_not_utf8": {
        "en": "it is not valid UTF-8 (byte {position})",
        "zh": "文件不是有效的 UTF-8 编码（第 {position} 字节）",
    },
    "config_unwritable": {
        "en": "it cannot be written there ({problem})",
        "zh": "无法在该位置写入（{problem}）",
    },
    "config_mcp_not_array": {
        "en": "'mcp_servers' must be an array of tables ([[mcp_servers]])",
        "zh": "'mcp_servers' 必须是表数组（[[mcp_servers]]）",
    },
    "config_mcp_name": {
        "en": "[[mcp_servers]] entry {index} needs a 'name' of lowercase letters, digits, '_' "
        "and '-' (got '{name}')",
        "zh": "第 {index} 个 [[mcp_servers]] 需要由小写字母、数字、'_' 和 '-' 组成的 'name'"
        "（收到 '{name}'）",
    },
    "config_mcp_duplicate": {
        "en": "two [[mcp_servers]] entries are named '{server}'",
        "zh": "有两个 [[mcp_servers]] 都名为 '{server}'",
    },
    "config_mcp_unknown_key": {
        "en": "tool server '{server}' has an unknown key '{key}'",
        "zh": "工具服务器 '{server}' 有未知的键 '{key}'",
    },
    "config_mcp_transport": {
        "en": "tool server '{server}' needs exactly one of 'command' (stdio) and 'url' (HTTP)",
        "zh": "工具服务器 '{server}' 必须且只能设置 'command'（stdio）与 'url'（HTTP）之一",
    },
    "config_mcp_url": {
        "en": "tool server '{server}': 'url' must start with http:// or https:// (got '{url}')",
        "zh": "工具服务器 '{server}'：'url' 必须以 http:// 或 https:// 开头（收到 '{url}'）",
    },
    "config_mcp_wrong_transport": {
        "en": "tool server '{server}': '{key}' does not apply to its transport",
        "zh": "工具服务器 '{server}'：'{key}' 不适用于它的传输方式",
    },
    "config_mcp_wrong_type": {
        "en": "tool server '{server}': '{key}' must be {kind}",
        "zh": "工具服务器 '{server}'：'{key}' 必须是{kind}",
    },
    "config_mcp_allow_empty": {
        "en": "tool server '{server}': 'allow' must name at least one tool",
        "zh": "工具服务器 '{server}'：'allow' 至少要列出一个工具",
    },
    "config_mcp_wildcard": {
        "en": "tool server '{server}': '{tool}' in '{key}' is a wildcard; name each tool",
        "zh": "工具服务器 '{server}'：'{key}' 中的 '{tool}' 是通配符；请逐个列出工具",
    },
    "config_mcp_confirm_not_allowed": {
        "en": "tool server '{server}': '{tool}' is in 'confirm' but not in 'allow'",
        "zh": "工具服务器 '{server}'：'{tool}' 在 'confirm' 中但不在 'allow' 中",
    },
    "config_mcp_variable": {
        "en": "tool server '{server}' uses ${{{variable}}}, which is not set in the environment",
        "zh": "工具服务器 '{server}' 使用了 ${{{variable}}}，但环境中未设置该变量",
    },
    "tool_server_start": {
        "en": "it did not start ({problem})",
        "zh": "启动失败（{problem}）",
    },
    "tool_server_stopped": {
        "en": "it stopped ({problem})",
        "zh": "已停止（{problem}）",
    },
    "tool_server_not_mcp": {
        "en": (
            "it wrote a line that is not an MCP message to its standard output ('{problem}'); "
            "a stdio server may write only MCP messages there, and its logs to stderr"
        ),
        "zh": (
            "它向标准输出写入了一行不是 MCP 消息的内容（'{problem}'）；"
            "stdio 服务器只能向标准输出写 MCP 消息，日志应写到 stderr"
        ),
    },
    "config_unknown_setting": {
        "en": "'{key}' is not a setting the file keeps (one of {names})",
        "zh": "'{key}' 不是设置文件保存的设置项（可选：{names}）",
    },
    "tui_needs_terminal": {
        "en": "the TUI needs a terminal, and standard input or standard error is not one: over "
        "ssh, add -t (ssh -t HOST oncall-tui); in a script, use `oncall-tui chat`",
        "zh": "TUI 需要终端，而标准输入或标准错误不是终端：通过 ssh 运行时请加 -t"
        "（ssh -t HOST oncall-tui）；在脚本中请用 `oncall-tui chat`",
    },
    "message_empty": {"en": "the message is empty", "zh": "消息为空"},
    "message_role": {"en": "unknown message role {role}", "zh": "未知的消息角色 {role}"},
    "message_too_long": {
        "en": "a message is at most {limit} characters (got {length}): send the part that matters",
        "zh": "一条消息最多 {limit} 个字符（实际 {length}）：请只发送相关的部分",
    },
    "title_empty": {"en": "the title is empty", "zh": "标题为空"},
    "title_too_long": {
        "en": "a title is at most {limit} characters (got {length})",
        "zh": "标题最多 {limit} 个字符（实际 {length}）",
    },
    "export_format": {
        "en": "an export is md or json (got '{fmt}')",
        "zh": "导出格式只能是 md 或 json（实际为 '{fmt}'）",
    },
    "summary_no_room": {
        "en": "the {window}-token window leaves no room to summarise in",
        "zh": "{window} 个 token 的上下文窗口没有留出生成摘要的空间",
    },
    "summary_tool_call": {
        "en": "the model wrote a tool call, not a summary",
        "zh": "模型写出的是工具调用，而不是摘要",
    },
    "summary_empty": {"en": "the model returned no summary", "zh": "模型没有返回摘要"},
    "stream_deadline": {
        "en": "the model took longer than the {seconds} s deadline",
        "zh": "模型用时超过了 {seconds} 秒的时限",
    },
    "user_empty": {"en": "the user name is empty", "zh": "用户名为空"},
    "setting_not_text": {"en": "{name} must be a string", "zh": "{name} 必须是字符串"},
    "setting_lang": {
        "en": "language '{value}' is not one of en, zh",
        "zh": "语言 '{value}' 不是 en 或 zh",
    },
    "setting_switch": {
        "en": "{name} '{value}' is not true or false",
        "zh": "{name} '{value}' 不是 true 或 false",
    },
    "setting_log_level": {
        "en": "log level '{value}' is not one of {levels}",
        "zh": "日志级别 '{value}' 不是 {levels} 之一",
    },
    "setting_port": {"en": "'{value}' has an invalid port", "zh": "'{value}' 的端口无效"},
    "setting_num_ctx_number": {
        "en": "num_ctx '{value}' is not a whole number",
        "zh": "num_ctx '{value}' 不是整数",
    },
    "setting_num_ctx_range": {
        "en": "num_ctx must be between {minimum} and {maximum} (got {value})",
        "zh": "num_ctx 必须在 {minimum} 到 {maximum} 之间（实际 {value}）",
    },
    "setting_seconds_number": {
        "en": "{name} '{value}' is not a number of seconds",
        "zh": "{name} '{value}' 不是秒数",
    },
    "setting_seconds_positive": {
        "en": "{name} must be positive (got {value})",
        "zh": "{name} 必须大于 0（实际 {value}）",
    },
}

# Notes complete a message with what happened around it; they are never errors on their own.
NOTES: dict[str, dict[Language, str]] = {
    "partial_kept": {
        "en": "The partial reply was kept, marked failed.",
        "zh": "已保留部分回复，标记为失败。",
    },
    "reply_cut": {
        "en": "The reply passed {limit} characters and was cut there, marked truncated.",
        "zh": "回复超过 {limit} 个字符，已在此截断并标记为 truncated。",
    },
    "retry_hint": {
        "en": "Your message is stored; retry answers it again.",
        "zh": "你的消息已保存；重试会重新回答它。",
    },
    "tools_unavailable": {
        "en": "Model '{model}' does not support tools: skills and the clock tool are unavailable.",
        "zh": "模型 '{model}' 不支持工具调用：技能和时间工具不可用。",
    },
    "tools_by_text": {
        "en": "Model '{model}' has no native tool calls: its tools are described in the system "
        "prompt and the calls it writes as text are made.",
        "zh": "模型 '{model}' 没有原生工具调用：工具在系统提示词中说明，"
        "它以文本写出的调用会被执行。",
    },
    "auto_compaction_failed": {
        "en": "{detail} The message is sent without compacting.",
        "zh": "{detail} 消息将不经压缩发送。",
    },
    "reply_held": {
        "en": "The answer is not saved yet: it is kept on this computer and saved when the "
        "database answers again.",
        "zh": "回答尚未保存：它保留在本机，数据库恢复后即保存。",
    },
    "reply_held_memory": {
        "en": "The answer is not saved, and the spool could not take it either: it is kept "
        "only while this program runs, and saved if the database answers before then.",
        "zh": "回答未保存，暂存区也无法写入：它只在本程序运行期间保留，"
        "数据库在此之前恢复则会保存。",
    },
    "held_saved": {
        "en": "{count} answers kept while the database was away are saved now.",
        "zh": "数据库不可用期间保留的 {count} 条回答现已保存。",
    },
    "held_saved_one": {
        "en": "The answer kept while the database was away is saved now.",
        "zh": "数据库不可用期间保留的回答现已保存。",
    },
    "reply_sent_back_short": {
        "en": "This reply is long ({chars} characters): later requests carry only its "
        "beginning and end, so the session stays usable; the whole reply stays in the history.",
        "zh": "这条回复很长（{chars} 个字符）：之后的请求只带上它的开头和结尾，会话仍可继续使用；"
        "完整回复仍保留在历史中。",
    },
}

KINDS: dict[str, dict[Language, str]] = {
    "prompt": {"en": "prompt", "zh": "提示词"},
    "skill": {"en": "skill", "zh": "技能"},
    "session": {"en": "session", "zh": "会话"},
    "model": {"en": "model", "zh": "模型"},
    # What a settings file's value must be (``config_wrong_type``).
    "text": {"en": "a string", "zh": "字符串"},
    "whole_number": {"en": "a whole number", "zh": "整数"},
    "number": {"en": "a number", "zh": "数字"},
    "boolean": {"en": "true or false", "zh": "true 或 false"},
    "table": {"en": "a table", "zh": "表"},
    "text_list": {"en": "an array of strings", "zh": "字符串数组"},
    "text_table": {"en": "a table of strings", "zh": "字符串表"},
}
