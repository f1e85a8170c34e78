"""The SDK's RFC 8785 canonicalizer against the known-answer vectors and the server's own hashes."""

import json
import random
import unittest
import urllib.request

from trailproof._jcs import _number, canonicalize, event_hash, parse_strict

from .support import VECTORS, ServerTest


class VectorTest(unittest.TestCase):
    def test_event_hash_vectors(self) -> None:
        with open(VECTORS, encoding="utf-8") as f:
            vectors = json.load(f)["vectors"]
        self.assertGreater(len(vectors), 0)
        for v in vectors:
            with self.subTest(v["description"]):
                event = parse_strict(v["input_json"].encode("utf-8"))
                body = {k: x for k, x in event.items() if k not in ("hash", "log_index")}
                self.assertEqual(v["canonical"], canonicalize(body).decode("utf-8"))
                self.assertEqual(v["sha256"], event_hash(event))

    def test_numbers_as_ecmascript_writes_them(self) -> None:
        cases = {1.0: "1", 4.5: "4.5", 1e21: "1e+21", 1e20: "100000000000000000000", 1e-7: "1e-7",
                 1e-6: "0.000001", -0.0: "0", 5e-324: "5e-324", 0.1: "0.1",
                 1.7976931348623157e308: "1.7976931348623157e+308", 123e-20: "1.23e-18",
                 9007199254740992.0: "9007199254740992", -1.5e-9: "-1.5e-9", 333333333.3333333: "333333333.3333333"}
        for value, text in cases.items():
            self.assertEqual(text, _number(value), value)

    def test_keys_sort_by_utf16_code_units(self) -> None:
        # U+1F600 is D83D DE00 in UTF-16, so it sorts before U+FB01 although its code point is larger
        self.assertEqual('{"\U0001f600":1,"\ufb01":2}'.encode("utf-8"), canonicalize({"\ufb01": 2, "\U0001f600": 1}))

    def test_duplicate_names_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            parse_strict(b'{"a":1,"a":2}')


def _random_value(rnd: random.Random, depth: int) -> object:
    kind = rnd.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rnd.choice([True, False, None])
    if kind == 1:
        return rnd.randint(-2 ** 53, 2 ** 53)
    if kind == 2:
        return rnd.choice([rnd.uniform(-1e6, 1e6), rnd.random() * 10 ** rnd.randint(-30, 30), 1e21, 1e-7, 0.1])
    if kind in (3, 4):
        alphabet = "aZ09 \"\\/\n\t\x01\x1f\x7f\u00e9\u2028\u20ac\ud7ff\ue000\ufb01\U0001f600\U00010000"
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(12)))
    if kind == 5:
        return [_random_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {_random_value(rnd, 3) if False else "k" + str(_random_value(rnd, 9))[:6]: _random_value(rnd, depth + 1)
            for _ in range(rnd.randrange(4))}


class ServerHashTest(ServerTest):
    def test_hashes_of_random_events_match_the_servers(self) -> None:
        rnd = random.Random(8785)
        agent = self.agent("jcs")
        events = []
        for i in range(300):
            e = {"agent_id": agent, "action_type": "T", "action_input": {"v": _random_value(rnd, 0), "i": i},
                 "metadata": {"m": _random_value(rnd, 1)}}
            if rnd.random() < 0.3:
                e["action_output"] = {"o": _random_value(rnd, 0)}
            events.append(e)
        body = json.dumps(events, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(self.server.url + "/v1/batch", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
        results = parse_strict(raw)
        self.assertEqual(300, len(results))
        for res in results:
            self.assertIn("event", res, res)
            self.assertEqual(res["event"]["hash"], event_hash(res["event"]))
        # and the same events as GET returns them, byte for byte what the hash covers
        for res in results[:20]:
            stored = parse_strict(self.server.get_bytes("/v1/events/" + res["event"]["id"]))
            self.assertEqual(res["event"]["hash"], event_hash(stored))


if __name__ == "__main__":
    unittest.main()
