package io.trailproof.mcp;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class MessageFramerTest {

    private final List<byte[]> lines = new ArrayList<>();
    private final List<Long> lengths = new ArrayList<>();

    private MessageFramer framer(int max) {
        return new MessageFramer(max, (bytes, length) -> {
            lines.add(bytes);
            lengths.add(length);
        });
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void severalMessagesInOneChunkAndABatchArrayAreSeparateLines() {
        MessageFramer f = framer(1024);
        byte[] chunk = utf8("{\"id\":1}\n[{\"id\":2},{\"id\":3}]\n{\"id\":4}\n");
        f.feed(chunk, 0, chunk.length);
        assertThat(lines).extracting(b -> new String(b, StandardCharsets.UTF_8))
                .containsExactly("{\"id\":1}", "[{\"id\":2},{\"id\":3}]", "{\"id\":4}");
    }

    @Test
    void aMessageSplitAcrossChunksAtEveryPositionIsOneMessageReportedAtItsClosingBrace() {
        byte[] message = utf8("{\"method\":\"tools/call\",\"params\":{\"name\":\"é☃ }\\\"{\"}}\n");
        for (int cut = 0; cut < message.length; cut++) {
            lines.clear();
            MessageFramer f = framer(1024);
            f.feed(message, 0, cut);
            // The value ends at its last closing brace, not at the newline after it.
            assertThat(lines).hasSize(cut >= message.length - 1 ? 1 : 0);
            f.feed(message, cut, message.length - cut);
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).isEqualTo(Arrays.copyOf(message, message.length - 1));
        }
    }

    @Test
    void randomChunkingGivesTheSameMessagesAsOneChunk() {
        Random random = new Random(20260101L);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<String> expected = new ArrayList<>();
        String[] pieces = {"{", "}", "[", "]", "\\\"", "\\\\", "x", "é", " ", "☃"};
        for (int i = 0; i < 300; i++) {
            String message;
            if (i % 7 == 3) {
                message = "text " + i; // not JSON: ends at its newline
            } else {
                StringBuilder text = new StringBuilder();
                int n = random.nextInt(i % 50 == 0 ? 20_000 : 30);
                for (int j = 0; j < n; j++) {
                    text.append(pieces[random.nextInt(pieces.length)]);
                }
                message = "{\"id\":" + i + ",\"params\":[{\"t\":\"" + text + "\"},[]]}";
            }
            expected.add(message);
            stream.writeBytes(utf8(message));
            // (text that is not JSON is a line: the whitespace before its newline is its own)
            stream.writeBytes(utf8(i % 7 == 3 || random.nextBoolean() ? "\n" : " \r\n\n"));
        }
        byte[] all = stream.toByteArray();
        MessageFramer f = framer(1 << 20);
        int at = 0;
        while (at < all.length) {
            int n = Math.min(all.length - at, 1 + random.nextInt(random.nextBoolean() ? 10 : 70_000));
            f.feed(all, at, n);
            at += n;
        }
        f.finish();
        assertThat(lines).extracting(b -> new String(b, StandardCharsets.UTF_8)).containsExactlyElementsOf(expected);
    }

    @Test
    void twoValuesOnOneLineAreTwoMessagesAndABrokenValueOrAScalarEndsAtTheNewline() {
        MessageFramer f = framer(1024);
        byte[] chunk = utf8("{\"id\":1}{\"id\":2}\n{\"id\":\"cut\n42\n  [1,{\"a\":\"]\"}]");
        f.feed(chunk, 0, chunk.length);
        assertThat(lines).extracting(b -> new String(b, StandardCharsets.UTF_8))
                .containsExactly("{\"id\":1}", "{\"id\":2}", "{\"id\":\"cut", "42", "[1,{\"a\":\"]\"}]");
    }

    @Test
    void aLargeLineOfSeveralMegabytesIsKeptWhole() {
        byte[] big = utf8("{\"result\":\"" + "x".repeat(5 << 20) + "\"}\n");
        MessageFramer f = framer(32 << 20);
        for (int at = 0; at < big.length; at += 65_536) {
            f.feed(big, at, Math.min(65_536, big.length - at));
        }
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).hasSize(big.length - 1);
    }

    @Test
    void aLineLongerThanTheLimitIsReportedWithItsLengthButNotKept() {
        MessageFramer f = framer(100);
        byte[] chunk = utf8("x".repeat(250) + "\n{\"id\":1}\n");
        f.feed(chunk, 0, 120);
        f.feed(chunk, 120, chunk.length - 120);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isNull();
        assertThat(lengths.get(0)).isEqualTo(250L);
        assertThat(new String(lines.get(1), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");

        // A value too long to keep is still followed to its end: the message after it is whole.
        byte[] value = utf8("{\"a\":\"" + "}".repeat(250) + "\"}{\"id\":2}");
        f.feed(value, 0, value.length);
        assertThat(lines).hasSize(4);
        assertThat(lines.get(2)).isNull();
        assertThat(lengths.get(2)).isEqualTo(value.length - 8L);
        assertThat(new String(lines.get(3), StandardCharsets.UTF_8)).isEqualTo("{\"id\":2}");
    }

    @Test
    void aMessageEndsAtItsValueNotItsCrlfAndAnUnfinishedLastOneComesAtTheEnd() {
        MessageFramer f = framer(100);
        byte[] chunk = utf8("{\"id\":1}\r\n{\"id\":2");
        f.feed(chunk, 0, chunk.length);
        assertThat(lines).hasSize(1);
        assertThat(new String(lines.get(0), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");
        f.finish();
        assertThat(new String(lines.get(1), StandardCharsets.UTF_8)).isEqualTo("{\"id\":2");
    }

    @Test
    void blankLinesAreNoMessagesAndNothingPendingAtTheEndIsNothing() {
        MessageFramer f = framer(100);
        byte[] chunk = utf8("\n \r\n\t\n");
        f.feed(chunk, 0, chunk.length);
        f.finish();
        assertThat(lines).isEmpty();
    }
}
