package io.trailproof.core.chain;

import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.event.IntactLink;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.SubtreeHashes;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Verifies one agent's chain, one stored event at a time, from the bytes as stored. Nothing the
 * stored event claims is trusted: its hash is recomputed from its content, its sequence must be the
 * next one, its {@code prev_hash} must be the previous event's hash (the anchor for the first one),
 * and, when a tree is given, its leaf in the tree must be the leaf hash of its {@code hash}.
 *
 * <p>Checks run in that order for each event, so an edited event is reported as a hash mismatch
 * rather than as whatever field the edit touched. The first failure ends the verification.
 */
public final class ChainVerifier {

    private final String agentId;
    private long expectedSequence;
    /** The {@code prev_hash} the next event must carry; null while {@link #expectedPrevBytes} stands for it. */
    private String expectedPrevHash;
    /**
     * The same as 32 bytes when it is an event hash in wire form (64 lowercase hex digits, so that
     * equal bytes mean equal text), else null.
     */
    private byte[] expectedPrevBytes;
    private long verified;
    private long erased;
    private ErasureRecords erasures = ErasureRecords.NONE;
    private Optional<ChainFailure> failure = Optional.empty();
    /** Kept from one event to the next: looking up a digest costs more than a leaf hash. */
    private final MessageDigest digest = EventHash.newDigest();
    /** The walk's reader of intact events' links: the path of every event that passes (see {@link #next(byte[], long, SubtreeHashes)}). */
    private IntactLink link;

    /**
     * @param agentId         the chain's agent
     * @param firstSequence   the sequence the first event must have (1 for a whole chain)
     * @param anchorHash      the {@code prev_hash} the first event must carry (64 zeros for sequence 1)
     */
    public ChainVerifier(String agentId, long firstSequence, String anchorHash) {
        this.agentId = agentId;
        this.expectedSequence = firstSequence;
        this.expectedPrevHash = anchorHash;
        this.expectedPrevBytes = wireHashBytes(anchorHash);
    }

    /**
     * Accepts erased events that {@code records} names (src/site/erasure.md#verification); without
     * this, every erased event fails as {@link ChainFailure.Kind#ERASURE_WITHOUT_RECORD}.
     */
    public ChainVerifier withErasures(ErasureRecords records) {
        this.erasures = records;
        return this;
    }

    /**
     * Checks the next stored event.
     *
     * @param payload  the stored event's bytes as read from storage
     * @param position the event's position in the log (its leaf index), or -1 when unknown
     * @param tree     the tree's node hashes for the leaf check, or null to skip it
     * @return the failure, if this event (or an earlier one) failed
     */
    public Optional<ChainFailure> next(byte[] payload, long position, SubtreeHashes tree) {
        if (failure.isPresent()) {
            return failure;
        }
        if (passes(payload, position, tree)) {
            return Optional.empty();
        }
        // Not shown to pass: the checks again, one at a time, to decide and to explain.
        Optional<IntactEvent> intact = IntactEvent.check(payload, digest);
        if (intact.isPresent()) {
            IntactEvent e = intact.get();
            return linked(e.agentId(), e.sequence(), e.prevHash(), e.hash(), e.logIndex(), position, tree);
        }
        StoredEvent event;
        try {
            event = StoredEvent.parse(payload);
        } catch (Exception e) {
            return fail(ChainFailure.Kind.HASH_MISMATCH, "a readable stored event", "unreadable: " + e.getMessage());
        }
        return next(event, position, tree);
    }

    /**
     * The checks of {@link #next(byte[], long, SubtreeHashes)} for an event that passes them all, on
     * numbers and raw bytes: intact ({@link IntactLink}, the same rules as {@link IntactEvent#check}),
     * this chain's agent, the next sequence, the previous hash as its {@code prev_hash}, and its
     * leaf in the tree. True when it passed, and the chain moved on past it; false when any check
     * is not shown to pass, with nothing changed (the caller decides and explains).
     */
    private boolean passes(byte[] payload, long position, SubtreeHashes tree) {
        if (expectedPrevBytes == null) {
            return false;
        }
        if (link == null) {
            link = new IntactLink(agentId, digest);
        }
        if (!link.read(payload) || !link.agentMatches() || link.sequence() != expectedSequence
                || !Arrays.equals(link.prevHash(), expectedPrevBytes)) {
            return false;
        }
        if (tree != null) {
            if (link.logIndex() != position) {
                return false;
            }
            byte[] stored;
            try {
                stored = tree.get(0, position);
            } catch (RuntimeException e) {
                return false;
            }
            if (!Arrays.equals(Rfc9162.leafHash(digest, link.hash()), stored)) {
                return false;
            }
        }
        verified++;
        expectedSequence++;
        System.arraycopy(link.hash(), 0, expectedPrevBytes, 0, EventHash.LENGTH);
        expectedPrevHash = null;
        return true;
    }

    /**
     * Checks the next stored event, already shown intact by {@link IntactEvent#check} (by a caller
     * that read other fields of it in the same parse, such as a policy check).
     *
     * @see #next(byte[], long, SubtreeHashes)
     */
    public Optional<ChainFailure> next(IntactEvent e, long position, SubtreeHashes tree) {
        if (failure.isPresent()) {
            return failure;
        }
        return linked(e.agentId(), e.sequence(), e.prevHash(), e.hash(), e.logIndex(), position, tree);
    }

    /**
     * Checks the next stored event, already parsed (by a caller that keeps other facts of it, such as
     * the offline verifier of an evidence package).
     *
     * @see #next(byte[], long, SubtreeHashes)
     */
    public Optional<ChainFailure> next(StoredEvent event, long position, SubtreeHashes tree) {
        if (failure.isPresent()) {
            return failure;
        }
        if (event.erased()) {
            // The content is gone, the hash is as committed: the links, the sequence and the leaf
            // are checked as for any event, and an erasure record must name this very event.
            String named = erasures.erasureOf(event.logIndex());
            if (named == null || !named.equals(event.erasureId()) || event.logIndex() != position && position >= 0) {
                return fail(ChainFailure.Kind.ERASURE_WITHOUT_RECORD, "an erasure record naming log_index "
                        + event.logIndex(), named == null ? "none" : "erasure " + named);
            }
            Optional<ChainFailure> f = linked(event.agentId(), event.sequence(), event.prevHash(), event.hash(),
                    event.logIndex(), position, tree);
            if (f.isEmpty()) {
                erased++;
            }
            return f;
        }
        String recomputed = HexFormat.of().formatHex(event.recomputeHash());
        if (!recomputed.equals(event.hash())) {
            return fail(ChainFailure.Kind.HASH_MISMATCH, event.hash(), recomputed);
        }
        return linked(event.agentId(), event.sequence(), event.prevHash(), event.hash(), event.logIndex(), position,
                tree);
    }

    /** The checks after the hash: agent, sequence, link, and the event's leaf in the tree. */
    private Optional<ChainFailure> linked(String eventAgent, long sequence, String prevHash, String hash, long logIndex,
                                          long position, SubtreeHashes tree) {
        if (!agentId.equals(eventAgent)) {
            // Intact, but another agent's event: it cannot belong to this chain.
            return fail(ChainFailure.Kind.HASH_MISMATCH, "an event of agent " + agentId, "an event of agent " + eventAgent);
        }
        if (sequence != expectedSequence) {
            return fail(ChainFailure.Kind.SEQUENCE_GAP, Long.toString(expectedSequence), Long.toString(sequence));
        }
        if (!prevHash.equals(headHash())) {
            return fail(ChainFailure.Kind.PREV_HASH_MISMATCH, headHash(), prevHash);
        }
        if (tree != null) {
            byte[] leaf = Rfc9162.leafHash(digest, HexFormat.of().parseHex(hash));
            if (logIndex != position) {
                return fail(ChainFailure.Kind.MERKLE_LEAF_MISMATCH, "log_index " + position, "log_index " + logIndex);
            }
            byte[] stored;
            try {
                stored = tree.get(0, position);
            } catch (RuntimeException e) {
                return fail(ChainFailure.Kind.MERKLE_LEAF_MISMATCH, hex(leaf), "unreadable leaf: " + e.getMessage());
            }
            if (!Arrays.equals(leaf, stored)) {
                return fail(ChainFailure.Kind.MERKLE_LEAF_MISMATCH, hex(leaf), hex(stored));
            }
        }
        verified++;
        expectedSequence++;
        expectedPrevHash = hash;
        expectedPrevBytes = wireHashBytes(hash);
        return Optional.empty();
    }

    /** Records that the next event could not be read from storage at all (for example a bad CRC). */
    public Optional<ChainFailure> unreadable(String why) {
        if (failure.isPresent()) {
            return failure;
        }
        return fail(ChainFailure.Kind.HASH_MISMATCH, "a readable stored event", "unreadable: " + why);
    }

    /** Number of events that passed every check. */
    public long verified() {
        return verified;
    }

    /** Number of erased events among those that passed (each named by an erasure record). */
    public long erased() {
        return erased;
    }

    /** The sequence of the last event that passed, 0 when none did. */
    public long headSequence() {
        return expectedSequence - 1;
    }

    /** The hash of the last event that passed (the anchor when none did). */
    public String headHash() {
        if (expectedPrevHash == null) {
            expectedPrevHash = hex(expectedPrevBytes);
        }
        return expectedPrevHash;
    }

    public Optional<ChainFailure> failure() {
        return failure;
    }

    private Optional<ChainFailure> fail(ChainFailure.Kind kind, String expected, String actual) {
        failure = Optional.of(new ChainFailure(kind, expectedSequence, expected, actual));
        return failure;
    }

    /** {@code hash} as 32 bytes when it is 64 lowercase hex digits; null otherwise. */
    private static byte[] wireHashBytes(String hash) {
        return EventHash.isHex(hash) ? HexFormat.of().parseHex(hash) : null;
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
