package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link PackedPositions} against a plain array, on seeded random lists of every shape of gap. */
class PackedPositionsTest {

    @Test
    void answersAsAPlainArrayOnRandomLists() {
        for (long seed = 1; seed <= 60; seed++) {
            Random r = new Random(seed);
            int n = r.nextInt(seed % 3 == 0 ? 10 : 700);
            long[] plain = ascending(r, n);
            PackedPositions p = new PackedPositions();
            int split = n == 0 ? 0 : r.nextInt(n + 1);
            p.addAll(plain, 0, split);
            for (int i = split; i < n; i++) {
                p.add(plain[i]);
            }
            String at = "seed " + seed + ", " + n + " positions";
            assertThat(p.size()).as(at).isEqualTo(n);
            for (int i = 0; i < n; i++) {
                assertThat(p.get(i)).as(at + ", get " + i).isEqualTo(plain[i]);
            }
            if (n > 0) {
                assertThat(p.last()).as(at).isEqualTo(plain[n - 1]);
            }
            for (int k = 0; k < 40; k++) {
                int from = r.nextInt(n + 1);
                int to = from + r.nextInt(n - from + 1);
                assertThat(p.toArray(from, to)).as(at + ", " + from + ".." + to)
                        .isEqualTo(Arrays.copyOfRange(plain, from, to));
                long bound = n == 0 ? r.nextInt(5) : plain[r.nextInt(n)] + r.nextInt(3) - 1;
                assertThat(p.countBelow(bound)).as(at + ", below " + bound).isEqualTo(countBelow(plain, bound));
            }
            assertThat(p.countBelow(Long.MAX_VALUE)).isEqualTo(n);
            assertThat(p.countBelow(0)).isZero();
        }
    }

    @Test
    void keepsGapsUnder16384InAboutTwoAndAHalfBytes() {
        PackedPositions p = new PackedPositions();
        long v = 0;
        for (int i = 0; i < 100_000; i++) {
            v += 500 + (i % 7);
            p.add(v);
        }
        assertThat(p.heapBytes() / 100_000.0).isLessThan(2.6);
        assertThat(p.get(99_999)).isEqualTo(v);
    }

    @Test
    void refusesAPositionThatDoesNotAscend() {
        PackedPositions p = PackedPositions.of(new long[] {0, 5}, 0, 2);
        assertThatThrownBy(() -> p.add(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PackedPositions().add(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.get(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new PackedPositions().last()).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(p.size()).isEqualTo(2);
    }

    /** Gaps of 1, of a few hundred, of a few million and up to 2^56, mixed in runs. */
    private static long[] ascending(Random r, int n) {
        long[] a = new long[n];
        long v = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            a[i] = v;
            long gap = switch (r.nextInt(4)) {
                case 0 -> 1;
                case 1 -> 1 + r.nextInt(600);
                case 2 -> 1 + r.nextInt(5_000_000);
                default -> 1 + (r.nextLong() >>> 8) % (1L << 40);
            };
            v += gap;
        }
        return a;
    }

    private static int countBelow(long[] a, long bound) {
        int n = 0;
        for (long x : a) {
            n += x < bound ? 1 : 0;
        }
        return n;
    }
}
