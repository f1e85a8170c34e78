package io.trailproof.ledger;

import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.event.MemberScanner;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.StreamingRoot;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import io.trailproof.ledger.LedgerViews.InclusionProof;
import io.trailproof.ledger.LedgerViews.Stats;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Every question answered from the log, the tree and the agents' state. Each answer is computed at
 * one readable size taken when it starts ({@link Sequencer#readableSize()}): only durable events,
 * and never a size the tree or the agents do not have yet.
 */
final class LedgerQueries {

    private final EventLog log;
    private final MerkleNodeStore tree;
    private final AgentTable agents;
    private final LongSupplier readableSize;
    private final Clock clock;
    private final ChainAudit audit;

    LedgerQueries(EventLog log, MerkleNodeStore tree, AgentTable agents, LongSupplier readableSize, Clock clock,
                  ChainAudit audit) {
        this.log = log;
        this.tree = tree;
        this.agents = agents;
        this.readableSize = readableSize;
        this.clock = clock;
        this.audit = audit;
    }

    long size() {
        return readableSize.getAsLong();
    }

    Optional<byte[]> eventPayload(String id) throws IOException {
        OptionalLong index = EventIds.logIndexOf(id);
        if (index.isEmpty() || index.getAsLong() >= size()) {
            return Optional.empty();
        }
        byte[] payload = log.read(index.getAsLong());
        try {
            if (!StoredEvent.parse(payload).id().equals(id)) {
                return Optional.empty();
            }
        } catch (Exception e) {
            return Optional.empty();
        }
        return Optional.of(payload);
    }

    /**
     * Whether the stored event {@code payload} has the id {@code id}: a proof names its event by id,
     * and an id's index bits could point at another event. The top-level {@code id} member is found
     * by stepping over the others (a strict parse of the whole event was most of a proof's cost);
     * bytes the scanner does not expect, and a second {@code id}, are decided by the full parse
     * (which refuses duplicate keys), as {@link #eventPayload} does.
     */
    static boolean storedIdIs(byte[] payload, String id) {
        try {
            MemberScanner m = new MemberScanner(payload);
            String stored = null;
            int ids = 0;
            while (m.next()) {
                if (m.nameIs(EventFields.ID)) {
                    ids++;
                    stored = m.stringValue();
                }
            }
            if (ids <= 1) {
                return id.equals(stored);
            }
        } catch (IllegalArgumentException e) {
            // decided below
        }
        try {
            return StoredEvent.parse(payload).id().equals(id);
        } catch (Exception notAnEvent) {
            return false;
        }
    }

    byte[] payloadAt(long logIndex) throws IOException {
        long size = size();
        if (logIndex < 0 || logIndex >= size) {
            throw new IllegalArgumentException("log index " + logIndex + " is not below the durable size " + size);
        }
        return log.read(logIndex);
    }

    void scan(long from, long to, EventLog.PayloadVisitor visitor) throws IOException {
        long size = size();
        if (from < 0 || to > size || from > to) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") is not within the durable size " + size);
        }
        log.scan(from, to, visitor);
    }

    void scanViews(long from, long to, EventLog.PayloadViewVisitor visitor) throws IOException {
        long size = size();
        if (from < 0 || to > size || from > to) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") is not within the durable size " + size);
        }
        log.scanViews(from, to, visitor);
    }

    byte[] root(long treeSize) {
        checkSize(treeSize, "tree_size");
        return treeSize == 0 ? Rfc9162.emptyRoot() : tree.root(treeSize);
    }

    Optional<InclusionProof> inclusionProof(String eventId, long treeSize) throws IOException {
        OptionalLong index = EventIds.logIndexOf(eventId);
        if (index.isEmpty() || index.getAsLong() >= size() || !storedIdIs(log.read(index.getAsLong()), eventId)) {
            return Optional.empty();
        }
        long leafIndex = index.getAsLong();
        checkSize(treeSize, "tree_size");
        if (treeSize <= leafIndex) {
            throw new IllegalArgumentException("tree_size " + treeSize + " does not contain the event (its leaf index is "
                    + leafIndex + ")");
        }
        return Optional.of(new InclusionProof(eventId, leafIndex, tree.get(0, leafIndex), treeSize,
                tree.root(treeSize), MerkleTree.inclusionProof(tree, leafIndex, treeSize)));
    }

    byte[] treeNodes(int level, long from, int count) {
        long readable = readableSize.getAsLong();
        if (level < 0 || level >= Long.SIZE - 1 || from < 0 || count < 0 || from + count > (readable >>> level)) {
            throw new IllegalArgumentException("the readable tree of " + readable + " leaves has no nodes at level "
                    + level + " from " + from + " + " + count);
        }
        return tree.nodes(level, from, count);
    }

    List<byte[]> consistencyProof(long from, long to) {
        checkSize(to, "to");
        if (from < 1 || from > to) {
            throw new IllegalArgumentException("from must be between 1 and to (" + to + ")");
        }
        return MerkleTree.consistencyProof(tree, from, to);
    }

    RootRecomputation recomputeRoot(long treeSize) throws IOException {
        checkSize(treeSize, "tree_size");
        StreamingRoot root = new StreamingRoot();
        LeafWindow leaves = new LeafWindow(tree, treeSize);
        long[] firstAltered = {-1};
        String[] evidence = new String[2];
        log.scan(0, treeSize, (index, payload) -> {
            byte[] leaf;
            String problem = null;
            String id = null;
            long claimedIndex;
            // An intact event is recognised by its bytes; only an altered one needs the full parse.
            Optional<IntactEvent> intact = IntactEvent.check(payload);
            if (intact.isPresent()) {
                id = intact.get().id();
                leaf = Rfc9162.leafHash(intact.get().hashBytes());
                claimedIndex = intact.get().logIndex();
            } else {
                try {
                    StoredEvent event = StoredEvent.parse(payload);
                    id = event.id();
                    byte[] recomputed = event.recomputeHash();
                    leaf = Rfc9162.leafHash(recomputed);
                    claimedIndex = event.logIndex();
                    if (!MessageDigest.isEqual(recomputed, event.hashBytes())) {
                        problem = "its fields no longer hash to its stored hash";
                    }
                } catch (StoredEventFormatException e) {
                    leaf = Rfc9162.leafHash(Rfc9162.emptyRoot());   // stands for "unreadable"; the root then differs
                    claimedIndex = index;
                    problem = "it is not a readable stored event (" + e.getMessage() + ")";
                }
            }
            if (problem == null && claimedIndex != index) {
                problem = "it claims log index " + claimedIndex;
            } else if (problem == null && !MessageDigest.isEqual(leaf, leaves.get(0, index))) {
                problem = "its hash is not the leaf stored in the tree";
            }
            if (problem != null && firstAltered[0] < 0) {
                firstAltered[0] = index;
                evidence[0] = id;
                evidence[1] = problem;
            }
            root.add(leaf);
        });
        return new RootRecomputation(treeSize, root.root(), firstAltered[0], evidence[0], evidence[1]);
    }

    private void checkSize(long treeSize, String name) {
        long current = size();
        if (treeSize < 0 || treeSize > current) {
            throw new IllegalArgumentException(name + " must be between 0 and the current tree size " + current);
        }
    }

    boolean hasAgent(String agentId) {
        AgentState state = agents.get(agentId);
        return state != null && state.countBelow(size()) > 0;
    }

    /**
     * Every agent with a readable event, ordered by id, described by its readable events only. A
     * chain not verified yet is verified now (its events only), so every row has a verdict.
     */
    List<AgentSummary> agents() throws IOException {
        long end = size();
        List<AgentSummary> out = new ArrayList<>();
        for (AgentState a : agents.all()) {
            AgentState.Summary s = a.summary(end);
            if (s.eventCount() == 0) {
                continue;
            }
            if (s.chainValid() == null) {
                audit.verify(a, end);
                s = a.summary(end);
            }
            long headSequence = s.headSequence();
            String headHash = s.headHash();
            String lastActivity = s.lastActivity();
            if (!s.headIsNewest()) {
                StoredEvent head = storedOrNull(s.lastPosition());
                headSequence = head == null ? s.eventCount() : head.sequence();
                headHash = head == null ? null : head.hash();
                lastActivity = head == null ? null : head.recordedAt();
            }
            out.add(new AgentSummary(s.agentId(), s.eventCount(), lastActivity, s.chainValid(), headSequence, headHash,
                    s.verifiedAt()));
        }
        out.sort(Comparator.comparing(AgentSummary::agentId));
        return out;
    }

    /** {@code chain_health} is valid chains over all chains (src/site/http-api.md#endpoints); every chain has a verdict. */
    Stats stats() throws IOException {
        List<AgentSummary> all = agents();
        long end = size();
        Instant dayAgo = clock.instant().minus(Duration.ofDays(1));
        long active = all.stream().filter(a -> a.lastActivity() != null
                && !Instant.parse(a.lastActivity()).isBefore(dayAgo)).count();
        long valid = all.stream().filter(a -> Boolean.TRUE.equals(a.chainValid())).count();
        double health = all.isEmpty() ? 1.0 : (double) valid / all.size();
        return new Stats(end, end - firstRecordedAtOrAfter(dayAgo, end), active, health, all.size(), end,
                HexFormat.of().formatHex(root(end)));
    }

    /** recorded_at never decreases along the log, so the first event of the last 24 h is found by bisection. */
    private long firstRecordedAtOrAfter(Instant t, long end) throws IOException {
        long lo = 0;
        long hi = end;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            Instant recorded;
            try {
                recorded = Instant.parse(StoredEvent.parse(log.read(mid)).recordedAt());
            } catch (CorruptLogException e) {
                throw e;
            } catch (Exception e) {
                recorded = Instant.EPOCH; // an unreadable event is reported by verification, not here
            }
            if (recorded.isBefore(t)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    Optional<ChainSlice> slice(String agentId, Instant since, Instant until) throws IOException {
        AgentState state = agents.get(agentId);
        if (state == null) {
            return Optional.empty();
        }
        long treeSize = size();
        int count = state.countBelow(treeSize);
        if (count == 0) {
            return Optional.empty();
        }
        Instant takenAt = clock.instant();
        byte[] root = root(treeSize);
        int from = 0;
        int to = count;
        if (since != null || until != null) {
            from = -1;
            to = -1;
            for (int i = 0; i < count; i++) {
                StoredEvent event = storedOrNull(state.positionAt(i));
                if (event != null && inWindow(event.timestamp(), since, until)) {
                    if (from < 0) {
                        from = i;
                    }
                    to = i + 1;
                }
            }
            if (from < 0) {
                from = 0;
                to = 0;
            }
        }
        long firstSequence = from + 1;
        long lastSequence = to;
        String anchor = null;
        if (to > from) {
            StoredEvent first = storedOrNull(state.positionAt(from));
            StoredEvent last = storedOrNull(state.positionAt(to - 1));
            // An unreadable event keeps its place; verification of the package names it.
            firstSequence = first != null ? first.sequence() : from + 1;
            lastSequence = last != null ? last.sequence() : to;
            anchor = first != null ? first.prevHash() : EventFields.GENESIS_PREV_HASH;
        }
        return Optional.of(new ChainSlice(agentId, state, log, tree, treeSize, root, takenAt, from, to, firstSequence,
                lastSequence, anchor, agents.get(EventFields.ERASURES_AGENT)));
    }

    private static boolean inWindow(String timestamp, Instant since, Instant until) {
        Instant t;
        try {
            t = EventTime.parseTimestamp(timestamp);
        } catch (RuntimeException e) {
            return false;
        }
        return (since == null || !t.isBefore(since)) && (until == null || t.isBefore(until));
    }

    private StoredEvent storedOrNull(long position) throws IOException {
        try {
            return StoredEvent.parse(log.read(position));
        } catch (CorruptLogException e) {
            throw e;
        } catch (Exception e) {
            return null;
        }
    }

    /** Log indexes of one agent's readable events, ascending; empty when the agent is unknown. */
    long[] agentPositions(String agentId) {
        AgentState state = agents.get(agentId);
        return state == null ? new long[0] : state.positionsBelow(readableSize.getAsLong());
    }
}
