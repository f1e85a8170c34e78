package io.trailproof.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.timestamp.TimestampRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/** The rule that picks a package's timestamps (src/site/evidence-format.md), by known answers and a seeded property. */
class PackageTimestampsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    /** A record of a tree of {@code size} events, stamped {@code minutes} after T0. */
    private static TimestampRecord stamp(String id, long size, long minutes) {
        return new TimestampRecord(id, "00".repeat(32), size, "tsa.example", "http://tsa.example/",
                T0.plusSeconds(60 * minutes).toString(), T0.toString(), "01", "1.2.3", "SHA-256", "02", "AA==",
                List.of());
    }

    private static List<String> pick(long lastLogIndex, long treeSize, TimestampRecord... oldestFirst) {
        PackageTimestamps p = new PackageTimestamps(lastLogIndex, treeSize);
        for (TimestampRecord r : oldestFirst) {
            p.offer(r);
        }
        return p.selected().stream().map(TimestampRecord::id).toList();
    }

    @Test
    void nothingStoredMeansNoTimestamps() {
        assertThat(pick(9, 20)).isEmpty();
    }

    @Test
    void theEarliestCoveringTheLastEventAndTheLatest() {
        // The last exported event has log index 9: trees of 10 or more events cover it.
        assertThat(pick(9, 40, stamp("a", 5, 0), stamp("b", 10, 1), stamp("c", 15, 2), stamp("d", 30, 3)))
                .containsExactly("b", "d");
    }

    @Test
    void oneEntryWhenTheEarliestCoveringIsTheLatest() {
        assertThat(pick(9, 40, stamp("a", 5, 0), stamp("b", 12, 1))).containsExactly("b");
        assertThat(pick(9, 10, stamp("b", 10, 1))).containsExactly("b");
    }

    @Test
    void onlyTheLatestWhenNoneCoversTheLastEvent() {
        assertThat(pick(9, 40, stamp("a", 5, 0), stamp("b", 9, 1))).containsExactly("b");
    }

    @Test
    void timestampsOfTreesLargerThanThePackageAreLeftOut() {
        assertThat(pick(9, 20, stamp("a", 10, 0), stamp("b", 15, 1), stamp("c", 21, 2))).containsExactly("a", "b");
        assertThat(pick(9, 20, stamp("c", 21, 2), stamp("d", 50, 3))).isEmpty();
        assertThat(pick(9, 20, stamp("a", 5, 0), stamp("c", 21, 2))).containsExactly("a");
    }

    @Test
    void anEmptyPackageGetsOnlyTheLatest() {
        assertThat(pick(-1, 20, stamp("a", 10, 0), stamp("b", 15, 1))).containsExactly("b");
    }

    @Test
    void earliestIsByTheTokensTimeAndTheFirstStoredOnATie() {
        // Stored in another order than their tokens' times (two requests in flight at once).
        assertThat(pick(9, 40, stamp("late", 12, 5), stamp("early", 11, 2), stamp("last", 13, 9)))
                .containsExactly("early", "last");
        assertThat(pick(9, 40, stamp("first", 12, 2), stamp("second", 11, 2), stamp("last", 13, 9)))
                .containsExactly("first", "last");
    }

    @Test
    void seededRandomHistoriesMatchTheRuleAsWritten() {
        Random random = new Random(0x5A1E5L);
        for (int round = 0; round < 2000; round++) {
            int n = random.nextInt(8);
            List<TimestampRecord> stored = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                stored.add(stamp("t" + i, 1 + random.nextInt(30), random.nextInt(20)));
            }
            long treeSize = 1 + random.nextInt(30);
            long lastLogIndex = random.nextInt(10) == 0 ? -1 : random.nextInt((int) treeSize);

            List<TimestampRecord> eligible = stored.stream().filter(r -> r.treeSize() <= treeSize).toList();
            List<String> expected = new ArrayList<>();
            if (!eligible.isEmpty()) {
                TimestampRecord latest = eligible.get(eligible.size() - 1);
                eligible.stream().filter(r -> lastLogIndex >= 0 && r.treeSize() > lastLogIndex)
                        .min(Comparator.comparing((TimestampRecord r) -> Instant.parse(r.timestamp())))
                        .filter(r -> r != latest).ifPresent(r -> expected.add(r.id()));
                expected.add(latest.id());
            }
            assertThat(pick(lastLogIndex, treeSize, stored.toArray(TimestampRecord[]::new)))
                    .as("round %d: %s, last index %d, tree %d", round, stored, lastLogIndex, treeSize)
                    .isEqualTo(expected);
        }
    }
}
