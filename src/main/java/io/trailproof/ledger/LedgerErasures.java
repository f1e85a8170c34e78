package io.trailproof.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.AtomicFile;
import io.trailproof.store.EventLog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The ledger's side of an erasure (src/site/erasure.md): records it as an event of agent
 * {@link EventFields#ERASURES_AGENT}, durable before anything is removed, then rewrites the log so
 * the erased content is gone, and keeps the {@link ErasureRegistry} verification reads.
 *
 * <p><b>Crash safety.</b> Between the erasure event becoming durable and the end of the work that
 * removes the content everywhere (the log here, the search index above), the file
 * {@code DIR/erasure-pending} names the erasure event's log index. A start that finds it completes
 * the log's part at open ({@link #completeAtOpen}) and the caller completes the rest and calls
 * {@link #settled}. So an erasure is either fully applied or not at all (a crash before its event
 * was durable), and an acknowledged erasure is never undone. Erasures run one at a time.
 */
public final class LedgerErasures {

    static final String PENDING_FILE = "erasure-pending";

    private final Path dataDir;
    private final EventLog log;
    private final Sequencer sequencer;
    private final DedupeTable dedupe;
    private final ErasureRegistry registry;
    private final java.util.function.LongConsumer afterDurable;

    LedgerErasures(Path dataDir, EventLog log, Sequencer sequencer, DedupeTable dedupe, ErasureRegistry registry,
                   java.util.function.LongConsumer afterDurable) {
        this.dataDir = dataDir;
        this.log = log;
        this.sequencer = sequencer;
        this.dedupe = dedupe;
        this.registry = registry;
        this.afterDurable = afterDurable;
    }

    ErasureRegistry registry() {
        return registry;
    }

    /** What an erasure of {@code candidates} would do: the indexes it would erase, and how many are erased already. */
    synchronized ErasurePlan plan(long[] candidates) throws IOException {
        long[] sorted = candidates.clone();
        java.util.Arrays.sort(sorted);
        List<Long> targets = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        long[] already = {0};
        log.readEach(java.util.stream.LongStream.of(sorted).distinct().toArray(), (index, payload) -> {
            StoredEvent e = parse(index, payload);
            if (e.agentId().equals(EventFields.ERASURES_AGENT)) {
                return;   // the record of erasures is never erased
            }
            if (e.erased()) {
                already[0]++;
            } else {
                targets.add(index);
                ids.add(e.id());
            }
        });
        return new ErasurePlan(targets, ids, already[0]);
    }

    /**
     * Erases the content of the candidates not erased yet: the erasure event first (durable on
     * return of its append), then the log's segments. On return the content is gone from the log's
     * files; the pending marker stays until {@link #settled}.
     *
     * @param selector what the request selected by (kept in the erasure event)
     * @param keyName  the name of the API key that asked, or null
     */
    synchronized ErasureOutcome erase(long[] candidates, List<String> fields, String reason, String keyName,
                                      ObjectNode selector) throws IOException {
        ErasurePlan plan = plan(candidates);
        ObjectNode input = JsonNodeFactory.instance.objectNode();
        input.set("selector", selector);
        ArrayNode f = input.putArray("fields");
        EventErasure.ordered(fields).forEach(f::add);
        input.put("reason", reason);
        if (keyName != null) {
            input.put("key", keyName);
        }
        ArrayNode ids = input.putArray("event_ids");
        plan.ids().forEach(ids::add);
        ArrayNode ranges = input.putArray("log_indexes");
        long start = -1;
        long prev = -1;
        for (long i : plan.targets()) {
            if (start >= 0 && i != prev + 1) {
                ranges.addArray().add(start).add(prev);
                start = -1;
            }
            if (start < 0) {
                start = i;
            }
            prev = i;
        }
        if (start >= 0) {
            ranges.addArray().add(start).add(prev);
        }
        input.put("count", plan.targets().size());
        ObjectNode event = JsonNodeFactory.instance.objectNode();
        event.put(EventFields.AGENT_ID, EventFields.ERASURES_AGENT);
        event.put(EventFields.ACTION_TYPE, "ERASURE");
        event.put(EventFields.ACTION_NAME, "erase");
        event.set(EventFields.ACTION_INPUT, input);
        Sequencer.Sequenced s = sequencer.sequence(List.of(new Submission(event, 0)));
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
        AtomicFile.write(dataDir.resolve(PENDING_FILE),
                Long.toString(erasure.logIndex()).getBytes(StandardCharsets.US_ASCII));
        registry.add(erasure);
        afterDurable.accept(s.end());
        apply(erasure);
        return new ErasureOutcome(erasure, plan.targets(), plan.alreadyErased());
    }

    /** Rewrites the log so that every event {@code erasure} names and the log still holds unerased is erased. */
    private void apply(StoredEvent erasure) throws IOException {
        JsonNode input = erasure.json().path(EventFields.ACTION_INPUT);
        List<String> fields = new ArrayList<>();
        input.path("fields").forEach(n -> fields.add(n.textValue()));
        List<Long> indexes = new ArrayList<>();
        for (JsonNode range : input.path("log_indexes")) {
            for (long i = range.get(0).longValue(); i <= range.get(1).longValue(); i++) {
                indexes.add(i);
            }
        }
        TreeMap<Long, byte[]> replacements = new TreeMap<>();
        log.readEach(indexes.stream().mapToLong(Long::longValue).toArray(), (index, payload) -> {
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
        EventLog.Rewritten done = log.rewrite(replacements, EventLog.SideRewriter.KEEP);
        dedupe.remap(done.movedSides());
    }

    /** At open: finishes the log's part of an erasure a crash interrupted; its log index, when there was one. */
    synchronized OptionalLong completeAtOpen() throws IOException {
        OptionalLong pending = pending();
        if (pending.isEmpty()) {
            return pending;
        }
        long at = pending.getAsLong();
        if (at >= log.size()) {
            settled();   // the erasure event did not become durable: nothing was erased
            return OptionalLong.empty();
        }
        StoredEvent e = parse(at, log.read(at));
        if (!e.agentId().equals(EventFields.ERASURES_AGENT)) {
            settled();
            return OptionalLong.empty();
        }
        apply(e);
        return pending;
    }

    /** The log index of an erasure whose work may be unfinished (see the class comment). */
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

    /** The erasure's work is complete everywhere: the marker goes. */
    void settled() throws IOException {
        Files.deleteIfExists(dataDir.resolve(PENDING_FILE));
        AtomicFile.forceDirectory(dataDir);
    }

    private static StoredEvent parse(long index, byte[] payload) throws IOException {
        try {
            return StoredEvent.parse(payload);
        } catch (StoredEventFormatException e) {
            throw new IOException("the event at log index " + index + " is unreadable: " + e.getMessage(), e);
        }
    }

    /** What an erasure would do ({@code dry_run}). */
    public record ErasurePlan(List<Long> targets, List<String> ids, long alreadyErased) {
    }

    /** What an erasure did. */
    public record ErasureOutcome(StoredEvent erasure, List<Long> erased, long alreadyErased) {
    }

    /** The erasure event would exceed the size of an event: the request names too many events at once. */
    public static final class ErasureTooLargeException extends IOException {
        ErasureTooLargeException(String why) {
            super("this erasure names too many events for one erasure record (" + why + "); erase in smaller parts");
        }
    }
}
