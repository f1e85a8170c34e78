package io.trailproof.http;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

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
        ByteBuffer[] chunks = Responses.write(10, g -> {
            g.writeStartArray();
            for (int i = 0; i < 600; i++) {
                g.writeString(text);
            }
            g.writeEndArray();
        });
        assertThat(chunks.length).isGreaterThan(4);
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (ByteBuffer c : chunks) {
            byte[] b = new byte[c.remaining()];
            c.get(b);
            joined.writeBytes(b);
        }
        assertThat(Responses.MAPPER.readTree(joined.toByteArray()).size()).isEqualTo(600);
    }
}
