package io.trailproof.cluster;

import io.trailproof.ledger.LogRanges;

import java.io.IOException;

/**
 * What the apply loop does after an erasure record rewrote this node's log (wired by the server;
 * this package knows nothing of the search index): removes the erased content from everything
 * derived from the log, then settles the erasure ({@code Ledger.erasureSettled}), so that on return
 * the content is gone from this node's data directory (src/site/erasure.md#physically-gone).
 */
@FunctionalInterface
public interface ReplicatedErasures {

    /** @param erased the log indexes whose content the erasure removed */
    void complete(LogRanges erased) throws IOException;
}
