"""The gate in the SDK against the real server: a denied call never runs, an allowed or approved one
runs and binds to its decision (no GATE_VIOLATION follows), an unanswered ask times out, and an
unreachable service refuses (fail mode closed) or runs and says so (fail mode open)."""

import asyncio
import json
import os
import shutil
import tempfile
import threading
import unittest
from typing import Any, Dict, List

import trailproof
from trailproof import ApprovalTimeout, Denied, Unavailable
from trailproof._spool import Spool

from .support import ServerTest, free_port


class GateTest(ServerTest):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.server.use_gate_policy()

    def types(self, agent: str) -> List[str]:
        return [e["action_type"] for e in self.server.events(agent)]

    def approve_later(self, agent: str, approve: bool, comment: str) -> threading.Thread:
        """Answers the agent's first decision from another thread, as a person in the console would."""
        def answer() -> None:
            self.server.answer(self.server.decision_of(agent)["id"], approve, comment)
        t = threading.Thread(target=answer, daemon=True)
        t.start()
        self.addCleanup(t.join, 60)
        return t

    def test_decide_answers_and_records_the_decision_first(self) -> None:
        agent = self.agent("decide")
        c = self.client(agent)
        d = c.decide("wipe_disk", {"disk": "/dev/sda"})
        self.assertEqual(("deny", "deny", False), (d.decision, d.state, d.allowed))
        self.assertEqual("no-wipe", d.rule)
        self.assertEqual("disks are never wiped by an agent", d.reason)
        self.assertEqual(64, len(d.args_sha256))
        stored = self.server.events(agent)  # recorded before the answer: no flush needed
        self.assertEqual(["DECISION"], [e["action_type"] for e in stored])
        self.assertEqual(d.decision_id, stored[0]["id"])
        self.assertEqual({"disk": "/dev/sda"}, stored[0]["action_input"])
        self.assertEqual("deny", d.wait(5))  # final at once

        allowed = c.decide("read_file", {"path": "/etc/hosts"})
        self.assertEqual(("allow", True), (allowed.decision, allowed.allowed))
        self.assertIsNone(allowed.expires_at)

    def test_a_denied_call_never_runs(self) -> None:
        agent = self.agent("deny")
        c = self.client(agent)
        ran = []

        @c.audited(gate=True, name="wipe_disk")
        def wipe_disk(disk: str) -> str:
            ran.append(disk)
            return "wiped"

        with self.assertRaises(Denied) as caught:
            wipe_disk("/dev/sda")
        self.assertEqual([], ran)
        self.assertIn("disks are never wiped by an agent", caught.exception.message)
        self.assertEqual("no-wipe", caught.exception.decision.rule)
        self.assertTrue(c.flush(30))
        self.assertEqual(["DECISION"], self.types(agent))

    def test_an_allowed_call_runs_and_binds_to_its_decision(self) -> None:
        agent = self.agent("allow")
        c = self.client(agent)

        @c.audited(gate=True, name="read_file")
        def read_file(path: str, lines: List[int]) -> str:
            lines.append(99)  # the function changes its argument: the record keeps what was decided
            return "contents"

        self.assertEqual("contents", read_file("/etc/hosts", [1, 2]))
        self.assertTrue(c.flush(30))
        stored = self.server.events(agent)
        self.assertEqual(["DECISION", "TOOL_CALL"], [e["action_type"] for e in stored])
        self.assertEqual(stored[0]["id"], stored[1]["decision_id"])
        self.assertEqual({"path": "/etc/hosts", "lines": [1, 2]}, stored[1]["action_input"])
        self.assertEqual("success", stored[1]["action_status"])
        self.assertNotIn("GATE_VIOLATION", self.types(agent))

    def test_an_approved_ask_runs_and_binds(self) -> None:
        agent = self.agent("ask-approved")
        c = self.client(agent)

        @c.audited(gate=True, name="refund", ask_timeout=90)
        def refund(order: str, amount: float) -> Dict[str, Any]:
            return {"refunded": amount}

        self.approve_later(agent, True, "checked with the customer")
        self.assertEqual({"refunded": 12.5}, refund("O-77", 12.5))
        self.assertTrue(c.flush(30))
        stored = self.server.events(agent)
        self.assertEqual(["DECISION", "APPROVAL", "TOOL_CALL"], [e["action_type"] for e in stored])
        self.assertEqual(stored[0]["id"], stored[2]["decision_id"])
        self.assertEqual(True, stored[1]["action_output"]["approved"])
        self.assertEqual("checked with the customer", stored[1]["action_output"]["comment"])
        self.assertNotIn("GATE_VIOLATION", self.types(agent))

    def test_an_ask_a_person_denies_raises_denied(self) -> None:
        agent = self.agent("ask-denied")
        c = self.client(agent)
        ran = []

        @c.audited(gate=True, name="refund", ask_timeout=90)
        async def refund(order: str) -> str:
            ran.append(order)
            return "refunded"

        self.approve_later(agent, False, "not this one")
        with self.assertRaises(Denied) as caught:
            asyncio.run(refund("O-78"))
        self.assertEqual([], ran)
        self.assertEqual("denied", caught.exception.decision.state)
        self.assertTrue(c.flush(30))
        self.assertEqual(["DECISION", "APPROVAL"], self.types(agent))

    def test_an_unanswered_ask_times_out_without_running(self) -> None:
        agent = self.agent("ask-timeout")
        c = self.client(agent)
        ran = []

        @c.audited(gate=True, name="refund", ask_timeout=1)
        def refund(order: str) -> str:
            ran.append(order)
            return "refunded"

        with self.assertRaises(ApprovalTimeout) as caught:
            refund("O-79")
        self.assertEqual([], ran)
        self.assertEqual("pending", caught.exception.decision.state)
        self.assertIsNotNone(caught.exception.decision.expires_at)

    def test_an_allowed_async_call_runs_and_binds(self) -> None:
        agent = self.agent("async-allow")
        c = self.client(agent)

        @c.audited(gate=True, name="lookup")
        async def lookup(q: str) -> int:
            await asyncio.sleep(0)
            return 3

        self.assertEqual(3, asyncio.run(lookup("x")))
        self.assertTrue(c.flush(30))
        stored = self.server.events(agent)
        self.assertEqual(["DECISION", "TOOL_CALL"], [e["action_type"] for e in stored])
        self.assertEqual(stored[0]["id"], stored[1]["decision_id"])

    def test_bad_arguments(self) -> None:
        c = self.client(self.agent("bad"))
        with self.assertRaises(ValueError):
            c.audited(gate=True, fail_mode="ajar")
        with self.assertRaises(ValueError):
            c.audited(gate=True, ask_timeout=-1)


class UnreachableGateTest(unittest.TestCase):
    """No server at all: the gate cannot be asked."""

    def setUp(self) -> None:
        self.spool_dir = tempfile.mkdtemp(prefix="trailproof-sdk-spool-")
        self.addCleanup(shutil.rmtree, self.spool_dir, True)
        self.errors: List[Any] = []

    def agent(self, name: str) -> str:
        return "%s-%s" % (name, os.urandom(4).hex())

    def client(self, agent: str, url: str) -> Any:
        c = trailproof.Client(url, agent_id=agent, spool_dir=self.spool_dir, on_error=self.errors.append,
                              close_timeout=0.5)
        self.addCleanup(c.close, 0.5)
        return c

    def test_unreachable_fail_closed_refuses(self) -> None:
        c = self.client(self.agent("down-closed"), "http://127.0.0.1:%d" % free_port())
        ran = []

        @c.audited(gate=True, name="read_file")
        def read_file(path: str) -> str:
            ran.append(path)
            return "contents"

        with self.assertRaises(Unavailable):
            read_file("/etc/hosts")
        with self.assertRaises(Unavailable):
            c.decide("read_file", {"path": "/etc/hosts"})
        self.assertEqual([], ran)

    def test_unreachable_fail_open_runs_and_the_spooled_record_says_so(self) -> None:
        url = "http://127.0.0.1:%d" % free_port()
        c = self.client(self.agent("down-open"), url)

        @c.audited(gate=True, name="read_file", fail_mode="open")
        def read_file(path: str) -> str:
            return "contents"

        self.assertEqual("contents", read_file("/etc/hosts"))
        c.close()
        spooled = []
        for path in Spool(self.spool_dir, url).pending():
            with open(path, "rb") as fh:
                spooled.extend(json.loads(fh.read().decode("utf-8")))
        self.assertEqual(1, len(spooled), spooled)
        self.assertEqual({"gate": "unavailable"}, spooled[0]["metadata"])
        self.assertNotIn("decision_id", spooled[0])

