package io.trailproof.checkpoint;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** What checkpoints, tiles and witnesses need of the ledger's tree; the server wires the ledger in. */
public interface LogTree {
    /** The durable, readable tree size; it never decreases. */
    long size();

    /** The RFC 9162 root at {@code size} (at most {@link #size()}); 0 gives the empty root. */
    byte[] root(long size);

    /** The consistency proof from {@code m} (at least 1) to {@code n}. */
    List<byte[]> consistencyProof(long m, long n);

    /** {@code count} perfect-subtree hashes of {@code level} from {@code from}, concatenated, read from the node store. */
    byte[] nodes(int level, long from, int count);

    /**
     * Completes once {@link #root} and the proofs answer without waiting: after a start the ledger's
     * tree is checked on a thread of its own first (src/site/operations.md#start-up).
     */
    default CompletableFuture<Void> whenReadable() {
        return CompletableFuture.completedFuture(null);
    }

    /** The raw 32-byte event hashes (the leaves) of {@code [from, from + count)}, in order. */
    List<byte[]> leaves(long from, int count) throws IOException;
}
