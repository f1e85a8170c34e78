"""The coding-agent harnesses ``trailproof-hook --agent`` understands (src/site/coding-agents.md).

Each harness names its hook events and payload fields its own way; this table maps them onto the
same trailproof events. A ``Spec`` says, for one hook event, the ``action_type`` recorded and where
the tool's name, input and output are in the payload. Every field of the payload the event does not
hold in a field of its own is kept in ``metadata`` (or, for lifecycle events, in ``action_input``).

Where a harness lets a hook block a tool call, ``answer`` turns the gate's decision into what the
harness reads on standard output (None: print nothing, which the harness reads as "go on").
"""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, NamedTuple, Optional, Tuple, Union

# kinds: "call" (a tool is about to run), "result" (it ran), "failure" (it failed), "prompt",
# "event" (everything else: its own fields go to action_input)
Fields = Union[None, str, Tuple[str, ...]]


class Spec(NamedTuple):
    action_type: str
    kind: str
    tool: Optional[str] = None  # payload key holding the tool name, or "=Name" for a fixed name
    input: Fields = None  # one key (its value is the input) or several (gathered into one object)
    output: Fields = None


class Harness(NamedTuple):
    name: str  # the --agent value, the default agent_id and the event's source
    session_key: str  # payload key holding the session (recorded as session_id)
    common: FrozenSet[str]  # fields every payload carries: metadata, never action_input
    events: Dict[str, Spec]
    gate_events: FrozenSet[str]  # events whose tool call the hook can block
    answer: Callable[[str, str], Optional[Dict[str, Any]]]  # (allow|deny, reason) -> stdout object
    status_known: bool = True  # whether a result event means the tool succeeded

    @property
    def capture_method(self) -> str:
        return self.name + "-hook"


def claude_answer(decision: str, reason: str) -> Dict[str, Any]:
    """Claude Code's answer to ``PreToolUse``: ``allow`` or ``deny`` with the reason (shown to Claude
    for a ``deny``)."""
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


def codex_answer(decision: str, reason: str) -> Optional[Dict[str, Any]]:
    """Codex reads Claude Code's ``deny`` form; an allowed call gets no output at all (Codex's
    ``PreToolUse`` honours only ``deny``), so it goes on through Codex's own approval rules."""
    return claude_answer("deny", reason) if decision == "deny" else None


def gemini_answer(decision: str, reason: str) -> Dict[str, Any]:
    """Gemini CLI's answer to ``BeforeTool``: ``{"decision": "allow"|"deny", "reason": ...}``."""
    return {"decision": decision, "reason": reason}


def cursor_answer(decision: str, reason: str) -> Dict[str, Any]:
    """Cursor's answer to ``beforeShellExecution`` and ``beforeMCPExecution``: ``permission`` with a
    message for the person (``user_message``) and one for the agent (``agent_message``)."""
    return {"permission": decision, "user_message": reason, "agent_message": reason}


_CLAUDE_LIKE = {
    "PreToolUse": Spec("TOOL_CALL", "call", "tool_name", "tool_input"),
    "PostToolUse": Spec("TOOL_RESULT", "result", "tool_name", "tool_input", "tool_response"),
    "PostToolUseFailure": Spec("TOOL_RESULT", "failure", "tool_name", "tool_input", "tool_response"),
    "UserPromptSubmit": Spec("USER_PROMPT", "prompt", None, ("prompt",)),
    "SessionStart": Spec("SESSION_START", "event"),
    "SessionEnd": Spec("SESSION_END", "event"),
    # Stop: the agent finished answering a prompt (the end of a turn, not of the session)
    "Stop": Spec("TURN_END", "event"),
    "SubagentStop": Spec("TURN_END", "event"),
}

CLAUDE_CODE = Harness(
    "claude-code", "session_id",
    frozenset(("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "agent_id",
               "agent_type")),
    _CLAUDE_LIKE, frozenset(("PreToolUse",)), claude_answer)

# Codex CLI's hooks (hooks.json) send Claude Code's payload shape, with turn_id and model added.
CODEX = Harness(
    "codex", "session_id",
    frozenset(("session_id", "turn_id", "transcript_path", "cwd", "permission_mode", "hook_event_name",
               "model")),
    _CLAUDE_LIKE, frozenset(("PreToolUse",)), codex_answer)

GEMINI = Harness(
    "gemini", "session_id",
    frozenset(("session_id", "transcript_path", "cwd", "hook_event_name", "timestamp")),
    {
        "BeforeTool": Spec("TOOL_CALL", "call", "tool_name", "tool_input"),
        # an AfterTool whose tool_response carries an ``error`` is recorded as a failure
        "AfterTool": Spec("TOOL_RESULT", "result", "tool_name", "tool_input", "tool_response"),
        "BeforeAgent": Spec("USER_PROMPT", "prompt", None, ("prompt",)),
        "AfterAgent": Spec("TURN_END", "event"),
        "SessionStart": Spec("SESSION_START", "event"),
        "SessionEnd": Spec("SESSION_END", "event"),
    },
    frozenset(("BeforeTool",)), gemini_answer)

CURSOR = Harness(
    "cursor", "conversation_id",
    frozenset(("conversation_id", "generation_id", "workspace_roots", "hook_event_name", "model",
               "cursor_version", "user_email", "transcript_path")),
    {
        "beforeShellExecution": Spec("TOOL_CALL", "call", "=Shell", ("command", "cwd")),
        "afterShellExecution": Spec("TOOL_RESULT", "result", "=Shell", ("command", "cwd"), ("output", "duration")),
        "beforeMCPExecution": Spec("TOOL_CALL", "call", "tool_name", "tool_input"),
        "afterMCPExecution": Spec("TOOL_RESULT", "result", "tool_name", "tool_input", ("result_json", "duration")),
        "beforeReadFile": Spec("TOOL_CALL", "call", "=Read", ("file_path", "content", "attachments")),
        "afterFileEdit": Spec("TOOL_RESULT", "result", "=Edit", ("file_path",), ("edits",)),
        "beforeSubmitPrompt": Spec("USER_PROMPT", "prompt", None, ("prompt", "attachments")),
        "stop": Spec("TURN_END", "event"),
        "sessionStart": Spec("SESSION_START", "event"),
        "sessionEnd": Spec("SESSION_END", "event"),
    },
    frozenset(("beforeShellExecution", "beforeMCPExecution")), cursor_answer,
    status_known=False)  # Cursor's after-hooks do not say whether the command or tool succeeded

HARNESSES = {h.name: h for h in (CLAUDE_CODE, CODEX, GEMINI, CURSOR)}
