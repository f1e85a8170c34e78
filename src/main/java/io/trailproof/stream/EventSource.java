package io.trailproof.stream;

import io.trailproof.ledger.Ledger;

import java.io.IOException;

/** The readable events the stream serves: the ledger's, behind the three calls the dispatcher makes. */
interface EventSource {

    /** Readable (durable) events; never decreases. */
    long size();

    /** Visits the events {@code [from, to)} in log order; {@code to <= size()}. */
    void scan(long from, long to, Visitor visitor) throws IOException;

    /** Runs {@code listener} (quick, non-blocking) whenever {@link #size()} may have grown. */
    void onSizeAdvanced(Runnable listener);

    @FunctionalInterface
    interface Visitor {
        void accept(long logIndex, byte[] payload);
    }

    static EventSource of(Ledger ledger) {
        return new EventSource() {
            @Override
            public long size() {
                return ledger.size();
            }

            @Override
            public void scan(long from, long to, Visitor visitor) throws IOException {
                ledger.scan(from, to, visitor::accept);
            }

            @Override
            public void onSizeAdvanced(Runnable listener) {
                ledger.onSizeAdvanced(listener);
            }
        };
    }
}
