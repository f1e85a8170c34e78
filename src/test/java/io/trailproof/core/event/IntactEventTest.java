package io.trailproof.core.event;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The fast check must agree with the full one: never intact when the full check finds a mismatch. */
class IntactEventTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static StoredEvent sealed(Random random, long index) throws Exception {
        ObjectNode fields = JSON.createObjectNode().put("agent_id", "agent-" + random.nextInt(3));
        fields.put("action_name", "step " + random.nextInt(1000));
        ObjectNode input = fields.putObject("action_input");
        input.put("hash", "nested fields named hash or log_index are not the event's");
        input.put("log_index", random.nextInt());
        input.putArray("list").add(random.nextDouble()).add("é😀\n");
        if (random.nextBoolean()) {
            fields.putObject("labels").put("env", "prod");
        }
        return StoredEvent.seal(fields, "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f0" + (index % 10),
                "2026-11-22T00:00:00.000001Z", 1 + index, "ab".repeat(32), index);
    }

    @Test
    void intactEventsPassWithTheFieldsTheHashCovers() throws Exception {
        Random random = new Random(11);
        for (int i = 0; i < 500; i++) {
            StoredEvent e = sealed(random, i);
            IntactEvent fast = IntactEvent.check(e.payload()).orElseThrow();
            assertThat(fast.hash()).isEqualTo(e.hash());
            assertThat(fast.sequence()).isEqualTo(e.sequence());
            assertThat(fast.prevHash()).isEqualTo(e.prevHash());
            assertThat(fast.agentId()).isEqualTo(e.agentId());
            assertThat(fast.logIndex()).isEqualTo(e.logIndex());
            assertThat(fast.id()).isEqualTo(e.id());
            assertThat(fast.recordedAt()).isEqualTo(e.recordedAt());
            assertThat(fast.hashBytes()).isEqualTo(e.hashBytes());
        }
    }

    @Test
    void everySingleByteChangeIsEitherRefusedOrHarmlessToTheHashedContent() throws Exception {
        Random random = new Random(12);
        StoredEvent e = sealed(random, 7);
        byte[] original = e.payload();
        int hashStart = new String(original, StandardCharsets.UTF_8).indexOf("\"hash\":\"");
        for (int pos = 0; pos < original.length; pos++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] changed = Arrays.copyOf(original, original.length);
                changed[pos] ^= (byte) (1 << bit);
                Optional<IntactEvent> fast = IntactEvent.check(changed);
                if (fast.isEmpty()) {
                    continue;
                }
                // Accepted: the bytes that were hashed are untouched, so only log_index can have changed.
                assertThat(fast.get().hash()).isEqualTo(e.hash());
                assertThat(pos < hashStart || pos > hashStart + 75).as("position " + pos).isTrue();
                StoredEvent full = StoredEvent.parse(changed);
                assertThat(HexFormat.of().formatHex(full.recomputeHash())).isEqualTo(full.hash());
            }
        }
    }

    @Test
    void aRehashedEditIsIntactSoTheChainMustCatchIt() throws Exception {
        StoredEvent e = sealed(new Random(13), 3);
        ObjectNode edited = e.json();
        edited.put("action_name", "forged");
        edited.put("hash", EventHash.toHex(EventHash.of(edited)));
        byte[] payload = Rfc8785.canonicalize(edited);
        assertThat(IntactEvent.check(payload)).isPresent();
    }

    @Test
    void notCanonicalOrNotJsonFallsBackToTheFullCheck() {
        assertThat(IntactEvent.check("{not json".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(IntactEvent.check("[]".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(IntactEvent.check("{}".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }
}
