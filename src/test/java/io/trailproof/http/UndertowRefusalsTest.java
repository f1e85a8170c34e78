package io.trailproof.http;

import io.undertow.server.handlers.HostHeaderHandler;
import org.junit.jupiter.api.Test;
import org.xnio.conduits.StreamSinkConduit;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conduit under every connection's output: Undertow's bare 400s (the parser's, the Host check's)
 * are replaced by the service's answer, also when the connection takes only a few bytes per write;
 * everything else passes as it is.
 */
class UndertowRefusalsTest {

    /** A connection's output that takes at most {@code perWrite} bytes per call and keeps them. */
    private static StreamSinkConduit sink(ByteArrayOutputStream out, int perWrite) {
        return (StreamSinkConduit) Proxy.newProxyInstance(StreamSinkConduit.class.getClassLoader(),
                new Class<?>[] {StreamSinkConduit.class}, (proxy, method, args) -> {
                    if (method.getName().equals("write") && args.length == 1 && args[0] instanceof ByteBuffer b) {
                        int n = Math.min(perWrite, b.remaining());
                        byte[] taken = new byte[n];
                        b.get(taken);
                        out.write(taken);
                        return n;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes {@code original} as Undertow does (until all of it is reported written) and returns what went out. */
    private static String writeAll(byte[] original, int perWrite) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        UndertowRefusals c = new UndertowRefusals(sink(out, perWrite), () -> "0badc0de-7");
        ByteBuffer b = ByteBuffer.wrap(original);
        int calls = 0;
        while (b.hasRemaining()) {
            int n = c.write(b);
            assertThat(n == 0 || n == original.length && !b.hasRemaining())
                    .as("nothing or all of the original reported written").isTrue();
            assertThat(++calls).isLessThan(10_000);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }

    private static void assertServiceAnswer(String answer, String message) {
        assertThat(answer).startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("\r\nContent-Type: application/json\r\n", "\r\nCache-Control: no-store\r\n",
                        "\r\nX-Request-Id: 0badc0de-7\r\n", "\r\nConnection: close\r\n")
                .endsWith("\r\n\r\n{\"error\":\"" + message + "\"}");
        String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        assertThat(answer).contains("\r\nContent-Length: " + body.length() + "\r\n");
    }

    @Test
    void theParsersAnswerIsReplacedWholeEvenAFewBytesAtATime() throws Exception {
        for (int perWrite : new int[] {1, 7, 100, 100_000}) {
            assertServiceAnswer(writeAll(UndertowRefusals.PARSERS_ANSWER, perWrite), UndertowRefusals.PARSERS_MESSAGE);
        }
    }

    @Test
    void eachOfTheHostChecksAnswersIsReplacedWithItsMessage() throws Exception {
        assertThat(UndertowRefusals.HOST_MESSAGES).hasSize(6);
        for (var e : UndertowRefusals.HOST_MESSAGES.entrySet()) {
            byte[] undertows = ascii("HTTP/1.1 400 " + e.getKey() + "\r\nConnection: close\r\nContent-Length: 0\r\n"
                    + "Date: Wed, 02 Dec 2026 06:48:08 GMT\r\n\r\n");
            for (int perWrite : new int[] {3, 100_000}) {
                assertServiceAnswer(writeAll(undertows, perWrite), e.getValue());
            }
        }
        assertThat(UndertowRefusals.HOST_MESSAGES.get(HostHeaderHandler.STATUS_NO_HOST_HEADER)).contains("needs a Host header");
    }

    @Test
    void everyOtherWritePassesUnchanged() throws Exception {
        String host400 = "HTTP/1.1 400 " + HostHeaderHandler.STATUS_NO_HOST_HEADER + "\r\nConnection: close\r\n";
        byte[] sameLength = UndertowRefusals.PARSERS_ANSWER.clone();
        sameLength[9] = '5'; // a 500 of the same length is not the parser's answer
        byte[] within = new byte[UndertowRefusals.PARSERS_ANSWER.length + 2];
        System.arraycopy(UndertowRefusals.PARSERS_ANSWER, 0, within, 1, UndertowRefusals.PARSERS_ANSWER.length);
        for (byte[] bytes : new byte[][] {
                ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"),
                sameLength,
                within,
                ascii("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"),
                ascii(host400 + "Content-Length: 3\r\n\r\nabc"),
                ascii(host400 + "Content-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n"),
                ascii("HTTP/1.1 400 Some Other Reason\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
                ascii("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" + "x".repeat(300)),
        }) {
            assertThat(writeAll(bytes, 100_000)).isEqualTo(new String(bytes, StandardCharsets.US_ASCII));
        }
    }
}
