package io.trailproof.index;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The index's RAM buffer follows the heap instead of taking 128 MB of any heap. */
class IndexOptionsTest {

    private static final long MB = 1024 * 1024;

    @Test
    void theRamBufferIsASixteenthOfTheHeapWithinSixteenAnd128Megabytes() {
        assertThat(IndexOptions.fromHeap(128 * MB)).isEqualTo(16);
        assertThat(IndexOptions.fromHeap(256 * MB)).isEqualTo(16);
        assertThat(IndexOptions.fromHeap(512 * MB)).isEqualTo(32);
        assertThat(IndexOptions.fromHeap(1024 * MB)).isEqualTo(64);
        assertThat(IndexOptions.fromHeap(2048 * MB)).isEqualTo(128);
        assertThat(IndexOptions.fromHeap(32768 * MB)).isEqualTo(128);
    }

    @Test
    void aConfiguredSizeWinsAndZeroMeansFromTheHeap() {
        assertThat(IndexOptions.of(48).ramBufferMb()).isEqualTo(48);
        assertThat(IndexOptions.of(0).ramBufferMb()).isEqualTo(IndexOptions.fromHeap(Runtime.getRuntime().maxMemory()));
        assertThatThrownBy(() -> new IndexOptions(0, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
