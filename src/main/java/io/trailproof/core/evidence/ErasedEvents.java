package io.trailproof.core.evidence;

import io.trailproof.core.event.StoredEvent;

/**
 * Where the chain check sends each erased event it accepted on its links and sequence
 * (src/site/evidence-format.md#erasures): whether an erasure event of the package names it is
 * judged apart, once every erasure item has been read.
 */
interface ErasedEvents {

    /** An erased event of the chain, in chain order. */
    void claim(StoredEvent event);

    /** How many erased events were sent. */
    long count();
}
