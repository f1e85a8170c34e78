package io.trailproof.index;

import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerViews.AgentSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * Index administration while no service runs (src/site/cli.md: {@code index-tools/}). The caller holds
 * the data directory lock and has opened the ledger.
 */
public final class OfflineIndex {

    /** How many differences a check lists before it only counts them. */
    static final int MAX_LISTED = 20;

    private OfflineIndex() {
    }

    /**
     * Builds a new index generation from the whole log, commits it, then makes it the live one in one
     * atomic step; the old generation is deleted after that. Returns the number of events indexed.
     */
    public static long rebuild(Path dataDir, Ledger ledger, LongConsumer progress) throws IOException {
        IndexDirectory dirs = new IndexDirectory(dataDir);
        Path generation = dirs.newGeneration();
        try (LuceneEventIndex fresh = LuceneEventIndex.open(generation)) {
            LogReader.copy(ledger, fresh, ledger.size(), progress, () -> false);
            fresh.commit();
            dirs.makeCurrent(generation);
            return fresh.size();
        } catch (IOException | RuntimeException e) {
            IndexDirectory.deleteTree(generation);
            throw e;
        }
    }

    /** The outcome of {@link #check}: the first differences (at most {@value #MAX_LISTED}) and how many there are. */
    public record CheckReport(long logSize, long indexSize, long differenceCount, List<String> differences) {
        public boolean ok() {
            return differenceCount == 0;
        }
    }

    /**
     * Compares the live index with the log: every log index present exactly once and nothing else,
     * the number of events per agent, and the size the index's commit records.
     */
    public static CheckReport check(Path dataDir, Ledger ledger) throws IOException {
        List<String> diffs = new ArrayList<>();
        long[] count = {0};
        long logSize = ledger.size();
        Optional<Path> live = new IndexDirectory(dataDir).current();
        if (live.isEmpty()) {
            note(diffs, count, "there is no index in " + dataDir.resolve("index")
                    + " (the service builds it at start; or run rebuild-index)");
            return new CheckReport(logSize, 0, count[0], diffs);
        }
        LuceneEventIndex opened;
        try {
            opened = LuceneEventIndex.open(live.get());
        } catch (LuceneEventIndex.OtherFormatException e) {
            note(diffs, count, "the index in " + live.get() + " was written by another version (" + e.getMessage()
                    + "); the service rebuilds it at start, or run rebuild-index");
            return new CheckReport(logSize, 0, count[0], diffs);
        } catch (IOException e) {
            note(diffs, count, "the index in " + live.get() + " is damaged: " + e.getMessage());
            return new CheckReport(logSize, 0, count[0], diffs);
        }
        try (LuceneEventIndex index = opened) {
            if (index.size() != logSize) {
                note(diffs, count, "the index commit covers " + index.size() + " log entries; the log has " + logSize);
            }
            Map<String, Long> inIndex = index.countsPerAgent();
            Map<String, Long> inLog = new TreeMap<>();
            for (AgentSummary a : ledger.agents()) {
                inLog.put(a.agentId(), a.eventCount());
            }
            TreeMap<String, Long> all = new TreeMap<>(inLog);
            inIndex.forEach(all::putIfAbsent);
            for (String agent : all.keySet()) {
                long l = inLog.getOrDefault(agent, 0L);
                long x = inIndex.getOrDefault(agent, 0L);
                if (l != x) {
                    note(diffs, count, "agent " + agent + " has " + l + " events in the log and " + x + " in the index");
                }
            }
            BitSet seen = new BitSet();
            List<Long> beyond = new ArrayList<>();
            index.forEachLogIndex(i -> {
                if (i < 0 || i >= logSize) {
                    beyond.add(i);
                } else if (seen.get((int) i)) {
                    note(diffs, count, "log index " + i + " is in the index more than once");
                } else {
                    seen.set((int) i);
                }
            });
            beyond.stream().sorted().forEach(i -> note(diffs, count, "log index " + i + " is in the index but not in the log"));
            for (int i = seen.nextClearBit(0); i < logSize; ) {
                int end = (int) Math.min(logSize, seen.nextSetBit(i) < 0 ? logSize : seen.nextSetBit(i));
                note(diffs, count, end - i == 1 ? "log index " + i + " is missing from the index"
                        : "log indexes " + i + " to " + (end - 1) + " (" + (end - i) + ") are missing from the index");
                i = seen.nextClearBit(end);
            }
            return new CheckReport(logSize, index.size(), count[0], diffs);
        }
    }

    private static void note(List<String> diffs, long[] count, String difference) {
        count[0]++;
        if (diffs.size() < MAX_LISTED) {
            diffs.add(difference);
        }
    }
}
