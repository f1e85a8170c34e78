"""RFC 9162 (Certificate Transparency 2.0) section 2.1 with SHA-256: leaf and node hashes and the
verification of inclusion and consistency proofs (src/site/concepts.md#the-merkle-tree).
"""

from __future__ import annotations

import hashlib
from typing import Optional, Sequence

__all__ = ["leaf_hash", "node_hash", "root_from_inclusion", "check_consistency"]


def leaf_hash(leaf: bytes) -> bytes:
    """SHA-256(0x00 || leaf); the leaf of an event is the 32 raw bytes of its hash."""
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> Optional[bytes]:
    """The root an inclusion proof leads to (RFC 9162 section 2.1.3.2), or None when the proof has
    the wrong shape for ``index`` in a tree of ``size`` leaves. ``leaf`` is the leaf hash."""
    if index < 0 or size <= index:
        return None
    fn, sn = index, size - 1
    r = leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def check_consistency(size1: int, size2: int, root1: bytes, root2: bytes, proof: Sequence[bytes]) -> Optional[str]:
    """Verifies that the tree of ``size1`` leaves with ``root1`` is a prefix of the tree of ``size2``
    leaves with ``root2`` (RFC 9162 section 2.1.4.2). None when it is; otherwise why not."""
    if size1 < 0 or size2 < size1:
        return "the older tree is larger than the newer one"
    if size1 == size2:
        if proof:
            return "a proof between equal sizes must be empty"
        return None if root1 == root2 else "two different roots for the same tree size"
    if size1 == 0:
        return None if not proof else "a proof from the empty tree must be empty"
    path = list(proof)
    if size1 & (size1 - 1) == 0:  # a power of two: the old root is the first node
        path.insert(0, root1)
    if not path:
        return "the consistency proof is empty"
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return "the consistency proof is too long"
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return "the consistency proof is too short"
    if fr != root1:
        return "the consistency proof does not lead to the trusted root"
    if sr != root2:
        return "the consistency proof does not lead to the new root"
    return None
