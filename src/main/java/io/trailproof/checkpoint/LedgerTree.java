package io.trailproof.checkpoint;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.ledger.Ledger;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The ledger as a {@link LogTree}: its readable size, stored nodes, and leaves read from the log. */
public final class LedgerTree implements LogTree {
    private final Ledger ledger;

    public LedgerTree(Ledger ledger) {
        this.ledger = ledger;
    }

    @Override
    public long size() {
        return ledger.size();
    }

    @Override
    public byte[] root(long size) {
        return ledger.root(size);
    }

    @Override
    public List<byte[]> consistencyProof(long m, long n) {
        return ledger.consistencyProof(m, n);
    }

    @Override
    public byte[] nodes(int level, long from, int count) {
        return ledger.treeNodes(level, from, count);
    }

    /** Reads the events from the log (one sequential scan) and takes each one's stored hash. */
    @Override
    public List<byte[]> leaves(long from, int count) throws IOException {
        List<byte[]> out = new ArrayList<>(count);
        ledger.scan(from, from + count, (index, payload) -> {
            try {
                out.add(StoredEvent.parse(payload).hashBytes());
            } catch (StoredEventFormatException e) {
                throw new IOException("stored event " + index + " does not parse: " + e.getMessage(), e);
            }
        });
        if (out.size() != count) {
            throw new IOException("read " + out.size() + " of " + count + " events from " + from);
        }
        return out;
    }
}
