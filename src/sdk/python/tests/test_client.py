"""The client against the real server: batching, ordering, retries, the spool, the queue bound,
refused events, redaction and the capture helpers."""

import asyncio
import json
import os
import shutil
import tempfile
import threading
import time
import unittest

import trailproof
from trailproof import NotSent, QueueFull, RejectedEvent
from trailproof._spool import Spool

from .support import Proxy, Server, ServerTest, free_port


class BatchingTest(ServerTest):
    def test_batches_keep_each_agents_order(self) -> None:
        proxy = Proxy(self.server.port)
        self.addCleanup(proxy.close)
        a, b = self.agent("order-a"), self.agent("order-b")
        ca = self.client(a, proxy.url, batch_size=50, flush_interval=30)
        cb = self.client(b, proxy.url, batch_size=50, flush_interval=30)
        receipts = []
        for i in range(230):
            receipts.append(ca.log("STEP", "a", input={"i": i}))
            if i % 2:
                receipts.append(cb.log("STEP", "b", input={"i": i}))
        self.assertTrue(ca.flush(30) and cb.flush(30))
        for r in receipts:
            self.assertEqual(64, len(r.result(0)["hash"]))
        for agent, n in ((a, 230), (b, 115)):
            stored = self.server.events(agent)
            self.assertEqual(n, len(stored))
            self.assertEqual(sorted(e["action_input"]["i"] for e in stored), [e["action_input"]["i"] for e in stored])
            self.assertEqual(list(range(1, n + 1)), [e["sequence"] for e in stored])
        batches = proxy.batch_requests()
        self.assertEqual(5 + 3, len(batches))  # 230 = 4 x 50 + 30, 115 = 2 x 50 + 15: one request each
        self.assertEqual(len(batches), len({b["key"] for b in batches}))
        self.assertEqual([], self.errors)

    def test_flush_interval_sends_without_flush(self) -> None:
        c = self.client(self.agent("interval"), flush_interval=0.2)
        r = c.log("STEP", "x")
        self.assertEqual(1, r.result(10)["sequence"])

    def test_an_idle_client_sends_its_next_event_within_the_flush_interval(self) -> None:
        # Idle on purpose: the sender has sent everything and waits with nothing queued (the state a
        # quiet agent's client is in most of the time), then one event arrives and nothing follows it.
        c = self.client(self.agent("idle"), flush_interval=0.2)
        self.assertEqual(1, c.log("STEP", "first").result(10)["sequence"])
        time.sleep(1.0)
        self.assertEqual(2, c.log("STEP", "second").result(10)["sequence"])

    def test_a_lost_answer_is_retried_with_the_same_key_and_stored_once(self) -> None:
        proxy = Proxy(self.server.port, drop=1)
        self.addCleanup(proxy.close)
        agent = self.agent("lost-answer")
        c = self.client(agent, proxy.url, batch_size=10)
        receipts = [c.log("STEP", "x", input={"i": i}) for i in range(10)]
        self.assertTrue(c.flush(30))
        self.assertEqual(10, len({r.result(0)["id"] for r in receipts}))
        batches = proxy.batch_requests()
        self.assertGreaterEqual(len(batches), 2)
        self.assertEqual(batches[0]["key"], batches[1]["key"])
        self.assertEqual(batches[0]["body"], batches[1]["body"])
        self.assertIn(b"Idempotent-Replayed: true", proxy.answers[1])
        self.assertEqual(10, len(self.server.events(agent)))


class RestartTest(unittest.TestCase):
    """kill -9 of the server while a client sends, then a restart on the same data directory and port."""

    def test_nothing_lost_nothing_stored_twice(self) -> None:
        server = Server().start()
        self.addCleanup(shutil.rmtree, server.data_dir, True)
        self.addCleanup(server.stop)
        spool = tempfile.mkdtemp(prefix="trailproof-sdk-spool-")
        self.addCleanup(shutil.rmtree, spool, True)
        errors = []
        c = trailproof.Client(server.url, agent_id="restart", spool_dir=spool, batch_size=25, flush_interval=0.05,
                              on_error=errors.append, max_backoff=0.5)
        self.addCleanup(c.close, 2.0)
        n = 1000
        receipts = []

        def produce() -> None:
            for i in range(n):
                receipts.append(c.log("STEP", "x", input={"i": i}))
                if i % 50 == 0:
                    time.sleep(0.01)

        producer = threading.Thread(target=produce)
        producer.start()
        deadline = time.monotonic() + 60
        while sum(1 for r in list(receipts) if r.done()) < 100 and time.monotonic() < deadline:
            time.sleep(0.005)
        server.kill9()
        acknowledged = sum(1 for r in list(receipts) if r.done())
        producer.join()
        server.start()
        self.assertTrue(c.flush(90))
        self.assertLess(acknowledged, n, "the kill came after the last acknowledgement")
        ids = [r.result(0)["id"] for r in receipts]
        self.assertEqual(n, len(set(ids)))
        stored = server.events("restart")
        self.assertEqual(list(range(n)), [e["action_input"]["i"] for e in stored])
        self.assertEqual(list(range(1, n + 1)), [e["sequence"] for e in stored])
        self.assertTrue(server.get("/v1/verify?agent_id=restart")["valid"])
        self.assertTrue(any("unreachable" in e.message or "answered" in e.message for e in errors), errors)


class SpoolTest(ServerTest):
    def test_spooled_batches_are_sent_first_by_the_next_client(self) -> None:
        port = free_port()
        url = "http://127.0.0.1:%d" % port
        agent = self.agent("spool")
        first = self.client(agent, url, batch_size=3, close_timeout=0.3)
        receipts = [first.log("STEP", "before", input={"i": i}) for i in range(7)]
        first.close()
        for r in receipts:
            with self.assertRaises(NotSent) as e:
                r.result(0)
            self.assertTrue(os.path.exists(e.exception.spool_path or ""))
        self.assertEqual(3, len(Spool(self.spool_dir, url).pending()))  # 3 + 3 + 1
        self.assertEqual([], self.server.events(agent))
        proxy = Proxy(self.server.port, port=port)  # trailproof is back at the same address
        self.addCleanup(proxy.close)
        second = self.client(agent, url)
        last = second.log("STEP", "after", input={"i": 7})
        self.assertTrue(second.flush(30))
        self.assertEqual(8, last.result(0)["sequence"])
        stored = self.server.events(agent)
        self.assertEqual(list(range(8)), [e["action_input"]["i"] for e in stored])
        self.assertEqual([], Spool(self.spool_dir, url).pending())

    def test_an_unreadable_spool_file_is_set_aside_with_one_warning_and_the_others_are_sent(self) -> None:
        url = self.server.url
        agent = self.agent("set-aside")
        spool = Spool(self.spool_dir, url)
        spool.write("valid-key-" + os.urandom(8).hex(),
                    json.dumps([{"agent_id": agent, "action_type": "STEP", "action_input": {"i": 0}}]).encode())
        bad = {
            "%020d-1-truncated.batch" % 1: b'[{"agent_id": "x", "action_ty',
            "%020d-1-newer.batch" % 2: b'{"format": 2, "batches": [[{"agent_id": "x"}]]}',
            "%020d-1-latin1.batch" % 3: b'[{"agent_id": "caf\xe9"}]',
            "%020d-1-nan.batch" % 4: b'[{"agent_id": "x", "duration_ms": NaN}]',
            "not-a-batch-name.batch": b'[{"agent_id": "x", "action_type": "STEP"}]',
        }
        for name, body in bad.items():
            with open(os.path.join(spool.dir, name), "wb") as f:
                f.write(body)
        # The unreadable files come first (oldest first): the readable one behind them is still sent.
        first = self.client(agent)
        self.assertEqual(2, first.log("STEP", "after", input={"i": 1}).result(30)["sequence"])
        self.assertEqual([0, 1], [e["action_input"]["i"] for e in self.server.events(agent)])
        self.assertEqual([], spool.pending())
        for name, body in bad.items():
            aside = os.path.join(spool.dir, name + ".unreadable")
            with open(aside, "rb") as f:
                self.assertEqual(body, f.read())  # kept as it was, for a person to inspect
            self.assertEqual(1, sum(1 for e in self.errors if aside in str(e)), (name, self.errors))
        self.assertEqual(len(bad), len(self.errors), self.errors)
        # The next client neither reads nor reports a set-aside file again.
        second = self.client(agent)
        self.assertEqual(3, second.log("STEP", "again", input={"i": 2}).result(30)["sequence"])
        self.assertEqual(len(bad), len(self.errors), self.errors)

    def test_a_full_queue_blocks_then_raises(self) -> None:
        url = "http://127.0.0.1:%d" % free_port()
        c = self.client(self.agent("full"), url, max_queue=5, batch_size=100, flush_interval=60,
                        block_timeout=0.3, close_timeout=0.2)
        for i in range(5):
            c.log("STEP", "x", input={"i": i})
        start = time.monotonic()
        with self.assertRaises(QueueFull):
            c.log("STEP", "x", input={"i": 5})
        self.assertGreaterEqual(time.monotonic() - start, 0.29)
        c.close()
        spooled = Spool(self.spool_dir, url).pending()
        self.assertEqual(1, len(spooled))
        with open(spooled[0], "rb") as f:
            events = json.loads(f.read())
        self.assertEqual(list(range(5)), [e["action_input"]["i"] for e in events if e["action_type"] == "STEP"])
        # The event the full queue refused had its number: the stream's end says it was lost.
        self.assertEqual([1, 2, 3, 4, 5, 7], [e["capture_seq"] for e in events])
        self.assertEqual(("CAPTURE_END", True, [6, 6]),
                         (events[-1]["action_type"], events[-1]["capture_last"], events[-1]["capture_dropped"]))

    def test_a_freed_place_unblocks_the_caller(self) -> None:
        c = self.client(self.agent("unblock"), max_queue=2, batch_size=1, block_timeout=30)
        receipts = [c.log("STEP", "x", input={"i": i}) for i in range(20)]
        self.assertTrue(c.flush(30))
        self.assertEqual(list(range(1, 21)), [r.result(0)["sequence"] for r in receipts])


class RejectionTest(ServerTest):
    def test_a_refused_item_is_reported_and_the_others_stored(self) -> None:
        agent = self.agent("refused")
        c = self.client(agent)
        ok1 = c.log("STEP", "a")
        bad = c.log("STEP", "b", labels={"no spaces": "x"})
        ok2 = c.log("STEP", "c")
        self.assertTrue(c.flush(30))
        with self.assertRaises(RejectedEvent) as e:
            bad.result(0)
        self.assertIn("labels key 'no spaces'", e.exception.message)
        self.assertEqual("b", e.exception.event["action_name"])
        self.assertEqual([e.exception], self.errors)
        self.assertEqual([1, 2], [ok1.result(0)["sequence"], ok2.result(0)["sequence"]])

    def test_before_send_redacts_and_fails_safe(self) -> None:
        agent = self.agent("redact")

        def redact(event):
            if event["action_name"] == "boom":
                raise RuntimeError("redactor broke")
            event["action_input"] = {"q": "***"}
            return event

        c = self.client(agent, before_send=redact)
        c.log("STEP", "fine", input={"q": "secret"})
        c.log("STEP", "boom", input={"q": "secret"}, output={"a": "secret"}, error="secret")
        self.assertTrue(c.flush(30))
        stored = self.server.events(agent)
        self.assertEqual({"q": "***"}, stored[0]["action_input"])
        self.assertEqual({"redaction_failed": True}, stored[1]["action_input"])
        self.assertEqual({"redaction_failed": True}, stored[1]["action_output"])
        self.assertNotIn("error_message", stored[1])
        self.assertNotIn("secret", json.dumps(stored))
        self.assertEqual(1, len(self.errors))
        self.assertIn("before_send failed", self.errors[0].message)

    def test_disabled_client_does_nothing(self) -> None:
        os.environ["TRAILPROOF_ENABLED"] = "false"
        try:
            c = trailproof.Client("http://127.0.0.1:1", agent_id="off")
        finally:
            del os.environ["TRAILPROOF_ENABLED"]
        self.assertIsNone(c.log("STEP", "x").result(0))
        self.assertTrue(c.flush(0))
        c.close()

    def test_environment_supplies_the_settings(self) -> None:
        agent = self.agent("env")
        saved = dict(os.environ)
        os.environ.update({"TRAILPROOF_URL": self.server.url, "TRAILPROOF_AGENT_ID": agent,
                           "TRAILPROOF_SPOOL_DIR": self.spool_dir})
        try:
            c = trailproof.Client()
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.addCleanup(c.close)
        self.assertEqual(agent, c.agent_id)
        self.assertEqual(1, c.log("STEP", "x").result(10)["sequence"])


class CaptureTest(ServerTest):
    def test_decorator_sync_async_and_raising(self) -> None:
        agent = self.agent("decorated")
        c = self.client(agent)

        @c.audited
        def add(a, b=2):
            return a + b

        @c.audited(action_type="LLM_CALL", name="ask")
        async def ask(question):
            await asyncio.sleep(0)
            return {"answer": question.upper()}

        @c.audited
        def fail(x):
            raise ValueError("bad x %s" % x)

        self.assertEqual(3, add(1))
        self.assertEqual({"answer": "HI"}, asyncio.run(ask("hi")))
        with self.assertRaises(ValueError) as e:
            fail(7)
        self.assertEqual("bad x 7", str(e.exception))
        with c.action("TOOL_CALL", "block", input={"k": 1}) as a:
            a.output = {"done": True}
        with self.assertRaises(KeyError):
            with c.action("TOOL_CALL", "broken"):
                raise KeyError("k")
        self.assertTrue(c.flush(30))
        ev = self.server.events(agent)
        self.assertEqual(["TOOL_CALL", "LLM_CALL", "TOOL_CALL", "TOOL_CALL", "TOOL_CALL"], [e["action_type"] for e in ev])
        self.assertTrue(ev[0]["action_name"].endswith("add"))
        self.assertEqual({"a": 1, "b": 2}, ev[0]["action_input"])
        self.assertEqual({"value": 3}, ev[0]["action_output"])
        self.assertEqual("success", ev[0]["action_status"])
        self.assertIn("duration_ms", ev[0])
        self.assertEqual(("ask", {"question": "hi"}, {"answer": "HI"}),
                         (ev[1]["action_name"], ev[1]["action_input"], ev[1]["action_output"]))
        self.assertEqual(("error", "ValueError: bad x 7", {"x": 7}),
                         (ev[2]["action_status"], ev[2]["error_message"], ev[2]["action_input"]))
        self.assertEqual(("block", {"k": 1}, {"done": True}, "success"),
                         (ev[3]["action_name"], ev[3]["action_input"], ev[3]["action_output"], ev[3]["action_status"]))
        self.assertEqual(("error", "KeyError: 'k'"), (ev[4]["action_status"], ev[4]["error_message"]))


if __name__ == "__main__":
    unittest.main()


class CaptureSequenceTest(ServerTest):
    """Capture sequences (src/site/completeness.md#capture-sequences)."""

    def gaps(self, agent: str) -> list:
        return [e for e in self.server.events(agent) if e["action_type"] == "GAP"]

    def test_each_client_numbers_its_events_and_close_marks_the_last(self) -> None:
        agent = self.agent("seq")
        c = self.client(agent, flush_interval=60)
        receipts = [c.log("STEP", "x", input={"i": i}) for i in range(3)]
        c.close()
        ev = self.server.events(agent)
        self.assertEqual([1, 2, 3], [e["capture_seq"] for e in ev])
        self.assertEqual({c.capture_id}, {e["capture_id"] for e in ev})
        self.assertTrue(c.capture_id.startswith("py-"))
        self.assertEqual([False, False, True], [e.get("capture_last", False) for e in ev])
        self.assertEqual(3, len(receipts))
        other = self.client(agent)
        self.assertNotEqual(c.capture_id, other.capture_id)

    def test_close_sends_capture_end_when_nothing_is_left(self) -> None:
        agent = self.agent("end")
        c = self.client(agent)
        c.log("STEP", "x")
        self.assertTrue(c.flush(30))
        c.close()
        ev = self.server.events(agent)
        self.assertEqual(["STEP", "CAPTURE_END"], [e["action_type"] for e in ev])
        self.assertEqual([1, 2], [e["capture_seq"] for e in ev])
        self.assertTrue(ev[1]["capture_last"])
        self.assertEqual([], self.gaps(agent))

    def test_a_lost_event_is_reported_and_recorded_as_a_gap(self) -> None:
        agent = self.agent("lost")
        c = self.client(agent, max_queue=1, batch_size=1, flush_interval=60, block_timeout=0.05)
        lost = 0
        for i in range(40):
            try:
                c.log("STEP", "x", input={"i": i})
            except QueueFull:
                lost += 1
        c.close(30)
        if lost == 0:
            self.skipTest("the sender kept up with the caller: no event was lost")
        deadline = time.monotonic() + 30
        while not self.gaps(agent) and time.monotonic() < deadline:
            time.sleep(0.2)
        gaps = self.gaps(agent)
        self.assertTrue(gaps, "no GAP for the events the full queue refused")
        self.assertEqual(c.capture_id, gaps[0]["action_output"]["capture_id"])

    def test_the_sdk_verifies_an_event_with_capture_fields_as_the_service_hashed_it(self) -> None:
        agent = self.agent("verify")
        c = self.client(agent)
        r = c.log("STEP", "x", input={"k": "v"})
        self.assertTrue(c.flush(30))
        v = c.verify(r, timeout=30)
        self.assertEqual([], v.problems)
        self.assertTrue(v.ok)
        self.assertEqual(1, r.event["capture_seq"])

