package io.trailproof.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.Pacer;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.AtomicFile;
import io.trailproof.store.EventLog;
import io.trailproof.store.StepProbe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * The ledger's side of an erasure (src/site/erasure.md): records it as an event of agent
 * {@link EventFields#ERASURES_AGENT}, durable before anything is removed, then rewrites the log so
 * the erased content is gone, and keeps the {@link ErasureRegistry} verification reads.
 *
 * <p><b>Crash safety</b> (src/site/erasure.md#crash-safety-of-an-erasure). Before the erasure event
 * is appended, the file {@code DIR/erasure-pending} is written (atomically, durably) with a log
 * index {@code N} at or below the one the event will get; it stays until the work that removes the
 * content everywhere (the log here, the search index above) is done. A start that finds it looks
 * for the first erasure event at or after {@code N}: none means the event never became durable
 * (nothing was erased, the marker goes); one is completed, its log part at open
 * ({@link #completeAtOpen}), the rest by the caller, who then calls {@link #settled}. So an
 * erasure is either fully applied or not at all, and an acknowledged erasure is never undone.
 * Erasures run one at a time, and a rewrite of the log's files waits for running online backups
 * ({@link LogFileHolds}).
 */
public final class LedgerErasures {

    static final String PENDING_FILE = "erasure-pending";

    private final Path dataDir;
    private final EventLog log;
    private final Sequencer sequencer;
    private final DedupeTable dedupe;
    private final ErasureRegistry registry;
    private final LongConsumer afterDurable;
    private final AgentTable agents;
    private final LogFileHolds holds;
    /** A replica's log is written through the topic only (cluster mode). */
    private final boolean replica;
    private volatile StepProbe probe = StepProbe.NONE;
    private volatile double shareWhileIngesting = 1;
    /** The log index of an erasure a crash interrupted whose work above the log is to be finished, or -1. */
    private long interrupted = -1;

    LedgerErasures(Path dataDir, EventLog log, Sequencer sequencer, DedupeTable dedupe, ErasureRegistry registry,
                   LongConsumer afterDurable, AgentTable agents, LogFileHolds holds, boolean replica) {
        this.replica = replica;
        this.agents = agents;
        this.holds = holds;
        this.dataDir = dataDir;
        this.log = log;
        this.sequencer = sequencer;
        this.dedupe = dedupe;
        this.registry = registry;
        this.afterDurable = afterDurable;
    }

    /**
     * Tells {@code probe} each step of the erasures that follow (src/site/erasure.md#crash-safety-of-an-erasure);
     * the service never sets one, crash tests do.
     */
    public void probe(StepProbe probe) {
        this.probe = probe;
    }

    /**
     * Paces the log rewrite of the erasures this node records (not those of a replica) while events
     * are being ingested: it then works {@code share} of the time (src/site/erasure.md#pacing); on an
     * otherwise idle server it runs at full speed. 1 (the default) never paces.
     */
    public void shareWhileIngesting(double share) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("the share must be in (0, 1], not " + share);
        }
        this.shareWhileIngesting = share;
    }

    /** The probe {@link #probe(StepProbe)} set ({@link StepProbe#NONE} by default). */
    public StepProbe probe() {
        return probe;
    }

    ErasureRegistry registry() {
        return registry;
    }

    /** The id of the erasure event that names the event at {@code logIndex}, or null. */
    public String erasureOf(long logIndex) {
        return registry.erasureOf(logIndex);
    }

    /**
     * What erasing the events at {@code candidates} (log indexes below the ledger's size) would do:
     * the indexes it would erase (erasure events never are) and how many are erased already. Changes
     * nothing.
     */
    public ErasurePlan plan(LogRanges candidates) throws IOException {
        checkReadable(candidates);
        return planReadable(candidates, false);
    }

    /**
     * Reads the candidates a chunk at a time: the plan's memory grows with the ranges of its targets
     * (and their ids when {@code listIds}, which only requests naming at most an event's worth do),
     * never with the number of candidates.
     */
    private synchronized ErasurePlan planReadable(LogRanges candidates, boolean listIds) throws IOException {
        LogRanges.Builder targets = new LogRanges.Builder();
        List<String> ids = new ArrayList<>();
        long[] already = {0};
        candidates.forEachChunk(APPLY_CHUNK, (chunk, n) -> log.readEach(Arrays.copyOf(chunk, n), (index, payload) -> {
            StoredEvent e = parse(index, payload);
            if (e.agentId().equals(EventFields.ERASURES_AGENT)) {
                return;   // the record of erasures is never erased
            }
            if (e.erased()) {
                already[0]++;
            } else {
                targets.add(index);
                if (listIds) {
                    ids.add(e.id());
                }
            }
        }));
        return new ErasurePlan(targets.build(), ids, already[0]);
    }

    /**
     * Erases the content of the events at {@code candidates} not erased yet, keeping their integrity
     * fields (src/site/erasure.md#erased-event): records the erasure as an event of agent
     * {@link EventFields#ERASURES_AGENT} (durable first), then rewrites the log. On return no byte of
     * the erased content is left in the log's files; the caller removes it from what it derived (the
     * search index) and then calls {@link #settled}, until which the pending marker stays. When no
     * candidate is left to erase (none given, every one erased already, or erasure events) nothing is
     * recorded or changed, and the outcome's erasure is null.
     *
     * @param selector what the request selected by (kept in the erasure event)
     * @param keyName  the name of the API key that asked, or null
     * @throws ErasureTooLargeException when the erasure record would exceed an event's size
     */
    public ErasureOutcome erase(long[] candidates, List<String> fields, String reason, String keyName,
                                ObjectNode selector) throws IOException {
        refuseInReplica();
        LogRanges ranges = LogRanges.of(candidates);
        checkReadable(ranges);
        return erase(ranges, fields, reason, keyName, selector, true);
    }

    /**
     * A retention pass (src/site/erasure.md#retention): erases, as {@link #erase} does with one
     * erasure event, the content of every event recorded before {@code cutoff} that no erasure names
     * yet, except erasure events. The event names them by log index ranges only (their ids would not
     * fit one event). When there is nothing to erase nothing is recorded and the outcome's erasure
     * is null. Its memory does not grow with the number of events it erases: they are found,
     * erased and handed on as ranges and read a chunk at a time (src/site/erasure.md#memory).
     */
    public ErasureOutcome eraseRecordedBefore(Instant cutoff, String reason, ObjectNode selector)
            throws IOException {
        refuseInReplica();
        LogRanges candidates = recordedBefore(cutoff, sequencer.readableSize());
        return erase(candidates, EventErasure.ERASABLE, reason, null, selector, false);
    }

    /**
     * As {@link #erase(long[], List, String, String, ObjectNode)}; with {@code listIds} false the
     * erasure event names the events by their log indexes only (a retention pass, whose events'
     * ids would not fit one event). Nothing to erase records nothing: the outcome's erasure is null.
     */
    private synchronized ErasureOutcome erase(LogRanges candidates, List<String> fields, String reason, String keyName,
                                              ObjectNode selector, boolean listIds) throws IOException {
        return erase(new ErasureOrder(candidates, fields, reason, keyName, selector, listIds), sequencer::sequence,
                Pacer.whileBusy(shareWhileIngesting, sequencer::readableSize, System::nanoTime, Pacer.SLEEP));
    }

    /**
     * An erasure record of a replica (cluster mode): as {@link #erase(long[], List, String, String,
     * ObjectNode, boolean)}, with the erasure event's time and id bits from {@code stamp} and
     * {@code sides} (the replica's position) in its group, under the same commit. The caller made
     * everything applied before durable. When there is nothing to record (a retention order that
     * finds every candidate erased) nothing is written, the position neither.
     */
    synchronized ErasureOutcome eraseReplicated(ErasureOrder order, Sequencer.Stamp stamp, List<byte[]> sides)
            throws IOException {
        // Not paced: the node's apply loop, and every write after this record, waits for it.
        return erase(order, events -> sequencer.sequence(events, List.of(), stamp, sides), Pacer.unpaced());
    }

    /** How the erasure event is sealed and written: by this node's clock, or from a replicated record. */
    @FunctionalInterface
    private interface Sealing {
        Sequencer.Sequenced sequence(List<Submission> events) throws IOException;
    }

    private ErasureOutcome erase(ErasureOrder order, Sealing sealing, Pacer pacer) throws IOException {
        ErasurePlan plan = planReadable(order.candidates(), order.listIds());
        if (plan.targets().isEmpty()) {
            // Erasing nothing records nothing: a mistyped selector must not leave a permanent event.
            return new ErasureOutcome(null, LogRanges.EMPTY, plan.alreadyErased());
        }
        ObjectNode input = JsonNodeFactory.instance.objectNode();
        input.set("selector", order.selector());
        ArrayNode f = input.putArray("fields");
        EventErasure.ordered(order.fields()).forEach(f::add);
        input.put("reason", order.reason());
        if (order.keyName() != null) {
            input.put("key", order.keyName());
        }
        if (order.listIds()) {
            ArrayNode ids = input.putArray("event_ids");
            plan.ids().forEach(ids::add);
        }
        ArrayNode ranges = input.putArray("log_indexes");
        LogRanges targets = plan.targets();
        for (int r = 0; r < targets.rangeCount(); r++) {
            ranges.addArray().add(targets.first(r)).add(targets.last(r));
        }
        input.put("count", targets.count());
        ObjectNode event = JsonNodeFactory.instance.objectNode();
        event.put(EventFields.AGENT_ID, EventFields.ERASURES_AGENT);
        event.put(EventFields.ACTION_TYPE, "ERASURE");
        event.put(EventFields.ACTION_NAME, "erase");
        event.set(EventFields.ACTION_INPUT, input);
        // The marker first: the event gets an index at or after the readable size now.
        AtomicFile.write(dataDir.resolve(PENDING_FILE),
                Long.toString(sequencer.readableSize()).getBytes(StandardCharsets.US_ASCII));
        probe.reached("erasure-started");
        Sequencer.Sequenced s = sealing.sequence(List.of(new Submission(event, 0)));
        AppendOutcome outcome = s.outcomes()[0];
        if (!outcome.ok()) {
            throw new ErasureTooLargeException(outcome.error());
        }
        try {
            log.awaitDurable(s.end());
        } catch (IOException e) {
            throw sequencer.durabilityFailed(e);
        }
        StoredEvent erasure = outcome.event();
        registry.add(erasure);
        afterDurable.accept(s.end());
        probe.reached("erasure-recorded");
        apply(erasure, pacer);
        probe.reached("log-rewritten");
        return new ErasureOutcome(erasure, plan.targets(), plan.alreadyErased());
    }

    /** Events erased per rewrite call: bounds the memory an erasure of many events takes. */
    static final int APPLY_CHUNK = 20_000;

    /**
     * Rewrites the log so that every event {@code erasure} names and the log still holds unerased is
     * erased, in chunks of {@link #APPLY_CHUNK} events (a segment a chunk boundary splits is
     * rewritten once per chunk).
     */
    private void apply(StoredEvent erasure, Pacer pacer) throws IOException {
        JsonNode input = erasure.json().path(EventFields.ACTION_INPUT);
        List<String> fields = new ArrayList<>();
        input.path("fields").forEach(n -> fields.add(n.textValue()));
        long[] chunk = new long[APPLY_CHUNK];
        int n = 0;
        for (JsonNode range : input.path("log_indexes")) {
            for (long i = range.get(0).longValue(); i <= range.get(1).longValue(); i++) {
                chunk[n++] = i;
                if (n == chunk.length) {
                    applyChunk(erasure, fields, chunk, n, pacer);
                    n = 0;
                }
            }
        }
        if (n > 0) {
            applyChunk(erasure, fields, chunk, n, pacer);
        }
    }

    private void applyChunk(StoredEvent erasure, List<String> fields, long[] chunk, int n, Pacer pacer)
            throws IOException {
        TreeMap<Long, byte[]> replacements = new TreeMap<>();
        log.readEach(Arrays.copyOf(chunk, n), (index, payload) -> {
            StoredEvent e = parse(index, payload);
            if (!e.erased()) {
                try {
                    replacements.put(index, EventErasure.erase(payload, erasure.id(), erasure.recordedAt(), fields));
                } catch (StoredEventFormatException ex) {
                    throw new IOException("cannot erase the event at log index " + index + ": " + ex.getMessage(), ex);
                }
            }
        });
        // Recorded answers hold log indexes, not events (a replay reads the events as stored now),
        // so side records are kept as they are; only their addresses may move.
        StepProbe p = probe;
        dedupe.awaitKeys();   // every record in the table, so that the remap below finds each one moved
        EventLog.Rewritten done = holds.rewrite(() -> log.rewrite(replacements, EventLog.SideRewriter.KEEP, p, pacer));
        dedupe.remap(done.movedSides());
    }

    /**
     * The log indexes a retention pass with {@code cutoff} would name (src/site/erasure.md#retention):
     * the events recorded before it that no erasure names yet, below the ledger's size; erasure
     * events among them are left alone when the erasure is applied. Changes nothing. recorded_at
     * never decreases along the log, so they all lie before the first event recorded at or after the
     * cutoff; they are found without reading them, as ranges.
     */
    public LogRanges recordedBefore(Instant cutoff) throws IOException {
        return recordedBefore(cutoff, sequencer.readableSize());
    }

    private synchronized LogRanges recordedBefore(Instant cutoff, long size) throws IOException {
        long lo = 0;
        long hi = size;   // first index recorded at or after the cutoff lies in [lo, hi]
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            Instant at = EventTime.parseTimestamp(parse(mid, log.read(mid)).recordedAt());
            if (at.isBefore(cutoff)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        LogRanges.Builder out = new LogRanges.Builder();
        for (long i = 0; i < lo; i++) {
            if (registry.erasureOf(i) == null) {
                out.add(i);
            }
        }
        return out.build();
    }

    /**
     * The log index of an erasure a crash interrupted (its log part finished at open), whose work
     * above the log the caller must finish before calling {@link #settled}; -1 when none.
     */
    public long interrupted() {
        return interrupted;
    }

    /**
     * At open: finishes the log's part of an erasure a crash interrupted, and keeps its log index
     * for {@link #interrupted}.
     */
    synchronized void completeAtOpen() throws IOException {
        OptionalLong pending = pending();
        if (pending.isEmpty()) {
            return;
        }
        long from = pending.getAsLong();
        long at = -1;
        AgentState state = agents.get(EventFields.ERASURES_AGENT);
        if (state != null) {
            for (long position : state.positionsBelow(log.size())) {
                if (position >= from) {
                    at = position;
                    break;
                }
            }
        }
        if (at < 0) {
            settled();   // the erasure event did not become durable: nothing was erased
            return;
        }
        apply(parse(at, log.read(at)), Pacer.unpaced());
        interrupted = at;
    }

    /** The lower bound of the log index of an erasure whose work may be unfinished (see the class comment). */
    OptionalLong pending() throws IOException {
        Path p = dataDir.resolve(PENDING_FILE);
        if (!Files.exists(p)) {
            return OptionalLong.empty();
        }
        String text = new String(Files.readAllBytes(p), StandardCharsets.US_ASCII).trim();
        try {
            return OptionalLong.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();   // torn before its atomic rename cannot happen; a foreign file is ignored
        }
    }

    /** The erasure's work is complete above the log too (src/site/erasure.md#physically-gone): the marker goes. */
    public void settled() throws IOException {
        Files.deleteIfExists(dataDir.resolve(PENDING_FILE));
        AtomicFile.forceDirectory(dataDir);
    }

    private void refuseInReplica() throws LedgerUnavailableException {
        if (replica) {
            throw LedgerWrites.writtenThroughTheTopic();
        }
    }

    private void checkReadable(LogRanges indexes) {
        long size = sequencer.readableSize();
        if (!indexes.isEmpty() && indexes.last(indexes.rangeCount() - 1) >= size) {
            throw new IllegalArgumentException("log index " + indexes.last(indexes.rangeCount() - 1)
                    + " is not readable (readable: " + size + ")");
        }
    }

    private static StoredEvent parse(long index, byte[] payload) throws IOException {
        try {
            return StoredEvent.parse(payload);
        } catch (StoredEventFormatException e) {
            throw new IOException("the event at log index " + index + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** What an erasure would do ({@code dry_run}). */
    public record ErasurePlan(LogRanges targets, List<String> ids, long alreadyErased) {
    }

    /** What an erasure did; {@code erasure} is null when there was nothing to erase and nothing was recorded. */
    public record ErasureOutcome(StoredEvent erasure, LogRanges erased, long alreadyErased) {
    }

    /** The erasure event would exceed the size of an event: the request names too many events at once. */
    public static final class ErasureTooLargeException extends IOException {
        /** @param why what the event's limits said */
        public ErasureTooLargeException(String why) {
            super("this erasure names too many events for one erasure record (" + why + "); erase in smaller parts");
        }
    }
}
