package io.trailproof.mcp;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class LineFramerTest {

    private final List<byte[]> lines = new ArrayList<>();
    private final List<Long> lengths = new ArrayList<>();

    private LineFramer framer(int max) {
        return new LineFramer(max, (bytes, length) -> {
            lines.add(bytes);
            lengths.add(length);
        });
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void severalMessagesInOneChunkAndABatchArrayAreSeparateLines() {
        LineFramer f = framer(1024);
        byte[] chunk = utf8("{\"id\":1}\n[{\"id\":2},{\"id\":3}]\n{\"id\":4}\n");
        f.feed(chunk, 0, chunk.length);
        assertThat(lines).extracting(b -> new String(b, StandardCharsets.UTF_8))
                .containsExactly("{\"id\":1}", "[{\"id\":2},{\"id\":3}]", "{\"id\":4}");
    }

    @Test
    void aMessageSplitAcrossChunksAtEveryPositionIsOneLine() {
        byte[] message = utf8("{\"method\":\"tools/call\",\"params\":{\"name\":\"é☃\"}}\n");
        for (int cut = 0; cut < message.length; cut++) {
            lines.clear();
            LineFramer f = framer(1024);
            f.feed(message, 0, cut);
            assertThat(lines).isEmpty();
            f.feed(message, cut, message.length - cut);
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).isEqualTo(Arrays.copyOf(message, message.length - 1));
        }
    }

    @Test
    void randomChunkingGivesTheSameLinesAsOneChunk() {
        Random random = new Random(20260101L);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            byte[] line = new byte[random.nextInt(i % 50 == 0 ? 200_000 : 300)];
            for (int j = 0; j < line.length; j++) {
                byte b;
                do {
                    b = (byte) random.nextInt(256);
                } while (b == '\n');
                line[j] = b;
            }
            expected.add(line);
            stream.writeBytes(line);
            stream.write('\n');
        }
        byte[] all = stream.toByteArray();
        LineFramer f = framer(1 << 20);
        int at = 0;
        while (at < all.length) {
            int n = Math.min(all.length - at, 1 + random.nextInt(random.nextBoolean() ? 10 : 70_000));
            f.feed(all, at, n);
            at += n;
        }
        f.finish();
        assertThat(lines).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(lines.get(i)).as("line %d", i).isEqualTo(expected.get(i));
        }
    }

    @Test
    void aLargeLineOfSeveralMegabytesIsKeptWhole() {
        byte[] big = utf8("{\"result\":\"" + "x".repeat(5 << 20) + "\"}\n");
        LineFramer f = framer(32 << 20);
        for (int at = 0; at < big.length; at += 65_536) {
            f.feed(big, at, Math.min(65_536, big.length - at));
        }
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).hasSize(big.length - 1);
    }

    @Test
    void aLineLongerThanTheLimitIsReportedWithItsLengthButNotKept() {
        LineFramer f = framer(100);
        byte[] chunk = utf8("x".repeat(250) + "\n{\"id\":1}\n");
        f.feed(chunk, 0, 120);
        f.feed(chunk, 120, chunk.length - 120);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isNull();
        assertThat(lengths.get(0)).isEqualTo(250L);
        assertThat(new String(lines.get(1), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");
    }

    @Test
    void crlfKeepsTheCarriageReturnAndALastLineWithoutNewlineComesAtTheEnd() {
        LineFramer f = framer(100);
        byte[] chunk = utf8("{\"id\":1}\r\n{\"id\":2}");
        f.feed(chunk, 0, chunk.length);
        assertThat(lines).hasSize(1);
        assertThat(new String(lines.get(0), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}\r");
        f.finish();
        assertThat(new String(lines.get(1), StandardCharsets.UTF_8)).isEqualTo("{\"id\":2}");
    }

    @Test
    void emptyLinesAreReportedAsEmptyAndNothingPendingAtTheEndIsNothing() {
        LineFramer f = framer(100);
        byte[] chunk = utf8("\n\n");
        f.feed(chunk, 0, chunk.length);
        f.finish();
        assertThat(lines).hasSize(2).allSatisfy(b -> assertThat(b).isEmpty());
    }
}
