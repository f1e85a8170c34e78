"""trailproof-hook: each Claude Code hook event in its documented shape, the service down, and a
malformed payload. The hook always exits 0 and never writes to standard output."""

import json
import os
import socket
import subprocess
import sys
import threading
import time
import unittest

from trailproof import hook
from trailproof._spool import Spool

from .support import SDK_DIR, Proxy, ServerTest, free_port

# What a busy machine may add past a deadline to the hook's own steps (seconds).
DEADLINE_MARGIN = 0.5

SESSION = "3f1c2a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
BASE = {"session_id": SESSION, "transcript_path": "/home/dev/.claude/projects/p/%s.jsonl" % SESSION,
        "cwd": "/home/dev/project", "permission_mode": "default"}
PAYLOADS = [
    dict(BASE, hook_event_name="SessionStart", source="startup"),
    dict(BASE, hook_event_name="UserPromptSubmit", prompt="List the files and fix the failing test"),
    dict(BASE, hook_event_name="PreToolUse", tool_name="Bash", tool_use_id="toolu_01",
         tool_input={"command": "ls -la", "description": "List files"}),
    dict(BASE, hook_event_name="PostToolUse", tool_name="Bash", tool_use_id="toolu_01",
         tool_input={"command": "ls -la", "description": "List files"},
         tool_response={"stdout": "total 0\n", "stderr": "", "interrupted": False}),
    dict(BASE, hook_event_name="PostToolUseFailure", tool_name="Bash", tool_use_id="toolu_02",
         tool_input={"command": "npm test"}, error="Command exited with non-zero status code 1", is_interrupt=False),
    dict(BASE, hook_event_name="Stop", stop_hook_active=False),
    dict(BASE, hook_event_name="SessionEnd", reason="prompt_input_exit"),
]


def run_hook(payload: bytes, env: dict) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env)
    full["PYTHONPATH"] = SDK_DIR + os.pathsep + full.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "trailproof.hook"], input=payload, capture_output=True,
                          env=full, timeout=30)


class HookTest(ServerTest):
    def env(self, url: str, agent: str) -> dict:
        return {"TRAILPROOF_URL": url, "TRAILPROOF_AGENT_ID": agent, "TRAILPROOF_SPOOL_DIR": self.spool_dir,
                "TRAILPROOF_HOOK_BUDGET_MS": "10000"}  # generous: these machines are shared and slow

    def test_each_hook_event_is_recorded(self) -> None:
        agent = self.agent("claude")
        for p in PAYLOADS:
            done = run_hook(json.dumps(p).encode(), self.env(self.server.url, agent))
            self.assertEqual(0, done.returncode)
            self.assertEqual(b"", done.stdout)
            self.assertEqual(b"", done.stderr, p["hook_event_name"])
        ev = self.server.events(agent)
        self.assertEqual(["SESSION_START", "USER_PROMPT", "TOOL_CALL", "TOOL_RESULT", "TOOL_RESULT", "TURN_END",
                          "SESSION_END"], [e["action_type"] for e in ev])
        self.assertTrue(all(e["session_id"] == SESSION for e in ev))
        self.assertTrue(all(e["capture_method"] == "claude-code-hook" for e in ev))
        self.assertEqual({"prompt": PAYLOADS[1]["prompt"]}, ev[1]["action_input"])
        self.assertEqual(("Bash", PAYLOADS[2]["tool_input"]), (ev[2]["action_name"], ev[2]["action_input"]))
        self.assertEqual(("success", PAYLOADS[3]["tool_response"]), (ev[3]["action_status"], ev[3]["action_output"]))
        self.assertEqual(("error", PAYLOADS[4]["error"]), (ev[4]["action_status"], ev[4]["error_message"]))
        self.assertEqual("/home/dev/project", ev[2]["metadata"]["cwd"])
        self.assertEqual({"source": "startup"}, ev[0]["action_input"])
        self.assertEqual({"reason": "prompt_input_exit"}, ev[6]["action_input"])
        # One capture stream for the hook session, numbered across runs; SessionEnd ends it.
        self.assertEqual(1, len({e["capture_id"] for e in ev}))
        self.assertEqual(list(range(1, 8)), [e["capture_seq"] for e in ev])
        self.assertEqual([False] * 6 + [True], [e.get("capture_last", False) for e in ev])
        self.assertEqual([], os.listdir(os.path.join(self.spool_dir, "hook-capture")))

    def test_the_installed_console_script(self) -> None:
        script = os.path.join(os.path.dirname(sys.executable), "trailproof-hook")
        if not os.path.exists(script):
            self.skipTest("trailproof-hook is not installed beside %s" % sys.executable)
        agent = self.agent("claude-script")
        env = dict(os.environ, **self.env(self.server.url, agent))
        done = subprocess.run([script], input=json.dumps(PAYLOADS[2]).encode(), capture_output=True, env=env,
                              timeout=30)
        self.assertEqual((0, b"", b""), (done.returncode, done.stdout, done.stderr))
        self.assertEqual(["TOOL_CALL"], [e["action_type"] for e in self.server.events(agent)])

    def test_agent_id_defaults_to_claude_code(self) -> None:
        self.assertEqual("claude-code", hook.event_for(PAYLOADS[2], hook.AGENT_ID)["agent_id"])

    def test_service_down_spools_and_the_next_run_sends_the_spool_first(self) -> None:
        port = free_port()
        url = "http://127.0.0.1:%d" % port
        agent = self.agent("claude-down")
        for p in PAYLOADS[:3]:
            done = run_hook(json.dumps(p).encode(), self.env(url, agent))
            self.assertEqual((0, b""), (done.returncode, done.stdout))
            self.assertIn(b"spooled", done.stderr)
            self.assertEqual(1, done.stderr.count(b"\n"))
        self.assertEqual(3, len(Spool(self.spool_dir, url).pending()))
        proxy = Proxy(self.server.port, port=port)
        self.addCleanup(proxy.close)
        done = run_hook(json.dumps(PAYLOADS[3]).encode(), self.env(url, agent))
        self.assertEqual((0, b"", b""), (done.returncode, done.stdout, done.stderr))
        self.assertEqual([], Spool(self.spool_dir, url).pending())
        ev = self.server.events(agent)
        self.assertEqual(["SESSION_START", "USER_PROMPT", "TOOL_CALL", "TOOL_RESULT"], [e["action_type"] for e in ev])

    def test_an_unreadable_spool_file_is_set_aside_and_the_event_is_sent(self) -> None:
        agent = self.agent("claude-set-aside")
        spool = Spool(self.spool_dir, self.server.url)
        spool.write("k-" + os.urandom(8).hex(), b'{"format": 2}')  # a newer version's file
        done = run_hook(json.dumps(PAYLOADS[0]).encode(), self.env(self.server.url, agent))
        self.assertEqual((0, b"", b""), (done.returncode, done.stdout, done.stderr))
        self.assertEqual(["SESSION_START"], [e["action_type"] for e in self.server.events(agent)])
        self.assertEqual([], spool.pending())
        self.assertEqual(1, len([n for n in os.listdir(spool.dir) if n.endswith(".batch.unreadable")]))

    def test_service_down_or_silent_costs_no_more_than_the_budget(self) -> None:
        # A port nobody listens on, and a server that takes the connection and never answers: either
        # way the hook gives up at its deadline and spools. A hook that waited for its connection's
        # own time limits would take seconds; the margin over the deadline is what a machine busy
        # with other work adds to the hook's own steps (the budget's figure is for a quiet one).
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        self.addCleanup(silent.close)
        for url in ("http://127.0.0.1:%d" % free_port(), "http://127.0.0.1:%d" % silent.getsockname()[1]):
            start = time.monotonic()
            line = hook.run(json.dumps(PAYLOADS[2]).encode(), start + 0.12,
                            {"TRAILPROOF_URL": url, "TRAILPROOF_SPOOL_DIR": self.spool_dir})
            self.assertLess(time.monotonic() - start, 0.12 + DEADLINE_MARGIN, url)
            self.assertIn("spooled", line)

    def test_malformed_payload_records_nothing(self) -> None:
        agent = self.agent("claude-bad")
        for bad in (b"not json", b"[1,2]", b'{"session_id": "s"}', b'{"hook_event_name": "PreToolUse"}', b"\xff"):
            done = run_hook(bad, self.env(self.server.url, agent))
            self.assertEqual((0, b""), (done.returncode, done.stdout))
            self.assertTrue(done.stderr.startswith(b"trailproof-hook: malformed hook payload"), done.stderr)
            self.assertEqual(1, done.stderr.count(b"\n"))
        self.assertEqual([], self.server.events(agent))
        self.assertEqual([], Spool(self.spool_dir, self.server.url).pending())

    def test_a_huge_tool_response_is_kept_as_its_digest(self) -> None:
        p = dict(PAYLOADS[3], tool_response={"stdout": "x" * 2_000_000})
        out = hook.event_for(p, "a")["action_output"]
        self.assertTrue(out["truncated"])
        self.assertEqual(64, len(out["sha256"]))


# Payloads as Claude Code sends them (its hooks reference: the common fields, then each event's own).
RECORDED = [
    dict(BASE, hook_event_name="SessionStart", source="startup", model="claude-sonnet-4-5-20250929"),
    dict(BASE, hook_event_name="SessionStart", source="compact", model="claude-opus-4-1-20250805"),
    dict(BASE, hook_event_name="PreCompact", trigger="manual", custom_instructions="keep the failing test names"),
    dict(BASE, hook_event_name="PreCompact", trigger="auto", custom_instructions=""),
    dict(BASE, hook_event_name="Notification", message="Claude needs your permission to use Bash",
         notification_type="permission_prompt"),
    dict(BASE, hook_event_name="Notification", message="Claude is waiting for your input",
         notification_type="idle_prompt", title="Claude Code"),
    dict(BASE, hook_event_name="SubagentStart", agent_id="agent-7f3a", agent_type="Explore"),
    dict(BASE, hook_event_name="SubagentStop", stop_hook_active=False, agent_id="agent-7f3a", agent_type="Explore",
         agent_transcript_path="/home/dev/.claude/projects/p/%s/subagents/agent-7f3a.jsonl" % SESSION),
    dict(BASE, hook_event_name="Stop", stop_hook_active=True),
    dict(BASE, hook_event_name="SessionEnd", reason="clear"),
    dict(BASE, hook_event_name="PermissionRequest", tool_name="Bash", tool_input={"command": "rm -rf build"},
         permission_suggestions=[{"type": "addRules", "behavior": "allow", "destination": "localSettings"}]),
    dict(BASE, hook_event_name="PostToolUseFailure", tool_name="Bash", tool_use_id="toolu_03",
         tool_input={"command": "make"}, error="Command timed out", is_interrupt=True),
    dict(BASE, hook_event_name="UserPromptSubmit", prompt="Run the tests"),
    # an event or a field a later Claude Code adds
    dict(BASE, hook_event_name="ConfigChange", source="user_settings", file_path="/home/dev/.claude/settings.json",
         changes={"model": "opus"}),
]


class DecisionTimeoutTest(unittest.TestCase):
    def test_the_decision_timeout_comes_from_the_environment_when_it_is_a_positive_number(self) -> None:
        self.assertEqual(5.0, hook._decision_timeout({}))
        self.assertEqual(12.5, hook._decision_timeout({"TRAILPROOF_DECISION_TIMEOUT": "12.5"}))
        for bad in ("0", "-3", "soon", "inf", "nan", ""):
            self.assertEqual(5.0, hook._decision_timeout({"TRAILPROOF_DECISION_TIMEOUT": bad}), bad)


class HookPayloadTest(unittest.TestCase):
    """Every field of every payload is on the event: in the field the table maps it to, in
    ``action_input`` (an event's own fields) or in ``metadata`` (the rest)."""

    @staticmethod
    def holds(event: dict, key: str, value: object) -> bool:
        mapped = {"session_id": event.get("session_id"), "tool_name": event.get("action_name"),
                  "error": event.get("error_message"), "tool_input": event.get("action_input"),
                  "tool_response": event.get("action_output")}
        if key in mapped and mapped[key] == value:
            return True
        return any(isinstance(event.get(m), dict) and key in event[m] and event[m][key] == value
                   for m in ("action_input", "metadata"))

    def test_every_field_of_every_recorded_payload_is_kept(self) -> None:
        for p in RECORDED + PAYLOADS:
            event = hook.event_for(p, "claude-code")
            for key, value in p.items():
                self.assertTrue(self.holds(event, key, value), "%s: %s lost from %s" % (p["hook_event_name"], key, event))

    def test_the_fields_that_used_to_be_lost(self) -> None:
        self.assertEqual("manual", hook.event_for(RECORDED[2], "c")["action_input"]["trigger"])
        self.assertEqual("claude-sonnet-4-5-20250929", hook.event_for(RECORDED[0], "c")["action_input"]["model"])
        self.assertEqual("permission_prompt", hook.event_for(RECORDED[4], "c")["action_input"]["notification_type"])
        stop = hook.event_for(RECORDED[7], "c")
        self.assertEqual(RECORDED[7]["agent_transcript_path"], stop["action_input"]["agent_transcript_path"])
        self.assertEqual(("agent-7f3a", "Explore"), (stop["metadata"]["agent_id"], stop["metadata"]["agent_type"]))
        self.assertEqual("c", stop["agent_id"])  # the payload's agent_id names the subagent, in metadata
        self.assertTrue(hook.event_for(RECORDED[11], "c")["metadata"]["is_interrupt"])

    def test_a_huge_field_is_kept_as_its_digest_and_the_others_whole(self) -> None:
        p = dict(RECORDED[5], message="m" * 2_000_000)
        event = hook.event_for(p, "c")
        self.assertTrue(event["action_input"]["message"]["truncated"])
        self.assertEqual(2_000_002, event["action_input"]["message"]["bytes"])
        self.assertEqual(("idle_prompt", "Claude Code"),
                         (event["action_input"]["notification_type"], event["action_input"]["title"]))
        self.assertLess(len(json.dumps(event)), 600_000)


def pre_tool_use(command: str, tool_use_id: str) -> dict:
    """A recorded PreToolUse payload of the Bash tool."""
    return dict(BASE, hook_event_name="PreToolUse", tool_name="Bash", tool_use_id=tool_use_id,
                tool_input={"command": command, "description": "Run a command"})


class GatedHookTest(ServerTest):
    """TRAILPROOF_GATE=1: Claude Code's permission decision on standard output, as its hooks read it."""

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

    def decided(self, done: subprocess.CompletedProcess) -> dict:
        self.assertEqual(0, done.returncode)
        out = json.loads(done.stdout.decode("utf-8"))
        self.assertEqual(["hookSpecificOutput"], list(out))
        self.assertEqual("PreToolUse", out["hookSpecificOutput"]["hookEventName"])
        self.assertEqual({"hookEventName", "permissionDecision", "permissionDecisionReason"},
                         set(out["hookSpecificOutput"]))
        return out["hookSpecificOutput"]

    def test_a_denied_call_is_refused_with_the_reason(self) -> None:
        agent = self.agent("gated-deny")
        done = run_hook(json.dumps(pre_tool_use("rm -rf /tmp/build", "toolu_11")).encode(),
                        self.env(self.server.url, agent))
        out = self.decided(done)
        self.assertEqual("deny", out["permissionDecision"])
        self.assertIn("recursive deletes are not allowed", out["permissionDecisionReason"])
        self.assertIn("no-rm-rf", out["permissionDecisionReason"])
        self.assertEqual(["DECISION"], [e["action_type"] for e in self.server.events(agent)])

    def test_an_allowed_call_runs_and_binds(self) -> None:
        agent = self.agent("gated-allow")
        done = run_hook(json.dumps(pre_tool_use("ls -la", "toolu_12")).encode(), self.env(self.server.url, agent))
        self.assertEqual("allow", self.decided(done)["permissionDecision"])
        self.assertEqual(b"", done.stderr)
        ev = self.server.events(agent)
        self.assertEqual(["DECISION", "TOOL_CALL"], [e["action_type"] for e in ev])
        self.assertEqual(ev[0]["id"], ev[1]["decision_id"])
        self.assertEqual({"command": "ls -la", "description": "Run a command"}, ev[1]["action_input"])

    def test_other_hook_events_print_nothing(self) -> None:
        agent = self.agent("gated-other")
        done = run_hook(json.dumps(PAYLOADS[3]).encode(), self.env(self.server.url, agent))
        self.assertEqual((0, b"", b""), (done.returncode, done.stdout, done.stderr))
        self.assertEqual(["TOOL_RESULT"], [e["action_type"] for e in self.server.events(agent)])

    def test_an_approved_ask_is_allowed_and_binds(self) -> None:
        agent = self.agent("gated-ask")
        answered = threading.Thread(target=lambda: self.server.answer(self.server.decision_of(agent)["id"], True,
                                                                      "release day"), daemon=True)
        answered.start()
        done = run_hook(json.dumps(pre_tool_use("git push origin main", "toolu_13")).encode(),
                        self.env(self.server.url, agent, TRAILPROOF_ASK_WAIT="90"))
        answered.join(60)
        self.assertEqual("allow", self.decided(done)["permissionDecision"])
        ev = self.server.events(agent)
        self.assertEqual(["DECISION", "APPROVAL", "TOOL_CALL"], [e["action_type"] for e in ev])
        self.assertEqual(ev[0]["id"], ev[2]["decision_id"])

    def test_an_unanswered_ask_is_denied_after_the_wait(self) -> None:
        agent = self.agent("gated-ask-timeout")
        start = time.monotonic()
        done = run_hook(json.dumps(pre_tool_use("git push origin main", "toolu_14")).encode(),
                        self.env(self.server.url, agent, TRAILPROOF_ASK_WAIT="2"))
        out = self.decided(done)
        self.assertEqual("deny", out["permissionDecision"])
        self.assertIn("not approved in time", out["permissionDecisionReason"])
        self.assertGreaterEqual(time.monotonic() - start, 1.0)
        self.assertEqual(["DECISION"], [e["action_type"] for e in self.server.events(agent)])

    def test_unreachable_is_denied_unless_fail_mode_open(self) -> None:
        url = "http://127.0.0.1:%d" % free_port()
        agent = self.agent("gated-down")
        payload = json.dumps(pre_tool_use("ls", "toolu_15")).encode()
        out = self.decided(run_hook(payload, self.env(url, agent)))
        self.assertEqual("deny", out["permissionDecision"])
        self.assertIn("unavailable", out["permissionDecisionReason"])
        self.assertEqual([], Spool(self.spool_dir, url).pending())

        done = run_hook(payload, self.env(url, agent, TRAILPROOF_GATE_FAIL_MODE="open"))
        self.assertEqual("allow", self.decided(done)["permissionDecision"])
        self.assertIn(b"fail mode open", done.stderr)
        pending = Spool(self.spool_dir, url).pending()
        self.assertEqual(1, len(pending))
        with open(pending[0], "rb") as f:
            spooled = json.loads(f.read().decode("utf-8"))
        self.assertEqual("unavailable", spooled[0]["metadata"]["gate"])
        self.assertNotIn("decision_id", spooled[0])


if __name__ == "__main__":
    unittest.main()
