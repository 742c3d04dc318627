"""The exported session's Markdown (:mod:`oncall_tui.services.transcript_markdown`): its facts,
headings and notes, in the language of the app that exports it. A message's role and status are
the stored words the CLI prints too (``role.*``, ``reply.*`` in :mod:`.cli`)."""

from __future__ import annotations

from oncall_tui.errors import Language

EXPORT: dict[str, dict[Language, str]] = {
    "export.exported": {
        "en": "Exported from oncall-tui on {when}.",
        "zh": "由 oncall-tui 导出于 {when}。",
    },
    "export.fact": {"en": "- **{label}:** {value}", "zh": "- **{label}：** {value}"},
    "export.session": {"en": "Session", "zh": "会话"},
    "export.started": {"en": "Started", "zh": "开始于"},
    "export.last_activity": {"en": "Last activity", "zh": "最后活动"},
    "export.messages": {"en": "Messages", "zh": "消息数"},
    "export.model": {"en": "Model (when exported)", "zh": "模型（导出时）"},
    "export.memory_mode": {"en": "Memory mode", "zh": "记忆模式"},
    "export.boundary": {"en": "Compaction boundary", "zh": "压缩边界"},
    "export.context": {"en": "Context", "zh": "上下文"},
    "export.context_used": {
        "en": "{used} of {window} tokens ({percent}%)",
        "zh": "{used} / {window} 词元（{percent}%）",
    },
    "export.boundary_none": {"en": "none (nothing summarised)", "zh": "无（尚未摘要）"},
    "export.boundary_after_one": {
        "en": "after message 1 (it is summarised)",
        "zh": "第 1 条消息之后（它已被摘要）",
    },
    "export.boundary_after": {
        "en": "after message {count} (messages 1–{count} are summarised)",
        "zh": "第 {count} 条消息之后（第 1–{count} 条已被摘要）",
    },
    "export.boundary_note_one": {
        "en": "**Compaction boundary.** The message above is summarised in the model-written "
        "summary; from here on the model saw that summary instead of them, and the messages "
        "below.",
        "zh": "**压缩边界。** 上面的消息已写入模型生成的摘要；"
        "从这里起，模型看到的是该摘要而不是它，以及下面的消息。",
    },
    "export.boundary_note": {
        "en": "**Compaction boundary.** The {count} messages above are summarised in the "
        "model-written summary; from here on the model saw that summary instead of them, and "
        "the messages below.",
        "zh": "**压缩边界。** 上面的 {count} 条消息已写入模型生成的摘要；"
        "从这里起，模型看到的是该摘要而不是它们，以及下面的消息。",
    },
    "export.summary_heading": {"en": "Summary (written by the model)", "zh": "摘要（由模型生成）"},
    "export.summary_lead_one": {
        "en": "**Model-written summary** of message 1{made}: not the user's words, and not "
        "evidence.{cut}",
        "zh": "**模型生成的摘要**，涵盖第 1 条消息{made}：不是用户的原话，也不是证据。{cut}",
    },
    "export.summary_lead": {
        "en": "**Model-written summary** of messages 1–{count}{made}: not the user's words, and "
        "not evidence.{cut}",
        "zh": "**模型生成的摘要**，涵盖第 1–{count} 条消息{made}："
        "不是用户的原话，也不是证据。{cut}",
    },
    "export.summary_made": {"en": ", made {when}", "zh": "，生成于 {when}"},
    "export.summary_cut": {
        "en": " It was cut off at the model's length limit.",
        "zh": "它在模型的长度上限处被截断。",
    },
    "export.conversation": {"en": "Conversation", "zh": "对话"},
    "export.no_messages": {"en": "No messages.", "zh": "没有消息。"},
    "export.no_text": {"en": "(no text)", "zh": "（无文本）"},
    "export.status_note.interrupted": {
        "en": "Interrupted: the reply was stopped before it ended; what had arrived is kept.",
        "zh": "已中断：回复在结束前被停止；已收到的部分会保留。",
    },
    "export.status_note.failed": {
        "en": "Failed: the reply broke off with an error; what had arrived is kept.",
        "zh": "失败：回复因错误中断；已收到的部分会保留。",
    },
    "export.status_note.truncated": {
        "en": "Truncated: the reply was cut off at the length limit.",
        "zh": "已截断：回复在长度上限处被截断。",
    },
    "export.status_note.other": {"en": "Status: {status}.", "zh": "状态：{status}。"},
    "export.tool_call": {"en": "Tool call", "zh": "工具调用"},
    "export.tool_status.ok": {"en": "ok", "zh": "成功"},
    "export.tool_status.error": {"en": "error", "zh": "出错"},
    "export.tool_status.withheld": {
        "en": "withheld (the result did not fit under the 95% limit; the model got a note)",
        "zh": "未载入（结果放不进 95% 的上限；模型收到了一条说明）",
    },
    "export.tool_status.cut": {
        "en": "cut (the result did not fit whole under the 95% limit; the model got its "
        "beginning and a note of how much was left out)",
        "zh": "已截断（结果无法完整放进 95% 的上限；模型收到了开头部分和一条说明省略了多少的注释）",
    },
    "export.tool_status.interrupted": {"en": "interrupted", "zh": "已中断"},
    "export.tool_status.declined": {"en": "declined", "zh": "未运行"},
}
