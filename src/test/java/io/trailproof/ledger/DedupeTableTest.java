package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import io.trailproof.testing.HandClock;
import org.junit.jupiter.api.Test;

class DedupeTableTest {

    private final HandClock clock = new HandClock("2026-11-22T10:00:00Z");

    private static DedupeKey key(String scope, String path, String k) {
        return DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, scope, path, k);
    }

    private static byte[] body(String s) {
        return DedupeKey.contentDigest(s.getBytes());
    }

    private DedupeTable.Claim fresh(DedupeTable t, DedupeKey k, byte[] content) {
        DedupeTable.Lookup l = t.claim(k, content);
        assertThat(l).isInstanceOf(DedupeTable.Fresh.class);
        return ((DedupeTable.Fresh) l).claim();
    }

    @Test
    void claimThenRecordThenReplayConflictAndInFlight() {
        DedupeTable t = new DedupeTable(Duration.ofHours(24), 100, clock);
        DedupeKey k = key("", "/v1/batch", "k1");
        DedupeTable.Claim c = fresh(t, k, body("a"));
        assertThat(t.claim(k, body("a"))).isInstanceOf(DedupeTable.InFlight.class);
        assertThat(t.claim(k, body("b"))).isInstanceOf(DedupeTable.Conflict.class);
        t.recorded(c, 42, clock.millis());
        c.release();   // after recording: nothing happens
        assertThat(t.claim(k, body("a"))).isEqualTo(new DedupeTable.Recorded(42));
        assertThat(t.claim(k, body("b"))).isInstanceOf(DedupeTable.Conflict.class);
        assertThat(t.size()).isEqualTo(1);
        assertThat(t.inFlight()).isZero();
    }

    @Test
    void aReleasedClaimRecordsNothing() {
        DedupeTable t = new DedupeTable(Duration.ofHours(24), 100, clock);
        DedupeKey k = key("", "/v1/batch", "k1");
        fresh(t, k, body("bad")).release();
        DedupeTable.Claim again = fresh(t, k, body("good"));
        t.recorded(again, 7, clock.millis());
        assertThat(t.claim(k, body("good"))).isEqualTo(new DedupeTable.Recorded(7));
    }

    @Test
    void scopesAndPathsAndNamespacesAreSeparateKeys() {
        DedupeTable t = new DedupeTable(Duration.ofHours(24), 100, clock);
        DedupeTable.Claim c = fresh(t, key("alice", "/v1/batch", "k"), body("a"));
        t.recorded(c, 1, clock.millis());
        fresh(t, key("bob", "/v1/batch", "k"), body("a"));
        fresh(t, key("alice", "/v1/events", "k"), body("a"));
        fresh(t, DedupeKey.of(DedupeRecord.OTLP_SPAN, "alice", "/v1/batch", "k"), body("a"));
        // concatenation does not collide: ("ab", "c") is not ("a", "bc")
        fresh(t, DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "ab", "c", "k"), body("a"));
        fresh(t, DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "a", "bc", "k"), body("a"));
    }

    @Test
    void aKeyIsForgottenAfterRetentionAndCanBeRecordedAnew() {
        DedupeTable t = new DedupeTable(Duration.ofHours(24), 100, clock);
        DedupeKey k = key("", "/v1/batch", "k");
        t.recorded(fresh(t, k, body("a")), 1, clock.millis());
        clock.now = clock.now.plusMillis(Duration.ofHours(24).toMillis() - 1);
        assertThat(t.claim(k, body("a"))).isEqualTo(new DedupeTable.Recorded(1));
        clock.now = clock.now.plusMillis(1);
        DedupeTable.Claim again = fresh(t, k, body("other body, now allowed"));
        t.recorded(again, 2, clock.millis());
        assertThat(t.claim(k, body("other body, now allowed"))).isEqualTo(new DedupeTable.Recorded(2));
        assertThat(t.size()).isEqualTo(1);
    }

    @Test
    void beyondMaxKeysTheOldestAreForgottenFirst() {
        DedupeTable t = new DedupeTable(Duration.ofHours(24), 3000, clock);
        for (int i = 0; i < 5000; i++) {
            t.recorded(fresh(t, key("", "/v1/batch", "k" + i), body("b" + i)), i, clock.millis());
            clock.now = clock.now.plusMillis(1);
        }
        assertThat(t.size()).isEqualTo(3000);
        for (int i = 0; i < 2000; i++) {
            DedupeTable.Lookup l = t.claim(key("", "/v1/batch", "k" + i), body("b" + i));
            assertThat(l).as("k" + i).isInstanceOf(DedupeTable.Fresh.class);
            ((DedupeTable.Fresh) l).claim().release();
        }
        for (int i = 2000; i < 5000; i++) {
            assertThat(t.claim(key("", "/v1/batch", "k" + i), body("b" + i))).as("k" + i)
                    .isEqualTo(new DedupeTable.Recorded(i));
        }
    }

    @Test
    void restoreSkipsRecordsBeyondRetentionAndKeepsTheNewestOfAKey() {
        DedupeTable t = new DedupeTable(Duration.ofHours(1), 100, clock);
        DedupeKey old = key("", "/v1/batch", "old");
        DedupeKey k = key("", "/v1/batch", "k");
        long now = clock.millis();
        t.restore(new DedupeRecord(DedupeRecord.IDEMPOTENCY_KEY, old.digest(), body("x"), now - 3_600_000, new byte[0]), 1);
        t.restore(new DedupeRecord(DedupeRecord.IDEMPOTENCY_KEY, k.digest(), body("x"), now - 1000, new byte[0]), 2);
        t.restore(new DedupeRecord(DedupeRecord.IDEMPOTENCY_KEY, k.digest(), body("y"), now - 10, new byte[0]), 3);
        assertThat(t.claim(old, body("x"))).isInstanceOf(DedupeTable.Fresh.class);
        assertThat(t.claim(k, body("y"))).isEqualTo(new DedupeTable.Recorded(3));
        assertThat(t.claim(k, body("x"))).isInstanceOf(DedupeTable.Conflict.class);
    }

    @Test
    void oneMillionKeysAndTheHeapTheyHold() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long before = rt.totalMemory() - rt.freeMemory();
        DedupeTable t = new DedupeTable(Duration.ofHours(24), 1_000_000, clock);
        byte[] content = body("same");
        for (int i = 0; i < 1_000_000; i++) {
            DedupeKey k = key("scope", "/v1/batch", "key-" + i);
            t.restore(new DedupeRecord(DedupeRecord.IDEMPOTENCY_KEY, k.digest(), content, clock.millis(), new byte[0]), i);
        }
        System.gc();
        long after = rt.totalMemory() - rt.freeMemory();
        assertThat(t.size()).isEqualTo(1_000_000);
        System.out.printf("DedupeTable: 1,000,000 keys hold about %.1f MB of heap (%.1f bytes a key)%n",
                (after - before) / 1e6, (after - before) / 1e6);
        assertThat(t.claim(key("scope", "/v1/batch", "key-999999"), content)).isEqualTo(new DedupeTable.Recorded(999_999));
    }
}
