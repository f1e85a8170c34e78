package io.trailproof.otlp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.trailproof.core.event.EventRejection;
import io.trailproof.core.event.EventValidator;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.KeyedAnswer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Stores the spans of one OTLP export (src/site/ingestion.md#otlp): each span is mapped ({@link SpanMapping}) and
 * checked by the same event rules as {@code POST /v1/batch} (src/site/events.md#accepted-fields); a span that fails is
 * refused alone. The rest are stored as one group, durable when {@link #ingest} returns, the spans
 * of each agent chained in start-time order (ties in the order sent: the sort is stable).
 *
 * <p><b>Dedupe.</b> A span is named by (trace id, span id): a {@link DedupeKey} in the
 * {@link DedupeRecord#OTLP_SPAN} namespace over the two ids in hex, not scoped to the caller's API
 * key (a span is the same span whoever resends it, and trace ids are random). Each stored span gets
 * its own {@link DedupeRecord} side frame in the group of its event (the answer: the event's log
 * index, 8 bytes), so the mark and the event are committed, and lost, together, and the durable
 * table rebuilds the marks at start like any other record. A span already marked within
 * {@code idempotency.retention}, or repeated within the request, is not stored again and counts as
 * accepted. Every span carries the same content digest (zeros): a resent span with other content
 * is still the span already stored, first one wins.
 *
 * <p>A span that another request is storing at this moment (its key is claimed) cannot be called
 * stored or not yet: the whole request is refused with {@link SpansInFlight} (a 503 the exporter
 * retries), after every claim this request took is released, so nothing is stored.
 */
public final class TraceIngest {

    /** The outcome of an export: how many spans were refused, and the reason of the first one sent. */
    public record Result(int spans, int rejected, String firstError) {
    }

    /** Some span of the request is being stored by a concurrent request; nothing was stored. */
    public static final class SpansInFlight extends Exception {
        private static final long serialVersionUID = 1L;

        SpansInFlight(String message) {
            super(message, null, false, false);
        }
    }

    /** A span that passed mapping and the event rules, with its place in the request. */
    private record Candidate(int order, ObjectNode fields, DedupeKey key, long startNanos, String name) {
    }

    private static final byte[] SAME_CONTENT = new byte[32];
    private static final HexFormat HEX = HexFormat.of();

    /**
     * The record of a stored span: its event's log index; nothing for a span whose event was refused.
     * Cluster mode records the same on every replica.
     */
    public static final KeyedAnswer.AnswerBuilder SPAN_MARK = outcomes -> outcomes.get(0).ok()
            ? ByteBuffer.allocate(8).putLong(outcomes.get(0).event().logIndex()).array() : null;

    private final Ledger ledger;

    public TraceIngest(Ledger ledger) {
        this.ledger = ledger;
    }

    /** The number of spans in a request (its weight before it is mapped). */
    public static int spanCount(ExportTraceServiceRequest request) {
        int n = 0;
        for (ResourceSpans rs : request.getResourceSpansList()) {
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                n += ss.getSpansCount();
            }
        }
        return n;
    }

    /**
     * Maps, checks, dedupes and stores the spans of {@code request}; returns once the stored ones
     * are durable.
     *
     * @throws SpansInFlight when a span of it is being stored by another request (nothing stored)
     * @throws io.trailproof.ledger.LedgerUnavailableException when the ledger cannot write (nothing acknowledged)
     */
    public Result ingest(ExportTraceServiceRequest request) throws IOException, SpansInFlight {
        Prepared p = prepare(request);
        store(p.candidates, p.rejections);
        return p.result();
    }

    /**
     * The spans of one export mapped and checked by the event rules, in the order they are stored
     * (start time, ties as sent), each with its mark; nothing stored or claimed. Cluster mode
     * produces these to the topic, where every replica dedupes them by their marks.
     */
    public static final class Prepared {
        private final List<Candidate> candidates;
        private final Rejections rejections;
        private final int spans;

        private Prepared(List<Candidate> candidates, Rejections rejections, int spans) {
            this.candidates = candidates;
            this.rejections = rejections;
            this.spans = spans;
        }

        /** The events to store, distinct by mark. */
        public List<ObjectNode> events() {
            return candidates.stream().map(Candidate::fields).toList();
        }

        /** Per event, its span's mark ({@link DedupeRecord#OTLP_SPAN}). */
        public List<DedupeKey> marks() {
            return candidates.stream().map(Candidate::key).toList();
        }

        /**
         * The export's outcome once {@link #events()} were applied: {@code outcomes} holds per event
         * its outcome, or null for a span already stored (accepted, not stored again). Call once.
         */
        public Result result(List<AppendOutcome> outcomes) {
            if (outcomes.size() != candidates.size()) {
                throw new IllegalArgumentException("one outcome (or null) per event");
            }
            for (int j = 0; j < outcomes.size(); j++) {
                AppendOutcome o = outcomes.get(j);
                if (o != null && !o.ok()) {
                    rejections.add(candidates.get(j).order(), candidates.get(j).name() + ": " + o.error());
                }
            }
            return result();
        }

        private Result result() {
            return new Result(spans, rejections.count, rejections.first);
        }
    }

    /** Maps and checks the spans of {@code request} (see {@link Prepared}); touches no storage. */
    public static Prepared prepare(ExportTraceServiceRequest request) {
        Rejections rejections = new Rejections();
        List<Candidate> candidates = new ArrayList<>();
        Set<DedupeKey> seen = new HashSet<>();
        int order = 0;
        for (ResourceSpans rs : request.getResourceSpansList()) {
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (Span span : ss.getSpansList()) {
                    int at = order++;
                    try {
                        SpanMapping.Mapped m = SpanMapping.map(rs.getResource(), ss.getScope(), span);
                        ObjectNode fields = valid(m.fields());
                        DedupeKey key = DedupeKey.of(DedupeRecord.OTLP_SPAN, m.traceId(), m.spanId());
                        if (seen.add(key)) {
                            candidates.add(new Candidate(at, fields, key, m.startNanos(), describe(span)));
                        }
                    } catch (SpanRejected e) {
                        rejections.add(at, describe(span) + ": " + e.getMessage());
                    }
                }
            }
        }
        candidates.sort(Comparator.comparingLong(Candidate::startNanos));
        return new Prepared(candidates, rejections, order);
    }

    private void store(List<Candidate> candidates, Rejections rejections) throws IOException, SpansInFlight {
        List<DedupeTable.Claim> claims = new ArrayList<>(candidates.size());
        try {
            List<Candidate> fresh = new ArrayList<>(candidates.size());
            List<ObjectNode> events = new ArrayList<>(candidates.size());
            List<KeyedAnswer> recordings = new ArrayList<>(candidates.size());
            for (Candidate c : candidates) {
                switch (ledger.dedupe().claimMark(c.key(), SAME_CONTENT)) {
                    case DedupeTable.Fresh f -> {
                        claims.add(f.claim());
                        fresh.add(c);
                        events.add(c.fields());
                        recordings.add(new KeyedAnswer(f.claim(), SPAN_MARK));
                    }
                    case DedupeTable.Recorded r -> {
                        // stored by an earlier export within retention: accepted, not stored again
                    }
                    case DedupeTable.InFlight i -> throw new SpansInFlight(c.name() + " is being stored by another "
                            + "request at this moment; nothing of this request was stored, retry it");
                    case DedupeTable.Conflict x -> throw new IllegalStateException("span marks all have one content digest");
                    case DedupeTable.Replay x -> throw new IllegalStateException("claimMark reads no record back");
                }
            }
            if (events.isEmpty()) {
                return;
            }
            List<AppendOutcome> outcomes = ledger.appendEach(events, recordings);
            for (int j = 0; j < outcomes.size(); j++) {
                if (!outcomes.get(j).ok()) {
                    rejections.add(fresh.get(j).order(), fresh.get(j).name() + ": " + outcomes.get(j).error());
                }
            }
        } finally {
            claims.forEach(DedupeTable.Claim::release);   // a no-op for the claims now recorded
        }
    }

    private static ObjectNode valid(ObjectNode fields) throws SpanRejected {
        try {
            return EventValidator.validate(fields);
        } catch (EventRejection e) {
            throw new SpanRejected(e.getMessage());
        }
    }

    /** How a rejection names its span: name and ids as sent (hex, whatever their length). */
    private static String describe(Span span) {
        return "span '" + AnyValues.abbreviate(span.getName()) + "' (trace "
                + AnyValues.abbreviate(HEX.formatHex(span.getTraceId().toByteArray()))
                + ", span " + AnyValues.abbreviate(HEX.formatHex(span.getSpanId().toByteArray())) + ")";
    }

    /** The refused spans: how many, and the reason of the first in request order. */
    private static final class Rejections {
        int count;
        int firstOrder = Integer.MAX_VALUE;
        String first;

        void add(int order, String message) {
            count++;
            if (order < firstOrder) {
                firstOrder = order;
                first = message;
            }
        }
    }
}
