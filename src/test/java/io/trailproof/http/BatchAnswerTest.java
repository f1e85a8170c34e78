package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A replayed batch answer is written from views of the log's read buffer as the events are read
 * back; a fresh one from the events in memory. Both must be the same bytes for every mix of stored
 * and refused items (src/site/ingestion.md#idempotency: a replay is byte for byte the first answer).
 */
class BatchAnswerTest {

    @Test
    void viewsReadBackGiveTheSameBytesAsTheEventsInMemoryForEveryMix() throws Exception {
        Random rnd = new Random(12);
        for (int round = 0; round < 300; round++) {
            int n = rnd.nextInt(40);
            String[] errors = new String[n];
            List<byte[]> stored = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (rnd.nextInt(4) == 0) {
                    errors[i] = "item " + i + ": \"action_type\" is required";
                } else {
                    // sizes around the generator's 8,000-byte buffer, so some views do not fit what is left of it
                    String pad = "x".repeat(rnd.nextInt(rnd.nextBoolean() ? 200 : 9000));
                    stored.add(("{\"i\":" + i + ",\"pad\":\"" + pad + "\"}").getBytes(StandardCharsets.UTF_8));
                }
            }
            byte[] fresh = BatchAnswer.write(errors, stored).toByteArray();
            // the views: each event inside a larger reused buffer, at an offset, as the log's scanner hands them
            byte[] shared = new byte[20_000];
            byte[] replayed = BatchAnswer.write(errors, 64, visitor -> {
                for (int j = 0; j < stored.size(); j++) {
                    byte[] e = stored.get(j);
                    Arrays.fill(shared, (byte) '#');
                    System.arraycopy(e, 0, shared, 7, e.length);
                    visitor.accept(j, shared, 7, e.length);
                }
            }).toByteArray();
            assertThat(replayed).isEqualTo(fresh);
            JsonNode answer = new ObjectMapper().readTree(fresh);
            assertThat(answer.size()).isEqualTo(n);
            for (int i = 0; i < n; i++) {
                assertThat(answer.get(i).get("index").asInt()).isEqualTo(i);
                assertThat(answer.get(i).has("error")).isEqualTo(errors[i] != null);
            }
        }
    }

    @Test
    void fewerEventsReadBackThanTheAnswerNamesIsAnErrorNotAShortAnswer() {
        String[] errors = {null, "refused", null};
        assertThatThrownBy(() -> BatchAnswer.write(errors, 64,
                visitor -> visitor.accept(0, "{\"a\":1}".getBytes(StandardCharsets.UTF_8), 0, 7)))
                .hasMessageContaining("more stored items");
    }
}
