package io.trailproof.index;

import io.trailproof.ledger.Ledger;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/** Feeds events from the log into an index, in log order, reading sequentially. */
final class LogReader {

    /** Events read and added per step; the index's owner may commit or stop between steps. */
    static final int BATCH = 2_000;

    private LogReader() {
    }

    /**
     * Adds the log's events {@code [index.size(), to)} to {@code index}. Calls {@code progress} with
     * the new size after every batch and stops early (returning false) once {@code stop} says so.
     */
    static boolean copy(Ledger ledger, EventIndex index, long to, LongConsumer progress, BooleanSupplier stop)
            throws IOException {
        while (index.size() < to) {
            if (stop.getAsBoolean()) {
                return false;
            }
            long from = index.size();
            long end = Math.min(to, from + BATCH);
            List<byte[]> batch = new ArrayList<>((int) (end - from));
            ledger.scan(from, end, (logIndex, payload) -> batch.add(payload));
            index.addPayloads(batch);
            progress.accept(index.size());
        }
        return true;
    }
}
