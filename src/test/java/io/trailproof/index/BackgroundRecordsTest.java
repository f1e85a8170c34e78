package io.trailproof.index;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a read waits for when the service's own records are in the log: every event up to the last
 * one that is not such a record, checked against a reference that looks at each position.
 */
class BackgroundRecordsTest {

    @Test
    void aReadDoesNotWaitForTheServicesOwnRecordsAtTheEndOfTheLog() {
        BackgroundRecords r = new BackgroundRecords(() -> { });
        assertThat(r.readTarget(10)).isEqualTo(10);
        r.add(10, 11, 12);
        assertThat(r.readTarget(13)).isEqualTo(10);
        // A client's event after them: the read waits for it, and so for everything before it.
        assertThat(r.readTarget(14)).isEqualTo(14);
        r.add(14);
        assertThat(r.readTarget(15)).isEqualTo(14); // 13 is not the service's own
        r.add(13);
        assertThat(r.readTarget(15)).isEqualTo(10);
        assertThat(r.readTarget(11)).isEqualTo(10);
        assertThat(r.readTarget(5)).isEqualTo(5);
    }

    @Test
    void positionsToldOutOfOrderJoinIntoOneRun() {
        BackgroundRecords r = new BackgroundRecords(() -> { });
        r.add(22);
        r.add(20);
        assertThat(r.readTarget(23)).isEqualTo(22);
        r.add(21);
        assertThat(r.readTarget(23)).isEqualTo(20);
        r.add(21, 22);
        assertThat(r.readTarget(23)).isEqualTo(20);
        assertThat(r.start()).isEqualTo(20);
        assertThat(r.end()).isEqualTo(23);
    }

    @Test
    void recordsSearchableAreForgottenAndNoLongerLeftOut() {
        BackgroundRecords r = new BackgroundRecords(() -> { });
        r.add(3, 4, 5, 6, 9);
        r.searchableUpTo(5);
        assertThat(r.start()).isEqualTo(5);
        assertThat(r.readTarget(7)).isEqualTo(5);
        r.searchableUpTo(10);
        assertThat(r.start()).isEqualTo(Long.MAX_VALUE);
        assertThat(r.end()).isZero();
        assertThat(r.readTarget(10)).isEqualTo(10);
    }

    @Test
    void everyAddTellsTheWaitingReadsOnce() {
        AtomicInteger told = new AtomicInteger();
        BackgroundRecords r = new BackgroundRecords(told::incrementAndGet);
        r.add(1, 2, 3);
        r.add(7);
        assertThat(told).hasValue(2);
    }

    @Test
    void readTargetMatchesAReferenceOverRandomLogs() {
        Random random = new Random(20261202L);
        for (int round = 0; round < 200; round++) {
            int size = 1 + random.nextInt(60);
            BitSet own = new BitSet();
            List<Long> told = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                if (random.nextInt(3) == 0) {
                    own.set(i);
                    told.add((long) i);
                }
            }
            Collections.shuffle(told, random);
            BackgroundRecords r = new BackgroundRecords(() -> { });
            told.forEach(r::add);
            int searchable = random.nextInt(size + 1);
            r.searchableUpTo(searchable);
            for (int readable = 0; readable <= size; readable++) {
                // Reference: step back over the service's own records at the end, down to what is searchable
                // (those below it are forgotten: no read waits for them either way).
                int expected = readable;
                while (expected > searchable && own.get(expected - 1)) {
                    expected--;
                }
                assertThat(r.readTarget(readable)).as("round %d, readable %d", round, readable).isEqualTo(expected);
            }
        }
    }
}
