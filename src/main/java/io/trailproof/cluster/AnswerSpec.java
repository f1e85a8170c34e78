package io.trailproof.cluster;

/**
 * Which answer a keyed write records (src/site/ingestion.md#idempotency), as data the record carries: every replica
 * builds the same dedupe record from it when it applies the write ({@link AnswerBuilders}).
 */
public sealed interface AnswerSpec {

    /** {@code POST /v1/events}. */
    record Single() implements AnswerSpec {
    }

    /**
     * {@code POST /v1/batch}.
     *
     * @param refused per item of the request, its validation error, or null for an item in the record
     */
    record Batch(String[] refused) implements AnswerSpec {
        public Batch {
            refused = refused.clone();
        }

        @Override
        public String[] refused() {
            return refused.clone();
        }
    }

    /**
     * {@code POST /v1/traces}: no idempotency key; each event carries its span's mark
     * ({@link WriteRecord#marks}), and each stored one records its log index under it.
     */
    record Spans() implements AnswerSpec {
    }

    static AnswerSpec single() {
        return new Single();
    }
}
