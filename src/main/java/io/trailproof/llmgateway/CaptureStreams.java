package io.trailproof.llmgateway;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One capture stream per agent the gateway serves (src/site/llm-gateway.md#capture-sequence): its
 * {@code capture_id} and the next {@code capture_seq}. At most {@link #MAX_AGENTS} streams are kept:
 * past that the one unused longest is forgotten (it leaves no hole: its numbers simply stop) and that
 * agent's next call starts a new stream, so a caller naming ever new agents cannot make the gateway's
 * memory grow.
 */
final class CaptureStreams {

    static final int MAX_AGENTS = 10_000;

    /** One agent's stream; numbers are taken under its lock, in the order events are created. */
    static final class Stream {
        final String agentId;
        final String captureId;
        private long last;
        private Instant lastAt = Instant.MIN;

        private Stream(String agentId, String captureId) {
            this.agentId = agentId;
            this.captureId = captureId;
        }

        /** The next {@code capture_seq}; the caller holds this stream's lock. */
        long next() {
            return ++last;
        }

        long last() {
            return last;
        }

        /**
         * The time of the event numbered now: {@code at}, or the time of the stream's previous event
         * when {@code at} is earlier (a call's end measured before the next call arrived but numbered
         * after it), so that a stream's times never go back as its numbers go up. The caller holds
         * this stream's lock.
         */
        Instant notBefore(Instant at) {
            if (at.isAfter(lastAt)) {
                lastAt = at;
            }
            return lastAt;
        }
    }

    private final Supplier<String> ids;
    private final Map<String, Stream> streams = new LinkedHashMap<>(16, 0.75f, true);

    /** @param ids makes each new stream's unique {@code capture_id} */
    CaptureStreams(Supplier<String> ids) {
        this.ids = ids;
    }

    synchronized Stream of(String agentId) {
        Stream s = streams.get(agentId);
        if (s == null) {
            s = new Stream(agentId, ids.get());
            streams.put(agentId, s);
            if (streams.size() > MAX_AGENTS) {
                streams.remove(streams.keySet().iterator().next());
            }
        }
        return s;
    }

    synchronized List<Stream> all() {
        return List.copyOf(streams.values());
    }
}
