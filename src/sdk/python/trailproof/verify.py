"""Local verification of a stored event (src/site/python-sdk.md#verification): its RFC 8785 hash,
its RFC 9162 inclusion under a signed checkpoint, the checkpoint's Ed25519 signature by the log's
key, and the checkpoint's consistency with the last one this spool directory trusted."""

from __future__ import annotations

import base64
import json
import os
import re
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union
from urllib.parse import quote

from . import _merkle, _note
from ._jcs import event_hash, parse_strict
from ._transport import Transport

if TYPE_CHECKING:
    from .client import Client, Receipt

__all__ = ["Verification", "check_event_proof", "SIGNATURE_NOT_CHECKED"]

SIGNATURE_NOT_CHECKED = ("the checkpoint's signature was not checked: the cryptography package is not installed "
                         "(pip install 'trailproof[verify]')")


class Verification:
    """The outcome of :meth:`trailproof.Client.verify`.

    ``ok`` is True when every check that ran passed; ``problems`` lists, one sentence each, what
    failed (empty when ``ok``). ``signature_checked`` says whether the checkpoint's signature was
    checked; ``notes`` says what was not checked or was trusted without proof (for example a log
    key trusted on first use). ``tree_size`` and ``root`` are the checkpoint's.
    """

    def __init__(self) -> None:
        self.ok = False
        self.signature_checked = False
        self.tree_size: Optional[int] = None
        self.root: Optional[str] = None
        self.origin: Optional[str] = None
        self.event_id: Optional[str] = None
        self.event_hash: Optional[str] = None
        self.erased: Optional[Dict[str, Any]] = None
        self.problems: List[str] = []
        self.notes: List[str] = []

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return "Verification(ok=%r, signature_checked=%r, tree_size=%r, problems=%r, notes=%r)" % (
            self.ok, self.signature_checked, self.tree_size, self.problems, self.notes)

    def _finish(self) -> "Verification":
        self.ok = not self.problems
        return self


def check_event_proof(event_json: bytes, tlog_proof: bytes, log_key: Optional[Union[str, _note.VerifierKey]],
                      expected_id: Optional[str] = None, expected_hash: Optional[str] = None) -> Verification:
    """Checks, offline, an event as ``GET /v1/events/{id}`` returns it against its
    ``c2sp.org/tlog-proof@v1`` (``GET /v1/merkle/proof?format=tlog-proof``) and the log's verifier
    key. Without the key, or without ``cryptography``, the signature is not checked and a note says so.
    """
    v = Verification()
    digest: Optional[str] = None
    log_index: Optional[int] = None
    try:
        event = parse_strict(event_json)
        if not isinstance(event, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        v.problems.append("the event is not valid JSON: %s" % e)
        event = None
    if event is not None:
        v.event_id = event.get("id") if isinstance(event.get("id"), str) else None
        stated = event.get("hash")
        li = event.get("log_index")
        log_index = int(li) if isinstance(li, float) and li.is_integer() and li >= 0 else None
        if log_index is None:
            v.problems.append("the event has no valid log_index")
        erased = event.get("erased")
        if erased is not None:
            # Erased content (src/site/erasure.md): the hash cannot be recomputed; the hash as
            # committed is what the receipt, the proof and the tree are checked against.
            v.erased = erased if isinstance(erased, dict) else {}
            if isinstance(stated, str) and re.fullmatch(r"[0-9a-f]{64}", stated):
                digest = stated
                v.notes.append("the event's content was erased (erasure %s at %s): its hash was not "
                               "recomputed; the hash as committed was checked against the proof and the tree (client.verify also checks the "
                               "erasure event that names it)" % (v.erased.get("erasure_id"), v.erased.get("at")))
            else:
                v.problems.append("the erased event's hash field %r is not a SHA-256 in hex" % (stated,))
        else:
            try:
                digest = event_hash(event)
            except ValueError as e:
                v.problems.append("the event cannot be canonicalized: %s" % e)
        if digest is not None and stated != digest:
            v.problems.append("the event's content hashes to %s, but its hash field says %r" % (digest, stated))
        v.event_hash = digest
        if expected_id is not None and v.event_id != expected_id:
            v.problems.append("the service returned event %r instead of %s" % (v.event_id, expected_id))
        if expected_hash is not None and digest is not None and digest != expected_hash:
            v.problems.append("the event's hash %s is not the %s acknowledged when it was stored" %
                              (digest, expected_hash))
    try:
        proof = _note.parse_tlog_proof(tlog_proof)
    except _note.NoteError as e:
        v.problems.append("the proof is malformed: %s" % e)
        return v._finish()
    try:
        extra = proof.extra.decode("utf-8").split(" ") if proof.extra is not None else []
    except UnicodeDecodeError:
        extra = []
    if len(extra) != 2:
        v.problems.append("the proof's extra line is not '<event id> <event hash>'")
    else:
        if v.event_id is not None and extra[0] != v.event_id:
            v.problems.append("the proof is for event %r, not %s" % (extra[0], v.event_id))
        if digest is not None and extra[1] != digest:
            v.problems.append("the proof is for the event hash %r, not %s" % (extra[1], digest))
    if log_index is not None and proof.index != log_index:
        v.problems.append("the proof is for log index %d, the event's log_index is %d" % (proof.index, log_index))
    try:
        cp = _note.parse_checkpoint(proof.checkpoint)
    except _note.NoteError as e:
        v.problems.append("the checkpoint is malformed: %s" % e)
        return v._finish()
    v.tree_size, v.root, v.origin = cp.size, cp.root.hex(), cp.origin
    if digest is not None:
        root = _merkle.root_from_inclusion(proof.index, cp.size, _merkle.leaf_hash(bytes.fromhex(digest)), proof.path)
        if root is None:
            v.problems.append("the inclusion proof has the wrong shape for index %d in a tree of %d" %
                              (proof.index, cp.size))
        elif root != cp.root:
            v.problems.append("the inclusion proof of index %d does not lead to the checkpoint's root" % proof.index)
    _check_signature(v, cp, log_key)
    return v._finish()


def _check_signature(v: Verification, cp: _note.Checkpoint, log_key: Optional[Union[str, _note.VerifierKey]]) -> None:
    if log_key is None:
        v.notes.append("the checkpoint's signature was not checked: no log key was given")
        return
    try:
        key = _note.parse_vkey(log_key) if isinstance(log_key, str) else log_key
    except _note.NoteError as e:
        v.problems.append(str(e))
        return
    if cp.origin != key.name:
        v.problems.append("the checkpoint's origin %r is not the log key's name %r" % (cp.origin, key.name))
    sig, count = _note.find_signature(cp.note, key)
    if sig is None:
        v.problems.append("the checkpoint carries no signature by the log key %s" % key.name)
        return
    if count > 1:
        v.problems.append("the checkpoint carries %d signatures by the log key" % count)
        return
    if not _note.ed25519_available():
        v.notes.append(SIGNATURE_NOT_CHECKED)
        return
    if _note.verify_ed25519(key.public_key, sig.signature, cp.note.text.encode("utf-8")):
        v.signature_checked = True
    else:
        v.problems.append("the checkpoint's signature by %s does not verify" % key.name)


# ------------------------------------------------------------------ with the service


_STATE = "trusted-checkpoints.json"


def _load_state(path: str) -> Dict[str, Any]:
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except FileNotFoundError:
        return {}


def _save_state(path: str, state: Dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _get(t: Transport, path: str, what: str, timeout: float) -> bytes:
    r = t.request("GET", path, timeout=timeout)
    if r.status != 200:
        raise _Failed("could not fetch %s: %s" % (what, r.error_message()))
    return r.body


class _Failed(Exception):
    pass


def verify_stored(client: "Client", target: Union["Receipt", str], timeout: Optional[float]) -> Verification:
    from .client import Receipt

    expected_hash = None
    if isinstance(target, Receipt):
        try:
            ack = target.result(timeout)
        except Exception as e:
            v = Verification()
            v.problems.append("the event was not stored: %s" % e)
            return v
        if ack is None:
            v = Verification()
            v.problems.append("trailproof is disabled (TRAILPROOF_ENABLED=false): nothing was stored")
            return v
        event_id, expected_hash = ack["id"], ack["hash"]
    else:
        event_id = str(target)
    t = Transport(client.url, client.api_key)
    rt = client.request_timeout
    state_path = os.path.join(client.spool_dir, _STATE)
    try:
        event = _get(t, "/v1/events/" + quote(event_id, safe=""), "the event", rt)
        proof = _get(t, "/v1/merkle/proof?format=tlog-proof&event_id=" + quote(event_id, safe=""),
                     "the event's tlog-proof", rt)
        origin = _origin_of(proof)
        state = _load_state(state_path)
        trusted = state.get(origin, {}) if origin else {}
        notes = []
        key = client.log_key
        if key is None:
            key = trusted.get("vkey")
            if key is None:
                body = json.loads(_get(t, "/v1/checkpoint/key", "the log key", rt).decode("utf-8"))
                key = body.get("vkey")
                notes.append("the log key was not pinned (TRAILPROOF_LOG_KEY): %s was trusted on first use "
                             "and is kept in %s" % (key, state_path))
        v = check_event_proof(event, proof, key, expected_id=event_id, expected_hash=expected_hash)
        v.notes[:0] = notes
        if v.erased is not None:
            _check_erasure_record(t, v, event, key, rt)
        if v.ok and v.tree_size is not None and v.root is not None:
            _check_consistency(t, v, trusted, rt)
        if v.ok and origin:
            entry = dict(trusted)
            if key is not None and "vkey" not in entry and v.signature_checked:
                entry["vkey"] = key if isinstance(key, str) else key.text
            if v.tree_size is not None and v.tree_size >= int(trusted.get("size", 0)):
                entry["size"], entry["root"] = v.tree_size, v.root
            if entry != trusted:
                state = _load_state(state_path)
                if int(state.get(origin, {}).get("size", 0)) <= int(entry.get("size", 0)):
                    state[origin] = entry
                    _save_state(state_path, state)
        return v
    except (_Failed, OSError, ValueError) as e:
        v = Verification()
        v.problems.append(str(e) if isinstance(e, _Failed) else "trailproof could not be asked: %s" % e)
        return v
    finally:
        t.close()


def _check_erasure_record(t: Transport, v: Verification, event_json: bytes,
                          key: Optional[Union[str, _note.VerifierKey]], rt: float) -> None:
    """An erased event is accepted only when the erasure event it names is itself intact (its hash
    recomputes), in the signed tree, of agent ``trailproof.erasures``, and names this event's id at
    its log index, with the same time and fields (src/site/erasure.md#the-erasure-is-on-the-trail)."""
    erased = v.erased or {}
    erasure_id = erased.get("erasure_id")
    if not isinstance(erasure_id, str):
        v.problems.append("the erased event names no erasure")
        v.ok = False
        return
    record = _get(t, "/v1/events/" + quote(erasure_id, safe=""), "the erasure event", rt)
    record_proof = _get(t, "/v1/merkle/proof?format=tlog-proof&event_id=" + quote(erasure_id, safe=""),
                        "the erasure event's tlog-proof", rt)
    rv = check_event_proof(record, record_proof, key, expected_id=erasure_id)
    if not rv.ok or rv.erased is not None:
        v.problems.append("the erasure event %s does not verify: %s" % (
            erasure_id, "; ".join(rv.problems) or "it is itself erased"))
        v.ok = False
        return
    stored = json.loads(event_json.decode("utf-8"))
    rec = json.loads(record.decode("utf-8"))
    inp = rec.get("action_input") if isinstance(rec.get("action_input"), dict) else {}
    ids = inp.get("event_ids") if isinstance(inp.get("event_ids"), list) else []
    indexes: List[int] = []
    for pair in inp.get("log_indexes") or []:
        if isinstance(pair, list) and len(pair) == 2:
            indexes.extend(range(int(pair[0]), int(pair[1]) + 1))
    named = [k for k, i in enumerate(ids) if i == stored.get("id")]
    if (rec.get("agent_id") != "trailproof.erasures" or rec.get("action_type") != "ERASURE"
            or not named or named[0] >= len(indexes) or indexes[named[0]] != stored.get("log_index")):
        v.problems.append("erasure without record: the erasure event %s does not name event %s at log index %s"
                          % (erasure_id, stored.get("id"), stored.get("log_index")))
    elif rec.get("recorded_at") != erased.get("at") or inp.get("fields") != erased.get("fields"):
        v.problems.append("the erased event's time or fields differ from its erasure event %s" % erasure_id)
    else:
        v.notes.append("erasure %s at %s (%s) names this event" % (erasure_id, rec.get("recorded_at"),
                                                                  inp.get("reason")))
    v.ok = not v.problems


def _origin_of(proof: bytes) -> Optional[str]:
    try:
        return _note.parse_checkpoint(_note.parse_tlog_proof(proof).checkpoint).origin
    except _note.NoteError:
        return None


def _check_consistency(t: Transport, v: Verification, trusted: Dict[str, Any], timeout: float) -> None:
    size, root = trusted.get("size"), trusted.get("root")
    if not isinstance(size, int) or not isinstance(root, str) or size <= 0:
        v.notes.append("no earlier checkpoint of this log was trusted here; this one (size %d) now is" % v.tree_size)
        return
    new_size, new_root = int(v.tree_size or 0), bytes.fromhex(v.root or "")
    old_root = bytes.fromhex(root)
    if size == new_size:
        if old_root != new_root:
            v.problems.append("the checkpoint of size %d has another root than the one trusted before: "
                              "the log was rewritten or shows different views" % size)
        v._finish()
        return
    lo, hi = (size, new_size) if size < new_size else (new_size, size)
    lo_root, hi_root = (old_root, new_root) if size < new_size else (new_root, old_root)
    try:
        body = json.loads(_get(t, "/v1/merkle/consistency?from=%d&to=%d" % (lo, hi), "the consistency proof",
                               timeout).decode("utf-8"))
        path = [bytes.fromhex(h) for h in body["proof"]]
    except (_Failed, KeyError, TypeError, ValueError) as e:
        v.problems.append("the consistency with the trusted checkpoint of size %d could not be checked: %s" % (size, e))
        v._finish()
        return
    why = _merkle.check_consistency(lo, hi, lo_root, hi_root, path)
    if why is not None:
        v.problems.append("the checkpoint is not consistent with the one of size %d trusted before (%s)" % (size, why))
    v._finish()
