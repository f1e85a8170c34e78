"""C2SP signed notes and tlog checkpoints, as the service publishes them (src/site/checkpoints.md).

A note is UTF-8 text without control characters other than newline: the signed text (ending in a
newline), a blank line, then signature lines ``— <key name> <base64(4-byte key id || signature)>``.
A checkpoint's text is its origin, its tree size in decimal and its root in base64, one a line.
Base64 must be canonical (it re-encodes to the same text), so one changed byte always changes a value.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from typing import List, NamedTuple, Optional, Tuple

__all__ = ["NoteError", "Checkpoint", "TlogProof", "VerifierKey", "parse_note", "parse_checkpoint",
           "parse_tlog_proof", "parse_vkey", "decode_b64", "ed25519_available", "verify_ed25519"]

_DASH = "\u2014 "
_DECIMAL = re.compile(r"(0|[1-9][0-9]{0,18})\Z")
_TYPE_ED25519 = 0x01


class NoteError(ValueError):
    """Malformed note, checkpoint, proof or key text."""


def decode_b64(text: str) -> Optional[bytes]:
    """Standard padded base64 that re-encodes to the same text, or None."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None
    return raw if base64.b64encode(raw).decode("ascii") == text else None


def _decimal(text: str) -> Optional[int]:
    return int(text) if _DECIMAL.match(text) else None


class Signature(NamedTuple):
    name: str
    key_id: bytes
    signature: bytes


class Note(NamedTuple):
    text: str
    signatures: List[Signature]


def _valid_name(name: str) -> bool:
    return bool(name) and not any(c == "+" or c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in name)


def parse_note(data: bytes) -> Note:
    """Parses a signed note without checking signatures."""
    try:
        s = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NoteError("the checkpoint is not valid UTF-8") from None
    for i, c in enumerate(s):
        if ord(c) < 0x20 and c != "\n":
            raise NoteError("the checkpoint has a control character at offset %d" % i)
    split = s.rfind("\n\n")
    if split < 0:
        raise NoteError("the checkpoint has no blank line before its signatures")
    text, rest = s[: split + 1], s[split + 2:]
    if not rest or not rest.endswith("\n"):
        raise NoteError("the checkpoint's signature lines must follow the blank line and end in a newline")
    sigs = []
    for line in rest[:-1].split("\n"):
        if not line.startswith(_DASH):
            raise NoteError("a signature line must start with an em dash and a space: %r" % line)
        name, sp, b64 = line[len(_DASH):].partition(" ")
        raw = decode_b64(b64) if sp else None
        if not _valid_name(name) or raw is None or len(raw) <= 4:
            raise NoteError("bad key name or signature in %r" % line)
        sigs.append(Signature(name, raw[:4], raw[4:]))
    return Note(text, sigs)


class Checkpoint(NamedTuple):
    origin: str
    size: int
    root: bytes
    note: Note
    raw: bytes


def parse_checkpoint(data: bytes) -> Checkpoint:
    """Parses a signed checkpoint (tlog-checkpoint v1) without checking signatures."""
    note = parse_note(data)
    lines = note.text[:-1].split("\n")
    if len(lines) < 3 or not lines[0]:
        raise NoteError("a checkpoint's text is its origin, tree size and root hash, one a line")
    size = _decimal(lines[1])
    root = decode_b64(lines[2])
    if size is None:
        raise NoteError("the checkpoint's tree size %r is not a decimal number" % lines[1])
    if root is None or len(root) != 32:
        raise NoteError("the checkpoint's root %r is not base64 of 32 bytes" % lines[2])
    if any(not line for line in lines[3:]):
        raise NoteError("a checkpoint's extension lines may not be empty")
    return Checkpoint(lines[0], size, root, note, bytes(data))


class TlogProof(NamedTuple):
    extra: Optional[bytes]
    index: int
    path: List[bytes]
    checkpoint: bytes


def parse_tlog_proof(data: bytes) -> TlogProof:
    """Parses a ``c2sp.org/tlog-proof@v1`` file (the checkpoint is left as bytes)."""
    header = b"c2sp.org/tlog-proof@v1\n"
    if not data.startswith(header):
        raise NoteError("the proof does not start with the line c2sp.org/tlog-proof@v1")
    try:
        head, sep, checkpoint = data[len(header):].partition(b"\n\n")
        lines = head.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise NoteError("the proof's header lines are not ASCII") from None
    if not sep:
        raise NoteError("the proof has no blank line before its checkpoint")
    extra = None
    if lines and lines[0].startswith("extra "):
        extra = decode_b64(lines.pop(0)[6:])
        if extra is None:
            raise NoteError("the proof's extra line is not canonical base64")
    if not lines or not lines[0].startswith("index "):
        raise NoteError("the proof has no index line")
    index = _decimal(lines.pop(0)[6:])
    if index is None:
        raise NoteError("the proof's index is not a decimal number")
    path = []
    for line in lines:
        h = decode_b64(line)
        if h is None or len(h) != 32 or len(path) == 63:
            raise NoteError("each proof line must be base64 of one 32-byte hash: %r" % line)
        path.append(h)
    return TlogProof(extra, index, path, checkpoint)


class VerifierKey(NamedTuple):
    name: str
    key_id: bytes
    public_key: bytes
    text: str


def parse_vkey(text: str) -> VerifierKey:
    """Parses a note verifier key ``<name>+<8 hex key id>+<base64(0x01 || 32-byte Ed25519 key)>``."""
    parts = text.strip().split("+", 2)  # base64 may itself hold '+'; the name may not
    if len(parts) != 3 or not _valid_name(parts[0]) or not re.match(r"[0-9a-f]{8}\Z", parts[1]):
        raise NoteError("a log key has the form <name>+<8 hex key id>+<base64 key>, not %r" % text)
    raw = decode_b64(parts[2])
    if raw is None or len(raw) != 33 or raw[0] != _TYPE_ED25519:
        raise NoteError("the log key is not an Ed25519 note key: %r" % text)
    key_id = hashlib.sha256(parts[0].encode("utf-8") + b"\n" + raw).digest()[:4]
    if key_id.hex() != parts[1]:
        raise NoteError("the log key's id %s does not match its name and public key" % parts[1])
    return VerifierKey(parts[0], key_id, raw[1:], text.strip())


def ed25519_available() -> bool:
    """True when the optional ``cryptography`` package (extra ``trailproof[verify]``) is importable."""
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: F401
    except Exception:
        return False
    return True


def verify_ed25519(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Ed25519 verification with ``cryptography``; raises ImportError when it is not installed."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False


def find_signature(note: Note, key: VerifierKey) -> Tuple[Optional[Signature], int]:
    """The note's signature by ``key`` (same name and key id), and the number of such lines."""
    matches = [s for s in note.signatures if s.name == key.name and s.key_id == key.key_id]
    return (matches[0] if matches else None), len(matches)
