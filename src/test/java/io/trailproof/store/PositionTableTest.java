package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The position table lets go of the pages wholly below a sealed segment's end, and keeps the rest. */
class PositionTableTest {

    @Test
    void letsGoOfWholePagesBelowTheBoundOnly() {
        PositionTable t = new PositionTable();
        long n = 3L * PositionTable.PAGE_ENTRIES + 10;
        t.reserve(n);
        for (long i = 0; i < n; i++) {
            t.set(i, 7 * i);
        }
        long sealedEnd = 2L * PositionTable.PAGE_ENTRIES + 5;   // the next segment starts inside page 2
        t.releaseBelow(sealedEnd);
        assertThat(t.get(0)).isEqualTo(-1);
        assertThat(t.get(2L * PositionTable.PAGE_ENTRIES - 1)).isEqualTo(-1);
        assertThat(t.get(2L * PositionTable.PAGE_ENTRIES)).isEqualTo(7 * 2L * PositionTable.PAGE_ENTRIES);
        assertThat(t.get(sealedEnd)).isEqualTo(7 * sealedEnd);
        assertThat(t.get(n - 1)).isEqualTo(7 * (n - 1));
        t.reserve(n + PositionTable.PAGE_ENTRIES);
        t.set(n, 1);
        assertThat(t.get(n)).isEqualTo(1);
        t.releaseBelow(sealedEnd);
        assertThat(t.get(sealedEnd)).isEqualTo(7 * sealedEnd);
    }
}
