package io.trailproof.ledger;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LogRangesTest {

    @Test
    void holdsDistinctIndexesAsRangesAndVisitsThemInBoundedChunks() throws Exception {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            long[] indexes = new long[random.nextInt(300)];
            TreeSet<Long> expected = new TreeSet<>();
            for (int i = 0; i < indexes.length; i++) {
                indexes[i] = random.nextInt(random.nextBoolean() ? 40 : 400);
                expected.add(indexes[i]);
            }
            LogRanges ranges = LogRanges.of(indexes);
            assertThat(ranges.count()).isEqualTo(expected.size());
            assertThat(ranges.toArray()).containsExactly(expected.stream().mapToLong(Long::longValue).toArray());
            for (int r = 0; r + 1 < ranges.rangeCount(); r++) {
                assertThat(ranges.first(r + 1)).as("ranges apart").isGreaterThan(ranges.last(r) + 1);
            }
            int max = 1 + random.nextInt(50);
            List<Long> visited = new ArrayList<>();
            ranges.forEachChunk(max, (chunk, n) -> {
                assertThat(n).isBetween(1, max);
                for (int k = 0; k < n; k++) {
                    visited.add(chunk[k]);
                }
            });
            assertThat(visited).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aMillionConsecutiveIndexesAreOneRange() {
        LogRanges ranges = new LogRanges.Builder().addRange(0, 999_999).add(1_000_000).add(1_000_002).build();
        assertThat(ranges.count()).isEqualTo(1_000_002);
        assertThat(ranges.rangeCount()).isEqualTo(2);
        assertThat(ranges.toString()).isEqualTo("[[0, 1000000], [1000002, 1000002]]");
        assertThatThrownBy(() -> new LogRanges.Builder().add(5).add(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogRanges.Builder().addRange(3, 2)).isInstanceOf(IllegalArgumentException.class);
    }
}
