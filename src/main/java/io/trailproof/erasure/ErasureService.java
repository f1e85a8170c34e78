package io.trailproof.erasure;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.index.BadQueryException;
import io.trailproof.index.EventFilter;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.IndexUnavailableException;
import io.trailproof.index.SearchIndex;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventTime;
import io.trailproof.ledger.ErasureOrder;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerErasures;
import io.trailproof.ledger.LogRanges;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Erasure (src/site/erasure.md): finds the events a selector names, records the erasure on the
 * trail and removes the content from the log (the ledger) and from the search index, and only then
 * answers. One erasure at a time.
 */
public final class ErasureService {

    /** Most {@code event_ids} one request may name. */
    public static final int MAX_EVENT_IDS = 10_000;

    private final Ledger ledger;
    private final SearchIndex index;
    /** Null on a single node; the topic in cluster mode. */
    private volatile Replication replication;
    private volatile CatchUp caughtUp;

    /** Share of the time an erasure works while events are being ingested (src/site/erasure.md#pacing). */
    private final double shareWhileIngesting;

    /** An erasure service whose erasures are never paced. */
    public ErasureService(Ledger ledger, SearchIndex index) {
        this(ledger, index, 1);
    }

    /**
     * @param shareWhileIngesting share of the time, in (0, 1], that the log rewrite and the index
     *     purge of this node's erasures take while events are being ingested (erasure.share-while-ingesting);
     *     1 never paces. Erasures applied from the topic in cluster mode are never paced.
     */
    public ErasureService(Ledger ledger, SearchIndex index, double shareWhileIngesting) {
        this.ledger = ledger;
        this.index = index;
        this.shareWhileIngesting = shareWhileIngesting;
        ledger.erasures().shareWhileIngesting(shareWhileIngesting);
    }

    /** Exactly one of: event ids; an agent with optional session and time window; a query with the same filters. */
    public record Selector(List<String> eventIds, String agentId, String sessionId, Instant since, Instant until,
                           String q) {
        ObjectNode toJson() {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            if (eventIds != null) {
                o.put("event_ids", eventIds.size());
            }
            put(o, "agent_id", agentId);
            put(o, "session_id", sessionId);
            put(o, "since", since == null ? null : since.toString());
            put(o, "until", until == null ? null : until.toString());
            put(o, "q", q);
            return o;
        }

        private static void put(ObjectNode o, String k, String v) {
            if (v != null) {
                o.put(k, v);
            }
        }
    }

    /** Some of the {@code event_ids} are not in the trail; nothing was erased. */
    public static final class UnknownEventsException extends Exception {
        public UnknownEventsException(String message) {
            super(message);
        }
    }

    /**
     * The selector leaves nothing to erase: it matches no event whose content can be erased, or only
     * events erased already. Nothing was erased and nothing recorded (src/site/erasure.md#api).
     */
    public static final class NothingToEraseException extends Exception {
        private final long alreadyErased;

        NothingToEraseException(long alreadyErased) {
            super(alreadyErased == 0
                    ? "the selector matches no event whose content can be erased; nothing was erased or recorded"
                    : "every event the selector matches (" + alreadyErased + ") is erased already; nothing was "
                            + "erased or recorded");
            this.alreadyErased = alreadyErased;
        }

        /** How many of the events the selector matches are erased already (0: it matches none). */
        public long alreadyErased() {
            return alreadyErased;
        }
    }

    /** At start: finishes the index's part of an erasure a crash interrupted, then clears its marker. */
    public void completeInterrupted() throws IOException {
        if (ledger.erasures().interrupted() < 0) {
            return;
        }
        long at = ledger.erasures().interrupted();
        StoredEvent e = parse(ledger.payloadAt(at));
        await(index.purge(indexesOf(e), 1));
        ledger.erasures().settled();
    }

    /** {@code {"would_erase", "already_erased"}}: changes nothing. */
    public ObjectNode dryRun(Selector selector) throws IOException, BadQueryException, UnknownEventsException, IndexUnavailableException {
        LedgerErasures.ErasurePlan plan = ledger.erasures().plan(LogRanges.of(resolve(selector)));
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("would_erase", plan.targets().count());
        o.put("already_erased", plan.alreadyErased());
        return o;
    }

    /**
     * Erases; returns {@code {"erasure_id", "erased", "already_erased", "log_index"}} once the content is
     * gone. In cluster mode ({@link #replicateThrough}) the selector is resolved here, to log indexes, and
     * the erasure goes through the topic: the answer comes once this node applied it (every node
     * applies it at the same position).
     *
     * @throws NothingToEraseException when the selector leaves nothing to erase (nothing is recorded)
     */
    public ObjectNode erase(Selector selector, List<String> fields, String reason, String keyName)
            throws IOException, BadQueryException, UnknownEventsException, IndexUnavailableException,
            NothingToEraseException {
        Replication topic = replication;
        LedgerErasures.ErasureOutcome out;
        if (topic != null) {
            caughtUp.await();   // the selector sees every write acknowledged before, by any node
            long[] candidates = resolve(selector);
            if (candidates.length == 0) {
                throw new NothingToEraseException(0);
            }
            out = topic.publish(new ErasureOrder(LogRanges.of(candidates), fields, reason, keyName, selector.toJson(), true));
        } else {
            out = eraseHere(selector, fields, reason, keyName);
        }
        if (out.erasure() == null) {
            throw new NothingToEraseException(out.alreadyErased());
        }
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("erasure_id", out.erasure().id());
        o.put("erased", out.erased().count());
        o.put("already_erased", out.alreadyErased());
        o.put("log_index", out.erasure().logIndex());
        return o;
    }

    private synchronized LedgerErasures.ErasureOutcome eraseHere(Selector selector, List<String> fields, String reason,
                                                                 String keyName)
            throws IOException, BadQueryException, UnknownEventsException, IndexUnavailableException {
        long[] candidates = resolve(selector);
        LedgerErasures.ErasureOutcome out = ledger.erasures().erase(candidates, fields, reason, keyName, selector.toJson());
        if (out.erasure() == null) {
            return out;
        }
        complete(out.erased(), shareWhileIngesting);
        return out;
    }

    /**
     * A retention pass (src/site/erasure.md#retention): erases the content of every event recorded
     * before {@code cutoff} not erased yet (erasure events never), as one erasure event with reason
     * {@code retention} whose selector is {@code {"retention": PERIOD, "recorded_before": CUTOFF}};
     * returns that event's log index and how many events it erased, or empty when there was
     * nothing to erase (then nothing is recorded). In cluster mode the pass goes through the topic as
     * one erasure record (the node running the cluster's scheduled work runs the passes).
     */
    public Optional<LedgerErasures.ErasureOutcome> eraseRecordedBefore(Instant cutoff, String period)
            throws IOException {
        ObjectNode selector = JsonNodeFactory.instance.objectNode();
        selector.put("retention", period);
        selector.put("recorded_before", EventTime.formatRecordedAt(cutoff));
        Replication topic = replication;
        if (topic == null) {
            return eraseRecordedBeforeHere(cutoff, selector);
        }
        caughtUp.await();   // a node chosen a moment ago may still be applying what an earlier pass erased
        LogRanges candidates = ledger.erasures().recordedBefore(cutoff);
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        LedgerErasures.ErasureOutcome out = topic.publish(new ErasureOrder(candidates, EventErasure.ERASABLE,
                RETENTION_REASON, null, selector, false));
        return out.erasure() == null ? Optional.empty() : Optional.of(out);
    }

    private synchronized Optional<LedgerErasures.ErasureOutcome> eraseRecordedBeforeHere(Instant cutoff,
                                                                                       ObjectNode selector)
            throws IOException {
        LedgerErasures.ErasureOutcome out = ledger.erasures().eraseRecordedBefore(cutoff, RETENTION_REASON, selector);
        if (out.erasure() == null) {
            return Optional.empty();
        }
        complete(out.erased(), shareWhileIngesting);
        return Optional.of(out);
    }

    /** Where erasures go in cluster mode: a record of the topic, applied by every node (src/site/erasure.md#cluster-mode). */
    @FunctionalInterface
    public interface Replication {
        /** Produces the erasure and returns once this node applied it (its content gone here). */
        LedgerErasures.ErasureOutcome publish(ErasureOrder order) throws IOException;
    }

    /** Returns once this node applied the topic up to its end as it was when called (cluster mode). */
    @FunctionalInterface
    public interface CatchUp {
        void await() throws IOException;
    }

    /**
     * Cluster mode: erasures and retention passes go through {@code topic} instead of this node's
     * ledger; each first waits for {@code caughtUp}, so that what it resolves to includes every write
     * acknowledged before by any node.
     */
    public void replicateThrough(Replication topic, CatchUp caughtUp) {
        this.caughtUp = caughtUp;
        this.replication = topic;
    }

    /**
     * The part of an erasure above the log, once the log was rewritten: the search index drops the
     * erased content, then the erasure is settled (its pending marker goes). In cluster mode the
     * apply loop calls it for every erasure record.
     */
    public void completeReplicated(LogRanges erased) throws IOException {
        complete(erased, 1);   // the apply loop, and every write after the record, waits for it
    }

    private void complete(LogRanges erased, double share) throws IOException {
        await(index.purge(erased, share));
        ledger.erasures().probe().reached("index-purged");
        ledger.erasures().settled();
        ledger.erasures().probe().reached("erasure-settled");
    }

    /** The reason a retention pass records. */
    public static final String RETENTION_REASON = "retention";

    /** The erasure events, newest first: their payloads as stored. */
    public List<byte[]> list(long offset, int limit) throws IOException {
        long[] positions = ledger.agentPositions(EventFields.ERASURES_AGENT);
        List<byte[]> out = new ArrayList<>();
        for (long i = positions.length - 1 - offset; i >= 0 && out.size() < limit; i--) {
            out.add(ledger.payloadAt(positions[(int) i]));
        }
        return out;
    }

    /** How many erasures were recorded. */
    public long count() {
        return ledger.agentPositions(EventFields.ERASURES_AGENT).length;
    }

    private long[] resolve(Selector s) throws IOException, BadQueryException, UnknownEventsException, IndexUnavailableException {
        if (s.eventIds() != null) {
            long[] out = new long[s.eventIds().size()];
            List<String> unknown = new ArrayList<>();
            for (int i = 0; i < out.length; i++) {
                String id = s.eventIds().get(i);
                Optional<byte[]> p = Ledger.wellFormedId(id) ? ledger.eventPayload(id) : Optional.empty();
                if (p.isEmpty()) {
                    unknown.add(id);
                } else {
                    out[i] = parse(p.get()).logIndex();
                }
            }
            if (!unknown.isEmpty()) {
                throw new UnknownEventsException("no event with id " + String.join(", ", unknown.subList(0,
                        Math.min(5, unknown.size()))) + (unknown.size() > 5 ? " and " + (unknown.size() - 5) + " more" : "")
                        + "; nothing was erased");
            }
            return out;
        }
        if (s.q() == null) {
            List<Long> out = new ArrayList<>();
            long size = ledger.size();
            long[] positions = ledger.agentPositions(s.agentId());
            if (s.sessionId() == null && s.since() == null && s.until() == null) {
                // the agent alone: its positions are the answer, no event needs reading
                int n = 0;
                while (n < positions.length && positions[n] < size) {
                    n++;
                }
                return Arrays.copyOf(positions, n);
            }
            for (long pos : positions) {
                if (pos >= size) {
                    break;
                }
                StoredEvent e = parse(ledger.payloadAt(pos));
                if (s.sessionId() != null && !s.sessionId().equals(e.json().path(EventFields.SESSION_ID).textValue())) {
                    continue;
                }
                Instant t = EventTime.parseTimestamp(e.timestamp());
                if ((s.since() != null && t.isBefore(s.since())) || (s.until() != null && !t.isBefore(s.until()))) {
                    continue;
                }
                out.add(pos);
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        }
        List<Long> out = new ArrayList<>();
        EventFilter filter = new EventFilter(s.agentId(), null, s.since(), s.until(), Map.of());
        String query = s.sessionId() == null ? s.q() : "(" + s.q() + ") AND session_id:\"" + s.sessionId()
                .replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        for (long offset = 0; ; offset += 1000) {
            SearchIndex.Results r = index.find(new IndexRequest(query, filter, IndexRequest.Order.OLDEST_FIRST, offset,
                    1000, null, true));
            r.results().forEach(x -> out.add(x.logIndex()));
            if (r.results().size() < 1000) {
                break;
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** The log indexes an erasure event names, as the ranges it names them by. */
    static LogRanges indexesOf(StoredEvent erasure) {
        LogRanges.Builder out = new LogRanges.Builder();
        for (var range : erasure.json().path(EventFields.ACTION_INPUT).path("log_indexes")) {
            out.addRange(range.get(0).longValue(), range.get(1).longValue());
        }
        return out.build();
    }

    private static StoredEvent parse(byte[] payload) throws IOException {
        try {
            return StoredEvent.parse(payload);
        } catch (StoredEventFormatException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static void await(CompletableFuture<Void> f) throws IOException {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the search index dropped erased content");
        } catch (ExecutionException e) {
            throw new IOException("the search index could not drop the erased content: " + e.getCause(), e.getCause());
        }
    }
}
