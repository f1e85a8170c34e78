package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResponsesTest {

    /** Seeded-random writes of every size: the chunks hold the bytes in order, none over the chunk size. */
    @Test
    void chunksHoldWhatWasWrittenInOrderAndStaySmall() {
        Random random = new Random(19);
        for (int run = 0; run < 200; run++) {
            int expected = random.nextInt(2 * Responses.Chunks.CHUNK_BYTES);
            Responses.Chunks out = new Responses.Chunks(expected);
            ByteArrayOutputStream reference = new ByteArrayOutputStream();
            int writes = random.nextInt(60);
            for (int w = 0; w < writes; w++) {
                if (random.nextInt(4) == 0) {
                    int b = random.nextInt(256);
                    out.write(b);
                    reference.write(b);
                } else {
                    byte[] bytes = new byte[random.nextInt(3 * Responses.Chunks.CHUNK_BYTES / 2)];
                    random.nextBytes(bytes);
                    int off = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
                    int len = bytes.length - off;
                    out.write(bytes, off, len);
                    reference.write(bytes, off, len);
                }
            }
            ByteArrayOutputStream joined = new ByteArrayOutputStream();
            for (ByteBuffer chunk : out.written()) {
                assertThat(chunk.remaining()).isLessThanOrEqualTo(Responses.Chunks.CHUNK_BYTES);
                byte[] b = new byte[chunk.remaining()];
                chunk.get(b);
                joined.writeBytes(b);
            }
            assertThat(joined.toByteArray()).as("run %d", run).isEqualTo(reference.toByteArray());
        }
    }

    @Test
    void aJsonAnswerWrittenInChunksIsTheSameDocument() throws Exception {
        String text = "x".repeat(1000);
        Responses.Written written = Responses.write(10, g -> {
            g.writeStartArray();
            for (int i = 0; i < 600; i++) {
                g.writeString(text);
            }
            g.writeEndArray();
        });
        assertThat(Responses.MAPPER.readTree(written.toByteArray()).size()).isEqualTo(600);
        assertThat(written.takeForSending().length).isGreaterThan(4);
    }

    @Test
    void chunksGivenBackAfterASendCarryNothingOfTheirAnswerIntoTheNextAndAnAnswerIsSentOnce() throws Exception {
        Random random = new Random(5);
        for (int round = 0; round < 20; round++) {
            int n = 100 + random.nextInt(400);
            String text = String.valueOf((char) ('a' + round)).repeat(1000 + random.nextInt(500));
            Responses.Written written = Responses.write(200_000, g -> {
                g.writeStartArray();
                for (int i = 0; i < n; i++) {
                    g.writeString(text);
                }
                g.writeEndArray();
            });
            JsonNode doc = Responses.MAPPER.readTree(written.toByteArray());
            assertThat(doc.size()).isEqualTo(n);
            doc.forEach(v -> assertThat(v.asText()).isEqualTo(text));
            ByteBuffer[] sent = written.takeForSending();
            assertThatThrownBy(written::takeForSending).isInstanceOf(IllegalStateException.class);
            Responses.Chunks.giveBack(sent);   // as the send's callback does
        }
    }
}
