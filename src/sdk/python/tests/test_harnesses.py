"""trailproof-hook --agent codex|gemini|cursor: each harness's hook payloads, in their documented
shapes, mapped to the same events as Claude Code's; the gate answering in each blocking harness's own
format; the spool when the service is down; a malformed payload never failing the harness."""

import json
import os
import subprocess
import sys
import unittest

from trailproof import hook
from trailproof._harnesses import CODEX, CURSOR, GEMINI
from trailproof._spool import Spool

from .support import SDK_DIR, ServerTest, free_port

SESSION = "7d2e9c41-0a5b-4c3d-8e6f-1a2b3c4d5e6f"

CODEX_BASE = {"session_id": SESSION, "turn_id": "turn-1", "transcript_path": "/home/dev/.codex/sessions/r.jsonl",
              "cwd": "/home/dev/project", "model": "gpt-5-codex", "permission_mode": "default"}
CODEX_PAYLOADS = [
    dict(CODEX_BASE, hook_event_name="SessionStart", source="startup"),
    dict(CODEX_BASE, hook_event_name="UserPromptSubmit", prompt="Fix the failing test"),
    dict(CODEX_BASE, hook_event_name="PreToolUse", tool_name="Bash", tool_use_id="call_1",
         tool_input={"command": "ls -la"}),
    dict(CODEX_BASE, hook_event_name="PostToolUse", tool_name="Bash", tool_use_id="call_1",
         tool_input={"command": "ls -la"}, tool_response="total 0\n"),
    dict(CODEX_BASE, hook_event_name="Stop", stop_hook_active=False, last_assistant_message="Done."),
]
CODEX_TYPES = ["SESSION_START", "USER_PROMPT", "TOOL_CALL", "TOOL_RESULT", "TURN_END"]

GEMINI_BASE = {"session_id": SESSION, "transcript_path": "/home/dev/.gemini/tmp/p/chats/s.json",
               "cwd": "/home/dev/project", "timestamp": "2026-01-05T10:00:00.000Z"}
GEMINI_PAYLOADS = [
    dict(GEMINI_BASE, hook_event_name="SessionStart", source="startup"),
    dict(GEMINI_BASE, hook_event_name="BeforeAgent", prompt="List the files"),
    dict(GEMINI_BASE, hook_event_name="BeforeTool", tool_name="run_shell_command",
         tool_input={"command": "ls -la", "description": "List files"}),
    dict(GEMINI_BASE, hook_event_name="AfterTool", tool_name="run_shell_command",
         tool_input={"command": "ls -la", "description": "List files"},
         tool_response={"llmContent": "total 0", "returnDisplay": "total 0"}),
    dict(GEMINI_BASE, hook_event_name="AfterTool", tool_name="read_file", tool_input={"absolute_path": "/nope"},
         tool_response={"llmContent": "", "error": "File not found: /nope"}),
    dict(GEMINI_BASE, hook_event_name="AfterAgent", prompt="List the files", prompt_response="Here they are.",
         stop_hook_active=False),
    dict(GEMINI_BASE, hook_event_name="BeforeModel", llm_request={"model": "gemini-2.5-pro", "messages": []}),
    dict(GEMINI_BASE, hook_event_name="SessionEnd", reason="exit"),
]
GEMINI_TYPES = ["SESSION_START", "USER_PROMPT", "TOOL_CALL", "TOOL_RESULT", "TOOL_RESULT", "TURN_END",
                "HOOK_EVENT", "SESSION_END"]

CURSOR_BASE = {"conversation_id": "conv-5f1e", "generation_id": "gen-91ab", "workspace_roots": ["/home/dev/project"],
               "model": "claude-4-sonnet", "cursor_version": "1.7.2", "user_email": "dev@example.com"}
CURSOR_PAYLOADS = [
    dict(CURSOR_BASE, hook_event_name="beforeSubmitPrompt", prompt="Install express", attachments=[]),
    dict(CURSOR_BASE, hook_event_name="beforeShellExecution", command="npm install express", cwd="/home/dev/project"),
    dict(CURSOR_BASE, hook_event_name="afterShellExecution", command="npm install express", cwd="/home/dev/project",
         output="added 64 packages", duration=1520),
    dict(CURSOR_BASE, hook_event_name="beforeMCPExecution", tool_name="query", tool_input='{"sql": "SELECT 1"}',
         url="http://localhost:3000/mcp"),
    dict(CURSOR_BASE, hook_event_name="afterMCPExecution", tool_name="query", tool_input='{"sql": "SELECT 1"}',
         result_json='{"rows": [[1]]}', duration=40),
    dict(CURSOR_BASE, hook_event_name="beforeReadFile", file_path="/home/dev/project/README.md", content="# p"),
    dict(CURSOR_BASE, hook_event_name="afterFileEdit", file_path="/home/dev/project/a.js",
         edits=[{"old_string": "1", "new_string": "2"}]),
    dict(CURSOR_BASE, hook_event_name="stop", status="completed", loop_count=0),
]
CURSOR_TYPES = ["USER_PROMPT", "TOOL_CALL", "TOOL_RESULT", "TOOL_CALL", "TOOL_RESULT", "TOOL_CALL", "TOOL_RESULT",
                "TURN_END"]


def run_hook(agent: str, payload: bytes, env: dict) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env)
    full["PYTHONPATH"] = SDK_DIR + os.pathsep + full.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "trailproof.hook", "--agent", agent], input=payload,
                          capture_output=True, env=full, timeout=60)


class HarnessHookTest(ServerTest):
    def env(self, url: str, agent: str, **extra: str) -> dict:
        env = {"TRAILPROOF_URL": url, "TRAILPROOF_AGENT_ID": agent, "TRAILPROOF_SPOOL_DIR": self.spool_dir,
               "TRAILPROOF_HOOK_BUDGET_MS": "10000"}  # generous: these machines are shared and slow
        env.update(extra)
        return env

    def recorded(self, harness: str, payloads: list) -> list:
        agent = self.agent(harness)
        for p in payloads:
            done = run_hook(harness, json.dumps(p).encode(), self.env(self.server.url, agent))
            self.assertEqual((0, b"", b""), (done.returncode, done.stdout, done.stderr), p["hook_event_name"])
        ev = self.server.events(agent)
        self.assertTrue(all(e["capture_method"] == harness + "-hook" for e in ev))
        self.assertEqual(1, len({e["capture_id"] for e in ev}))
        self.assertEqual(list(range(1, len(payloads) + 1)), [e["capture_seq"] for e in ev])
        return ev

    def test_codex_payloads(self) -> None:
        ev = self.recorded("codex", CODEX_PAYLOADS)
        self.assertEqual(CODEX_TYPES, [e["action_type"] for e in ev])
        self.assertTrue(all(e["session_id"] == SESSION for e in ev))
        self.assertEqual({"prompt": "Fix the failing test"}, ev[1]["action_input"])
        self.assertEqual(("Bash", {"command": "ls -la"}), (ev[2]["action_name"], ev[2]["action_input"]))
        self.assertEqual(({"value": "total 0\n"}, "success"), (ev[3]["action_output"], ev[3]["action_status"]))
        self.assertEqual(("turn-1", "gpt-5-codex"), (ev[2]["metadata"]["turn_id"], ev[2]["metadata"]["model"]))
        self.assertEqual("Done.", ev[4]["action_input"]["last_assistant_message"])

    def test_gemini_payloads(self) -> None:
        ev = self.recorded("gemini", GEMINI_PAYLOADS)
        self.assertEqual(GEMINI_TYPES, [e["action_type"] for e in ev])
        self.assertTrue(all(e["session_id"] == SESSION for e in ev))
        self.assertEqual({"prompt": "List the files"}, ev[1]["action_input"])
        self.assertEqual("run_shell_command", ev[2]["action_name"])
        self.assertEqual(GEMINI_PAYLOADS[2]["tool_input"], ev[2]["action_input"])
        self.assertEqual(("success", GEMINI_PAYLOADS[3]["tool_response"]), (ev[3]["action_status"], ev[3]["action_output"]))
        self.assertEqual(("error", "File not found: /nope"), (ev[4]["action_status"], ev[4]["error_message"]))
        self.assertEqual("Here they are.", ev[5]["action_input"]["prompt_response"])
        self.assertEqual(("BeforeModel", "gemini-2.5-pro"), (ev[6]["action_name"], ev[6]["action_input"]["llm_request"]["model"]))
        self.assertEqual("2026-01-05T10:00:00.000Z", ev[0]["metadata"]["timestamp"])
        self.assertTrue(ev[7]["capture_last"])

    def test_cursor_payloads(self) -> None:
        ev = self.recorded("cursor", CURSOR_PAYLOADS)
        self.assertEqual(CURSOR_TYPES, [e["action_type"] for e in ev])
        self.assertTrue(all(e["session_id"] == "conv-5f1e" for e in ev))
        self.assertEqual({"prompt": "Install express", "attachments": []}, ev[0]["action_input"])
        self.assertEqual(("Shell", {"command": "npm install express", "cwd": "/home/dev/project"}),
                         (ev[1]["action_name"], ev[1]["action_input"]))
        self.assertEqual({"output": "added 64 packages", "duration": 1520}, ev[2]["action_output"])
        self.assertNotIn("action_status", ev[2])  # Cursor does not say whether the command succeeded
        self.assertEqual(("query", {"sql": "SELECT 1"}), (ev[3]["action_name"], ev[3]["action_input"]))
        self.assertEqual("http://localhost:3000/mcp", ev[3]["metadata"]["url"])
        self.assertEqual({"result_json": '{"rows": [[1]]}', "duration": 40}, ev[4]["action_output"])
        self.assertEqual(("Read", "Edit"), (ev[5]["action_name"], ev[6]["action_name"]))
        self.assertEqual({"status": "completed", "loop_count": 0}, ev[7]["action_input"])
        self.assertEqual(("gen-91ab", "1.7.2", "dev@example.com"),
                         tuple(ev[1]["metadata"][k] for k in ("generation_id", "cursor_version", "user_email")))

    def test_service_down_spools_for_every_harness(self) -> None:
        url = "http://127.0.0.1:%d" % free_port()
        for harness, p in (("codex", CODEX_PAYLOADS[2]), ("gemini", GEMINI_PAYLOADS[2]), ("cursor", CURSOR_PAYLOADS[1])):
            done = run_hook(harness, json.dumps(p).encode(), self.env(url, self.agent(harness + "-down")))
            self.assertEqual((0, b""), (done.returncode, done.stdout), harness)
            self.assertIn(b"spooled", done.stderr)
            self.assertEqual(1, done.stderr.count(b"\n"))
        self.assertEqual(3, len(Spool(self.spool_dir, url).pending()))

    def test_malformed_payloads_never_fail_the_harness(self) -> None:
        agent = self.agent("bad")
        # each harness's own tool call without its tool
        toolless = {"codex": b'{"hook_event_name": "PreToolUse", "session_id": "s"}',
                    "gemini": b'{"hook_event_name": "BeforeTool", "session_id": "s"}',
                    "cursor": b'{"hook_event_name": "beforeMCPExecution", "conversation_id": "c"}'}
        for harness in ("codex", "gemini", "cursor"):
            for bad in (b"not json", b"[1]", b'{"conversation_id": "c"}', toolless[harness], b"\xff"):
                for gate in ("0", "1"):
                    done = run_hook(harness, bad, self.env(self.server.url, agent, TRAILPROOF_GATE=gate))
                    self.assertEqual((0, b""), (done.returncode, done.stdout), (harness, bad))
                    self.assertTrue(done.stderr.startswith(b"trailproof-hook: malformed hook payload"), done.stderr)
        done = run_hook("aider", json.dumps(CODEX_PAYLOADS[2]).encode(), self.env(self.server.url, agent))
        self.assertEqual((0, b""), (done.returncode, done.stdout))
        self.assertIn(b"unknown --agent 'aider'", done.stderr)
        self.assertEqual([], self.server.events(agent))


class HarnessPayloadTest(unittest.TestCase):
    def test_every_field_of_every_payload_is_kept(self) -> None:
        for harness, payloads in ((CODEX, CODEX_PAYLOADS), (GEMINI, GEMINI_PAYLOADS), (CURSOR, CURSOR_PAYLOADS)):
            for p in payloads:
                event = hook.event_for(p, harness.name, harness)
                flat = json.dumps(event)
                for key, value in p.items():
                    if isinstance(value, str) and value.startswith("{"):
                        value = json.loads(value)  # Cursor's MCP arguments, recorded decoded
                    found = (key in event.get("metadata", {}) or any(
                        isinstance(event.get(f), dict) and key in event[f] for f in ("action_input", "action_output"))
                        or any(value == v or {"value": value} == v for v in (
                            event.get("session_id"), event.get("action_name"), event.get("action_input"),
                            event.get("action_output"))))
                    self.assertTrue(found, "%s %s: %s lost from %s" % (harness.name, p["hook_event_name"], key, flat))


def gated(harness: str) -> dict:
    return {"codex": dict(CODEX_BASE, hook_event_name="PreToolUse", tool_name="Bash", tool_use_id="call_9",
                          tool_input={"command": "rm -rf /tmp/build"}),
            "gemini": dict(GEMINI_BASE, hook_event_name="BeforeTool", tool_name="run_shell_command",
                           tool_input={"command": "rm -rf /tmp/build"}),
            "cursor": dict(CURSOR_BASE, hook_event_name="beforeShellExecution", command="rm -rf /tmp/build",
                           cwd="/home/dev/project")}[harness]


class GatedHarnessTest(ServerTest):
    """TRAILPROOF_GATE=1: each blocking harness's own deny format on standard output."""

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.server.use_gate_policy()

    def env(self, url: str, agent: str, **extra: str) -> dict:
        env = {"TRAILPROOF_URL": url, "TRAILPROOF_AGENT_ID": agent, "TRAILPROOF_SPOOL_DIR": self.spool_dir,
               "TRAILPROOF_HOOK_BUDGET_MS": "10000", "TRAILPROOF_GATE": "1",
               "TRAILPROOF_DECISION_TIMEOUT": "60"}
        env.update(extra)
        return env

    @staticmethod
    def allowed(harness: str, command: str) -> dict:
        p = gated(harness)
        if harness == "cursor":
            return dict(p, command=command)
        return dict(p, tool_input={"command": command})

    def test_each_harness_denies_in_its_own_format(self) -> None:
        for harness in ("codex", "gemini", "cursor"):
            agent = self.agent("deny-" + harness)
            done = run_hook(harness, json.dumps(gated(harness)).encode(), self.env(self.server.url, agent))
            self.assertEqual(0, done.returncode)
            out = json.loads(done.stdout.decode("utf-8"))
            if harness == "codex":
                self.assertEqual("deny", out["hookSpecificOutput"]["permissionDecision"])
                reason = out["hookSpecificOutput"]["permissionDecisionReason"]
            elif harness == "gemini":
                self.assertEqual(["decision", "reason"], sorted(out))
                self.assertEqual("deny", out["decision"])
                reason = out["reason"]
            else:
                self.assertEqual(["agent_message", "permission", "user_message"], sorted(out))
                self.assertEqual("deny", out["permission"])
                reason = out["agent_message"]
            self.assertIn("no-rm-rf", reason)
            self.assertEqual(["DECISION"], [e["action_type"] for e in self.server.events(agent)])

    def test_each_harness_allows_and_binds(self) -> None:
        expected = {"codex": b"", "gemini": {"decision": "allow"}, "cursor": {"permission": "allow"}}
        for harness in ("codex", "gemini", "cursor"):
            agent = self.agent("allow-" + harness)
            done = run_hook(harness, json.dumps(self.allowed(harness, "ls -la")).encode(),
                            self.env(self.server.url, agent))
            self.assertEqual((0, b""), (done.returncode, done.stderr))
            if harness == "codex":
                self.assertEqual(b"", done.stdout)  # Codex honours only deny: silence lets the call go on
            else:
                out = json.loads(done.stdout.decode("utf-8"))
                self.assertTrue(expected[harness].items() <= out.items(), out)
            ev = self.server.events(agent)
            self.assertEqual(["DECISION", "TOOL_CALL"], [e["action_type"] for e in ev], harness)
            self.assertEqual(ev[0]["id"], ev[1]["decision_id"])

    def test_record_only_events_print_nothing_with_the_gate_on(self) -> None:
        agent = self.agent("gated-record-only")
        for harness, p in (("gemini", GEMINI_PAYLOADS[3]), ("cursor", CURSOR_PAYLOADS[5]), ("codex", CODEX_PAYLOADS[3])):
            done = run_hook(harness, json.dumps(p).encode(), self.env(self.server.url, agent))
            self.assertEqual((0, b"", b""), (done.returncode, done.stdout, done.stderr), harness)

    def test_unreachable_gate_denies_in_each_format(self) -> None:
        url = "http://127.0.0.1:%d" % free_port()
        for harness in ("codex", "gemini", "cursor"):
            done = run_hook(harness, json.dumps(self.allowed(harness, "ls")).encode(),
                            self.env(url, self.agent("down-" + harness)))
            self.assertEqual(0, done.returncode)
            self.assertIn(b"deny", done.stdout)
            self.assertIn(b"unavailable", done.stdout)
        self.assertEqual([], Spool(self.spool_dir, url).pending())


if __name__ == "__main__":
    unittest.main()
