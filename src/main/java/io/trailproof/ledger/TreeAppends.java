package io.trailproof.ledger;

import java.io.IOException;

/**
 * Where the sequencer appends leaf hashes: the tree store in service, a wrapper in tests that widens
 * the window between the log write and the tree append, or throws where a real one could (an
 * {@link Error} included). Called by the sequencer only, one leaf at a time, in log order.
 * A leaf is visible to readers of the tree on return; durable only after the tree is forced.
 */
@FunctionalInterface
interface TreeAppends {
    void append(byte[] leafHash) throws IOException;
}
