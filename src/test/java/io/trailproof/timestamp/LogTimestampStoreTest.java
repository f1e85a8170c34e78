package io.trailproof.timestamp;

import io.trailproof.core.timestamp.TimestampRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LogTimestampStoreTest {

    @TempDir
    Path dir;

    private static TimestampRecord stamp(String id, long size) {
        return new TimestampRecord(id, "00".repeat(32), size, "tsa.example", "http://tsa.example/",
                "2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", "01", "1.2.3", "SHA-256", "02", "AA==", List.of());
    }

    /** Cluster mode: a crash between the store's append and the position frame applies the record again. */
    @Test
    void appendOnceSkipsARecordThatIsAlreadyTheNewestAlsoAfterAReopen() throws Exception {
        try (LogTimestampStore store = LogTimestampStore.open(dir)) {
            assertThat(store.appendOnce(stamp("a", 1))).isTrue();
            assertThat(store.appendOnce(stamp("a", 1))).isFalse();
            assertThat(store.appendOnce(stamp("b", 2))).isTrue();
            assertThat(store.size()).isEqualTo(2);
        }
        try (LogTimestampStore store = LogTimestampStore.open(dir)) {
            assertThat(store.appendOnce(stamp("b", 2))).isFalse();
            assertThat(store.size()).isEqualTo(2);
            assertThat(store.newestFirst(0, 10)).extracting(TimestampRecord::id).containsExactly("b", "a");
        }
    }
}
