package io.trailproof.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

    @Test
    void layoutFollowsRfc9562() {
        byte[] random = new byte[10];
        Arrays.fill(random, (byte) 0xFF);
        String id = UuidV7.create(0x0190_1234_5678L, random);
        assertThat(id).isEqualTo("01901234-5678-7fff-bfff-ffffffffffff");

        UUID uuid = UUID.fromString(id);
        assertThat(uuid.version()).isEqualTo(7);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(uuid.getMostSignificantBits() >>> 16).isEqualTo(0x0190_1234_5678L);
    }

    @Test
    void randomBitsLandInRandAAndRandB() {
        byte[] random = {0x01, 0x23, 0x45, 0x67, (byte) 0x89, (byte) 0xAB, (byte) 0xCD, (byte) 0xEF, 0x01, 0x23};
        assertThat(UuidV7.create(0, random)).isEqualTo("00000000-0000-7123-8567-89abcdef0123");
    }

    @Test
    void versionAndVariantAreSetForAnyRandomness() {
        Random r = new Random(42);
        for (int i = 0; i < 1000; i++) {
            byte[] random = new byte[10];
            r.nextBytes(random);
            String id = UuidV7.create(r.nextLong() >>> 16, random);
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(7);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(id).isEqualTo(id.toLowerCase()).hasSize(36);
        }
    }

    @Test
    void idsSortByMillisecondsAsText() {
        Random r = new Random(7);
        List<String> ids = new ArrayList<>();
        for (long ms = 1_700_000_000_000L; ms < 1_700_000_000_000L + 5000; ms += 1 + r.nextInt(50)) {
            byte[] random = new byte[10];
            r.nextBytes(random);
            ids.add(UuidV7.create(ms, random));
        }
        List<String> sorted = new ArrayList<>(ids);
        sorted.sort(null);
        assertThat(sorted).isEqualTo(ids);
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> UuidV7.create(-1, new byte[10])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UuidV7.create(1L << 48, new byte[10])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UuidV7.create(0, new byte[9])).isInstanceOf(IllegalArgumentException.class);
    }
}
