"""verify(): true for a stored event, false for every one-byte change of the event, its inclusion
proof and its checkpoint, and for a checkpoint inconsistent with the one trusted before."""

import json
import os
import time
import unittest
from unittest import mock

from trailproof import _note
from trailproof.verify import SIGNATURE_NOT_CHECKED, check_event_proof

from .support import ServerTest, has_cryptography


def _changes(data: bytes, start: int, end: int):
    for i in range(start, end):
        for mask in (0x01, 0x20):
            yield i, data[:i] + bytes([data[i] ^ mask]) + data[i + 1:]


class VerifyTest(ServerTest):
    def setUp(self) -> None:
        super().setUp()
        self.c = self.client(self.agent("verify"))
        self.receipt = self.c.log("TOOL_CALL", "search", input={"q": "caf\u00e9 \U0001f600", "n": 1.5},
                                  output={"hits": [1, 2, 3]}, labels={"env": "test"})
        self.assertTrue(self.c.flush(30))
        self.event_id = self.receipt.result(0)["id"]
        self.key = self.server.get("/v1/checkpoint/key")["vkey"]

    def material(self):
        event = self.server.get_bytes("/v1/events/" + self.event_id)
        proof = self.server.get_bytes("/v1/merkle/proof?format=tlog-proof&event_id=" + self.event_id)
        return event, proof

    def test_a_stored_event_verifies(self) -> None:
        v = self.c.verify(self.receipt)
        self.assertTrue(v.ok, v)
        self.assertEqual([], v.problems)
        self.assertEqual(has_cryptography(), v.signature_checked)
        self.assertGreater(v.tree_size, self.receipt.result(0)["log_index"])
        v2 = self.c.verify(self.event_id)  # by id; the trusted checkpoint is now the first one
        self.assertTrue(v2.ok, v2)

    def test_without_cryptography_the_answer_says_the_signature_was_not_checked(self) -> None:
        event, proof = self.material()
        with mock.patch.object(_note, "ed25519_available", return_value=False):
            v = check_event_proof(event, proof, self.key)
        self.assertTrue(v.ok, v)
        self.assertFalse(v.signature_checked)
        self.assertIn(SIGNATURE_NOT_CHECKED, v.notes)

    def test_every_one_byte_change_of_the_event_fails(self) -> None:
        event, proof = self.material()
        self.assertTrue(check_event_proof(event, proof, self.key).ok)
        for i, changed in _changes(event, 0, len(event)):
            v = check_event_proof(changed, proof, self.key)
            self.assertFalse(v.ok, "byte %d of the event changed: %r" % (i, changed))
            self.assertTrue(v.problems)

    def test_every_one_byte_change_of_the_proof_fails(self) -> None:
        event, proof = self.material()
        end = proof.index(b"\n\n") + 2
        for i, changed in _changes(proof, 0, end):
            self.assertFalse(check_event_proof(event, changed, self.key).ok, "byte %d of the proof changed" % i)

    @unittest.skipUnless(has_cryptography(), "needs the cryptography package (trailproof[verify])")
    def test_every_one_byte_change_of_the_checkpoint_fails(self) -> None:
        event, proof = self.material()
        start = proof.index(b"\n\n") + 2
        for i, changed in _changes(proof, start, len(proof)):
            self.assertFalse(check_event_proof(event, changed, self.key).ok, "byte %d of the checkpoint changed" % i)

    @unittest.skipUnless(has_cryptography(), "needs the cryptography package (trailproof[verify])")
    def test_a_key_whose_base64_holds_a_plus_parses(self) -> None:
        key = "localhost/trailproof/b89da969+a5a6f54f+AUM/uZ4Lhg4U4LwiM6M6u82Fm3eRuWGRI/+RqoydpXYy"
        self.assertEqual("localhost/trailproof/b89da969", _note.parse_vkey(key).name)

    def test_another_log_key_fails(self) -> None:
        event, proof = self.material()
        name, kid, b64 = self.key.split("+", 2)
        other = "%s+%s+%s" % (name, kid, b64[:-2] + ("A" if b64[-2] != "A" else "B") + b64[-1])
        v = check_event_proof(event, proof, other)
        self.assertFalse(v.ok)

    def test_a_checkpoint_inconsistent_with_the_trusted_one_fails(self) -> None:
        self.assertTrue(self.c.verify(self.receipt).ok)
        state_path = os.path.join(self.spool_dir, "trusted-checkpoints.json")
        with open(state_path, encoding="utf-8") as f:
            state = json.load(f)
        (origin, entry), = state.items()
        self.assertEqual(self.key, entry["vkey"]) if has_cryptography() else None
        # the log grows, then the trusted root is one the log never had
        later = self.c.log("STEP", "later")
        self.assertTrue(self.c.flush(30))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.c.verify(later).tree_size > entry["size"]:
                break
            time.sleep(0.2)
        with open(state_path, encoding="utf-8") as f:
            state = json.load(f)
        state[origin]["root"] = "00" * 32
        with open(state_path, "w", encoding="utf-8") as f:
            json.dump(state, f)
        self.c.log("STEP", "latest")
        self.assertTrue(self.c.flush(30))
        time.sleep(1.2)  # a newer checkpoint
        v = self.c.verify(later)
        self.assertFalse(v.ok)
        self.assertTrue(any("trusted before" in p for p in v.problems), v.problems)


if __name__ == "__main__":
    unittest.main()


class ErasedEventTest(ServerTest):
    """An erased event cannot be hashed again; verify() checks its committed hash against the receipt,
    the proof and the tree, and accepts it only when an intact erasure event in the tree names it."""

    def setUp(self) -> None:
        super().setUp()
        self.c = self.client(self.agent("erased"))
        self.erased = self.c.log("TOOL_CALL", "lookup", input={"email": "someone@example.com"})
        self.kept = self.c.log("TOOL_CALL", "lookup", input={"email": "other@example.com"})
        self.assertTrue(self.c.flush(30))
        self.erased_id = self.erased.result(0)["id"]
        self.answer = self.server.post("/v1/admin/erasures", {"event_ids": [self.erased_id], "reason": "art. 17 request"})

    def test_an_erased_event_verifies_against_its_receipt_and_names_its_erasure(self) -> None:
        v = self.c.verify(self.erased)
        self.assertTrue(v.ok, v)
        self.assertEqual(self.answer["erasure_id"], v.erased["erasure_id"])
        self.assertTrue(any("was not recomputed" in n for n in v.notes), v.notes)
        self.assertTrue(any("names this event" in n for n in v.notes), v.notes)
        self.assertTrue(self.c.verify(self.kept).ok)

    def test_an_event_made_to_look_erased_by_an_erasure_that_does_not_name_it_fails(self) -> None:
        from trailproof import verify as verify_module
        from trailproof._transport import Transport

        kept_id = self.kept.result(0)["id"]
        forged = json.loads(self.server.get_bytes("/v1/events/" + kept_id).decode("utf-8"))
        erased_form = self.server.get("/v1/events/" + self.erased_id)["erased"]
        forged.pop("action_input", None)
        forged["erased"] = erased_form
        v = verify_module.Verification()
        v.erased = erased_form
        t = Transport(self.server.url, None)
        try:
            verify_module._check_erasure_record(t, v, json.dumps(forged).encode("utf-8"), self.key(), 20)
        finally:
            t.close()
        self.assertFalse(v.ok)
        self.assertTrue(any("erasure without record" in p for p in v.problems), v.problems)

    def key(self) -> str:
        return self.server.get("/v1/checkpoint/key")["vkey"]
