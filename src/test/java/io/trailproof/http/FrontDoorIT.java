package io.trailproof.http;

import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.RunOrder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front door against the real server, with raw sockets (a browser's and an attacker's requests
 * are not what an HTTP client library sends): host names, origins, content types, framing, cache
 * headers, request ids, and what one address holding many connections leaves to the others. Each
 * rule is checked on a server without API keys (the default set-up a web page would attack) and on
 * one with keys, where it holds for a caller with a valid key too.
 */
@Order(RunOrder.MOSTLY_WAITING)
class FrontDoorIT {

    private static final String KEY = "front-door-admin-key";

    @TempDir
    static Path dir;

    /**
     * No keys, metrics and the access log off: the request id must be echoed all the same. 4 MiB for
     * request bodies, so one address's share of it (3 MiB) is a few slow bodies.
     */
    private static InProcessServer open;
    private static InProcessServer keyed;

    @BeforeAll
    static void start() throws Exception {
        open = InProcessServer.start(dir.resolve("open"), "metrics.enabled", "false", "log.access", "false",
                "server.host-names", "trail.example.com", "limits.max-in-flight-bytes", "4194304");
        // "Changes nothing" is checked with the tree size, which records of reads would grow.
        keyed = InProcessServer.start(dir.resolve("keyed"), "auth.api-keys", KEY, "access-trail.enabled", "false");
    }

    @AfterAll
    static void stop() throws Exception {
        if (open != null) {
            open.close();
        }
        if (keyed != null) {
            keyed.close();
        }
    }

    /** Both servers, each with the Authorization header its callers send. */
    private static List<Target> targets() {
        return List.of(new Target(open.server().port(), ""),
                new Target(keyed.server().port(), "Authorization: Bearer " + KEY + "\r\n"));
    }

    private record Target(int port, String auth) {
        String host() {
            return "127.0.0.1:" + port;
        }

        Answer send(String requestHead, String body) throws IOException {
            return exchange(port, requestHead.replace("\r\n\r\n", "\r\n" + auth + "\r\n") + body);
        }
    }

    /** One answer: status, headers (names lower case) and body. */
    private record Answer(int status, String head, String body) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    @Test
    void onlyTheServicesOwnHostNamesAreAnswered() throws Exception {
        for (Target t : targets()) {
            for (String foreign : List.of("evil.example", "evil.example:" + t.port(), "127.0.0.1.nip.io:" + t.port(),
                    "attacker.localhost.example", "localhost.evil.example")) {
                for (String path : List.of("/health", "/v1/events", "/ui/", "/")) {
                    Answer a = t.send("GET " + path + " HTTP/1.1\r\nHost: " + foreign + "\r\nConnection: close\r\n\r\n", "");
                    assertThat(a.status()).as(foreign + " " + path).isEqualTo(421);
                    assertThat(a.body()).contains("\"error\"", "server.host-names");
                }
            }
            for (String own : List.of(t.host(), "localhost:" + t.port(), "LOCALHOST", "[::1]:" + t.port(), "127.0.0.2",
                    "localhost.")) {
                Answer a = t.send("GET /v1/merkle/root HTTP/1.1\r\nHost: " + own + "\r\nConnection: close\r\n\r\n", "");
                assertThat(a.status()).as(own).isEqualTo(200);
            }
            Answer noHost = t.send("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n", "");
            assertThat(noHost.status()).as("HTTP/1.1 without Host").isEqualTo(400);
            assertThat(noHost.body()).isEqualTo("{\"error\":\"an HTTP/1.1 request needs a Host header\"}");
            assertThat(t.send("GET /health HTTP/1.0\r\n\r\n", "").status()).as("HTTP/1.0 without Host").isEqualTo(200);
        }
        Answer configured = targets().get(0).send("GET /health HTTP/1.1\r\nHost: trail.example.com\r\nConnection: close\r\n\r\n", "");
        assertThat(configured.status()).as("a name in server.host-names").isEqualTo(200);
    }

    @Test
    void crossOriginWritesAndWebSocketsAre403AndChangeNothing() throws Exception {
        for (Target t : targets()) {
            long size = treeSize(t);
            for (String route : stateChangingRoutes()) {
                for (String origin : List.of("http://evil.example", "http://evil.example:" + t.port(), "null",
                        "http://localhost:" + (t.port() + 1), "https://127.0.0.1.nip.io:" + t.port())) {
                    Answer a = post(t, route, "Origin: " + origin + "\r\nContent-Type: application/json\r\n", "{}");
                    assertThat(a.status()).as(origin + " " + route).isEqualTo(403);
                    assertThat(a.body()).contains("another origin");
                }
            }
            for (String path : List.of("/v1/stream?from=0", "/v1/stream")) {
                Answer ws = t.send(webSocket(path, "http://evil.example", t.host()), "");
                assertThat(ws.status()).as("WebSocket with a foreign Origin").isEqualTo(403);
            }
            assertThat(treeSize(t)).isEqualTo(size);
            // The service's own origin (its console) may write and open streams.
            Answer own = post(t, "POST /v1/events", "Origin: http://" + t.host() + "\r\nContent-Type: application/json\r\n",
                    "{\"agent_id\":\"own-origin\"}");
            assertThat(own.status()).as(own.body()).isEqualTo(201);
            try (Socket s = new Socket("127.0.0.1", t.port())) {
                s.getOutputStream().write(webSocket("/v1/stream?from=0", "http://" + t.host(), t.host())
                        .replace("\r\n\r\n", "\r\n" + t.auth() + "\r\n").getBytes(StandardCharsets.US_ASCII));
                s.setSoTimeout(10_000);
                byte[] head = new byte[12];
                assertThat(s.getInputStream().readNBytes(head, 0, 12)).isEqualTo(12);
                assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 101");
            }
        }
    }

    @Test
    void formPostsToEveryStateChangingRouteAre415AndChangeNothing() throws Exception {
        for (Target t : targets()) {
            long size = treeSize(t);
            for (String route : stateChangingRoutes()) {
                for (String type : List.of("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                        "multipart/form-data; boundary=x")) {
                    for (String body : List.of("", "{\"agent_id\":\"form\"}")) {
                        Answer a = post(t, route, "Content-Type: " + type + "\r\n", body);
                        assertThat(a.status()).as(type + " " + route + " body " + body.length()).isEqualTo(415);
                    }
                }
                Answer noType = post(t, route, "", "{\"agent_id\":\"form\"}");
                assertThat(noType.status()).as("a body without Content-Type " + route).isEqualTo(415);
            }
            assertThat(treeSize(t)).isEqualTo(size);
            Answer stamps = t.send("GET /v1/timestamps HTTP/1.1\r\nHost: " + t.host() + "\r\nConnection: close\r\n\r\n", "");
            assertThat(stamps.body()).as("no timestamp was requested").doesNotContain("{");
            Answer index = t.send("GET /v1/admin/index HTTP/1.1\r\nHost: " + t.host() + "\r\nConnection: close\r\n\r\n", "");
            assertThat(index.body()).as("no rebuild was started").contains("\"rebuild\":null");
        }
    }

    @Test
    void unclearFramingIsRefusedAndNeverDecoded() throws Exception {
        for (Target t : targets()) {
            long size = treeSize(t);
            String event = "{\"agent_id\":\"framing\"}";
            String chunk = Integer.toHexString(event.length()) + "\r\n" + event + "\r\n0\r\n\r\n";
            String head = "POST /v1/events HTTP/1.1\r\nHost: " + t.host() + "\r\nContent-Type: application/json\r\n";
            assertThat(t.send(head + "Content-Length: 1234567890123456789012\r\n\r\n", event).status())
                    .as("22-digit Content-Length").isEqualTo(400);
            assertThat(t.send(head + "Content-Length: 9999999999999999999\r\n\r\n", event).status())
                    .as("Content-Length beyond a long").isEqualTo(400);
            assertThat(t.send(head + "Content-Length: 12abc\r\n\r\n", event).status()).isEqualTo(400);
            assertThat(t.send(head + "Content-Length: " + event.length() + "\r\nContent-Length: 3\r\n\r\n", event).status())
                    .as("two different lengths").isEqualTo(400);
            for (String coding : List.of("chunked, gzip", "gzip", "gzip, chunked", "identity", "chunked\r\nTransfer-Encoding: chunked")) {
                Answer a = t.send(head + "Transfer-Encoding: " + coding + "\r\n\r\n", chunk);
                assertThat(a.status()).as(coding).isIn(400, 501);
                assertThat(a.header("connection")).as(coding).isEqualToIgnoringCase("close");
            }
            assertThat(t.send(head + "Transfer-Encoding: chunked\r\nContent-Length: " + chunk.length() + "\r\n\r\n", chunk)
                    .status()).as("both framings").isEqualTo(400);
            assertThat(treeSize(t)).as("nothing was decoded and stored").isEqualTo(size);
            Answer plain = t.send(head + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n", chunk);
            assertThat(plain.status()).as(plain.body()).isEqualTo(201);
        }
    }

    /**
     * What the HTTP parser refuses before any handler runs (a bad request line, a malformed or oversized
     * head), and what Undertow's own Host check refuses, is a 400 with a JSON message like every other
     * refusal, and the connection closes, also after answered requests on the same connection. A chunked body whose
     * framing is malformed loses its connection without an answer (the parser closes it before the
     * service learns of the error: src/site/security.md#framing). Neither stores anything, and the
     * service goes on answering.
     */
    @Test
    void whatTheParserRefusesIsA400WithAMessageOrAClosedConnectionAndChangesNothing() throws Exception {
        for (Target t : targets()) {
            long size = treeSize(t);
            String host = "Host: " + t.host() + "\r\n";
            for (String head : List.of("GARBAGE\r\n\r\n", "GET /he alth HTTP/1.1\r\n" + host + "\r\n",
                    "GET /health HTTP/1.1\r\n" + host + "A header without a colon\r\n\r\n",
                    "GET /health HTTP/1.1\r\n" + host + "X-Control: a\u0001b\r\n\r\n",
                    "GET /health HTTP/1.1\r\n" + host + "X-Large: " + "a".repeat(2 << 20) + "\r\n\r\n",
                    "POST /v1/events HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
                            + "Content-Length: 2\r\nBad\u0000Name: x\r\n\r\n{}")) {
                String what = head.substring(0, Math.min(60, head.length()));
                assertParsersRefusal(what, t.send(head, ""));
            }
            // Undertow's own Host check, in front of the service's: its refusals say why too.
            for (String[] hostCase : new String[][] {{"Host: 127.0.0.1:x\r\n", "its port is not a number"},
                    {host + host, "more than one Host header"}, {"Host: [1.2.3]\r\n", "not an IPv6 address"},
                    {"Host: a,b\r\n", "the Host header is malformed"}}) {
                Answer a = t.send("GET /health HTTP/1.1\r\n" + hostCase[0] + "\r\n", "");
                assertThat(a.status()).as(hostCase[0]).isEqualTo(400);
                assertThat(a.header("content-type")).as(hostCase[0]).isEqualTo("application/json");
                assertThat(a.header("cache-control")).as(hostCase[0]).isEqualTo("no-store");
                assertThat(a.header("x-request-id")).as(hostCase[0]).isNotBlank();
                assertThat(a.body()).as(hostCase[0]).contains(hostCase[1]);
            }
            // After two answered requests on one connection, the third is refused with its message.
            String good = "GET /v1/merkle/root HTTP/1.1\r\n" + host + t.auth() + "\r\n";
            try (Socket s = new Socket("127.0.0.1", t.port())) {
                s.setSoTimeout(15_000);
                for (int i = 0; i < 2; i++) {
                    s.getOutputStream().write(good.getBytes(StandardCharsets.US_ASCII));
                    assertThat(read(s.getInputStream(), s).status()).isEqualTo(200);
                }
                s.getOutputStream().write(("GET /a b c HTTP/1.1\r\n" + host + "\r\n").getBytes(StandardCharsets.US_ASCII));
                assertParsersRefusal("third on a connection", read(s.getInputStream(), s));
            }
            // Pipelined: a Host refusal behind answers still buffered is the library's bare 400, its reason
            // in the status line (src/site/security.md#framing); alone in its buffer it has the message.
            String all = readUntilClosed(t.port(), good + good + "GET /health HTTP/1.1\r\nHost: 127.0.0.1:x\r\n\r\n");
            String last = all.substring(all.lastIndexOf("HTTP/1.1 "));
            assertThat(last).as(all).satisfiesAnyOf(
                    l -> assertThat(l).startsWith("HTTP/1.1 400 Host Header Malformed Port\r\n").endsWith("\r\n\r\n"),
                    l -> assertThat(parse(l).body()).contains("its port is not a number"));
            String post = "POST /v1/events HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n" + t.auth() + "\r\n";
            for (String chunks : List.of("ZZ\r\n{}\r\n0\r\n\r\n", "-2\r\n{}\r\n0\r\n\r\n",
                    "FFFFFFFFFFFFFFFFFFFF\r\n{\"agent_id\":\"framing\"}\r\n0\r\n\r\n")) {
                assertThat(closedWithoutAnswer(t.port(), post + chunks)).as(chunks).isTrue();
            }
            assertThat(treeSize(t)).as("nothing was stored").isEqualTo(size);
        }
    }

    private static void assertParsersRefusal(String what, Answer a) {
        assertThat(a.status()).as(what).isEqualTo(400);
        assertThat(a.header("connection")).as(what).isEqualToIgnoringCase("close");
        assertThat(a.header("content-type")).as(what).isEqualTo("application/json");
        assertThat(a.header("cache-control")).as(what).isEqualTo("no-store");
        assertThat(a.header("x-request-id")).as(what).matches("[0-9a-f]{8}-[0-9]+");
        assertThat(a.body()).as(what).startsWith("{\"error\":\"the request head is not well-formed HTTP/1.1")
                .endsWith("\"}");
    }

    /**
     * Seeded one-byte mutations of a request head (a byte replaced, inserted or removed, anywhere but
     * its final empty line): every answer is a 2xx or a 4xx, never a 5xx, and every 400, whether the
     * parser or the service refused, says why in JSON.
     */
    @Test
    void mutatedRequestHeadsAreAnsweredOrRefusedWithAMessage() throws Exception {
        Target t = targets().get(0);
        long size = treeSize(t);
        String head = "GET /v1/merkle/root?x=1 HTTP/1.1\r\nHost: " + t.host() + "\r\nAccept: application/json\r\n"
                + "X-Request-Id: probe-1\r\nConnection: close\r\n\r\n";
        byte[] original = head.getBytes(StandardCharsets.ISO_8859_1);
        Random random = new Random(20261202L);
        int refusedByParser = 0;
        for (int i = 0; i < 150; i++) {
            ByteArrayOutputStream mutated = new ByteArrayOutputStream();
            int at = random.nextInt(original.length - 4);
            int kind = random.nextInt(3);
            mutated.write(original, 0, at);
            if (kind != 2) {
                mutated.write(random.nextInt(256));
            }
            int rest = kind == 1 ? at : at + 1;
            mutated.write(original, rest, original.length - rest);
            String request = mutated.toString(StandardCharsets.ISO_8859_1);
            String all = readUntilClosed(t.port(), request);
            String what = kind + "@" + at + ": " + request.replace("\r\n", "|");
            if (all.isEmpty()) {
                continue; // the head never ended (a line end taken out): closed at the end of input
            }
            Answer a = parse(all);
            assertThat(a.status()).as(what).isBetween(200, 499);
            if (a.status() == 400) {
                assertThat(a.header("content-type")).as(what).startsWith("application/json");
                assertThat(a.body()).as(what).startsWith("{\"error\":");
                if (a.body().contains("not well-formed HTTP/1.1")) {
                    refusedByParser++;
                }
            }
        }
        assertThat(refusedByParser).as("mutations the parser refused").isGreaterThan(10);
        assertThat(treeSize(t)).isEqualTo(size);
    }

    /** Sends {@code request}, ends the output, and returns everything read until the server closes. */
    private static String readUntilClosed(int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 15_000);
            s.setSoTimeout(15_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            s.shutdownOutput();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = s.getInputStream().read(buf)) > 0) {
                    got.write(buf, 0, n);
                }
            } catch (IOException reset) {
                // reset after the answer
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** The first answer in {@code text}: its body is what its Content-Length says, or the rest. */
    private static Answer parse(String text) {
        int end = text.indexOf("\r\n\r\n");
        assertThat(end).as("an answer: " + text).isPositive();
        String head = text.substring(0, end);
        Answer headOnly = new Answer(Integer.parseInt(head.substring(9, 12)), head, "");
        String cl = headOnly.header("content-length");
        String rest = text.substring(end + 4);
        String body = cl == null ? rest : rest.substring(0, Math.min(rest.length(), Integer.parseInt(cl)));
        return new Answer(headOnly.status(), head, body);
    }

    /** Sends {@code request} and reads until the server closes: true when it closed without a byte of answer. */
    private static boolean closedWithoutAnswer(int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 15_000);
            s.setSoTimeout(15_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            try {
                return s.getInputStream().read() < 0;
            } catch (IOException reset) {
                return true;
            }
        }
    }

    @Test
    void answersWithTrailDataAreNeverStoredAndEveryAnswerHasARequestId() throws Exception {
        for (Target t : targets()) {
            for (String path : List.of("/v1/events", "/v1/events/none", "/v1/merkle/root", "/v1/stats", "/v1/agents",
                    "/v1/search?q=x", "/v1/timestamps", "/v1/export?agent_id=none", "/health", "/no/such/path")) {
                Answer a = t.send("GET " + path + " HTTP/1.1\r\nHost: " + t.host() + "\r\nConnection: close\r\n\r\n", "");
                assertThat(a.header("cache-control")).as(path).isEqualTo("no-store");
                assertThat(a.header("x-request-id")).as(path).isNotBlank();
            }
            Answer sse = t.send("GET /v1/stream HTTP/1.1\r\nHost: " + t.host() + "\r\nAccept: text/event-stream\r\n\r\n", "");
            assertThat(sse.header("cache-control")).as("the live stream").isEqualTo("no-store");
            // Console files hold no trail data: a browser revalidates them (ETag) instead of storing nothing.
            Answer console = t.send("GET /ui/ HTTP/1.1\r\nHost: " + t.host() + "\r\nConnection: close\r\n\r\n", "");
            assertThat(console.status()).isEqualTo(200);
            assertThat(console.header("cache-control")).isEqualTo("no-cache");
            for (String request : List.of("GET /health HTTP/1.1\r\nHost: " + t.host(), "GET /ui/ HTTP/1.1\r\nHost: " + t.host(),
                    "GET /health HTTP/1.1\r\nHost: evil.example", "POST /v1/events HTTP/1.1\r\nHost: " + t.host()
                            + "\r\nContent-Type: text/plain\r\nContent-Length: 0")) {
                Answer a = t.send(request + "\r\nX-Request-Id: probe-42.a_b\r\nConnection: close\r\n\r\n", "");
                assertThat(a.header("x-request-id")).as(request).isEqualTo("probe-42.a_b");
            }
            Answer bad = t.send("GET /health HTTP/1.1\r\nHost: " + t.host() + "\r\nX-Request-Id: no spaces or ;\r\n"
                    + "Connection: close\r\n\r\n", "");
            assertThat(bad.header("x-request-id")).matches("[0-9a-f]{8}-[0-9]+");
        }
    }

    /**
     * One address opens 1,100 connections and holds them idle or slow in every way a probe found (an
     * idle connection, a head sent a byte at a time, a chunked body to the console, a body to the API,
     * a kept-alive connection after an answer); it keeps at most its share, and a client from another
     * address is answered within 2 s each time.
     */
    @Test
    void oneAddressHoldingManyConnectionsLeavesTheServiceToOthers() throws Exception {
        int port = open.server().port();
        String host = "Host: 127.0.0.1:" + port + "\r\n";
        String[] openings = {
                "",
                "GET /health HTTP/1.1\r\n" + host + "X-Slow: ",
                "GET / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nab",
                "GET /ui/ HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nab",
                "POST /v1/events HTTP/1.1\r\n" + host + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a",
                "GET /health HTTP/1.1\r\n" + host + "\r\n",
        };
        List<SocketChannel> held = new ArrayList<>();
        try {
            for (int i = 0; i < 1100; i++) {
                SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                held.add(c);
                try {
                    c.write(ByteBuffer.wrap(openings[i % openings.length].getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException e) {
                    // closed by the server as soon as accepted: beyond the address's share
                }
            }
            List<Long> millis = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                long started = System.nanoTime();
                Answer a = exchangeFrom(InetAddress.getByName("127.0.0.2"), port,
                        "GET /v1/merkle/root HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n", 5_000);
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                assertThat(a.status()).isEqualTo(200);
            }
            assertThat(millis).as("each try from another address, in ms").allMatch(m -> m <= 2_000);
            assertThat(stillOpen(held)).as("connections the one address still holds").isBetween(1, 256);
        } finally {
            for (SocketChannel c : held) {
                c.close();
            }
        }
    }

    /**
     * One address starts 64 bodies of a declared 1 MiB and never finishes them: it holds its share of
     * the request memory (3 of 4 MiB), which its own next request finds taken; a client from another
     * address is still answered at once, each time.
     */
    @Test
    void oneAddressSendingSlowBodiesLeavesRequestMemoryToOthers() throws Exception {
        int port = open.server().port();
        String host = "Host: 127.0.0.1:" + port + "\r\n";
        String event = "{\"agent_id\":\"memory-share\"}";
        String small = "POST /v1/events HTTP/1.1\r\n" + host + "Content-Type: application/json\r\nContent-Length: "
                + event.length() + "\r\nConnection: close\r\n\r\n" + event;
        List<SocketChannel> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 64; i++) {
                SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                slow.add(c);
                c.write(ByteBuffer.wrap(("POST /v1/events HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
                        + "Content-Length: 1048576\r\n\r\n{\"a").getBytes(StandardCharsets.US_ASCII)));
            }
            InetAddress one = InetAddress.getByName("127.0.0.1");
            Await.untilTrue("the slow address's own next request finds its share taken (503)", Duration.ofSeconds(60),
                    () -> exchangeFrom(one, port, small, 15_000).status() == 503);
            List<Long> millis = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                long started = System.nanoTime();
                Answer a = exchangeFrom(InetAddress.getByName("127.0.0.2"), port, small, 5_000);
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                assertThat(a.status()).as(a.body()).isEqualTo(201);
            }
            assertThat(millis).as("each try from another address, in ms").allMatch(m -> m <= 2_000);
        } finally {
            for (SocketChannel c : slow) {
                c.close();
            }
        }
    }

    /** How many of the channels the server has not closed (non-blocking reads: -1 or a reset is closed). */
    private static int stillOpen(List<SocketChannel> channels) throws IOException {
        int open = 0;
        ByteBuffer sink = ByteBuffer.allocate(4096);
        for (SocketChannel c : channels) {
            c.configureBlocking(false);
            try {
                int n;
                do {
                    n = c.read(sink.clear());
                } while (n > 0);
                if (n == 0) {
                    open++;
                }
            } catch (IOException e) {
                // reset by the server: closed
            }
        }
        return open;
    }

    /** {@code route} is {@code METHOD path}. */
    private static Answer post(Target t, String route, String headers, String body) throws IOException {
        return t.send(route + " HTTP/1.1\r\nHost: " + t.host() + "\r\n" + headers
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n", body);
    }

    private static String webSocket(String path, String origin, String host) {
        return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + origin + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    }

    private static long treeSize(Target t) throws IOException {
        Answer a = t.send("GET /v1/merkle/root HTTP/1.1\r\nHost: " + t.host() + "\r\nConnection: close\r\n\r\n", "");
        assertThat(a.status()).isEqualTo(200);
        return Long.parseLong(a.body().replaceAll(".*\"tree_size\":([0-9]+).*", "$1"));
    }

    /** Every route of the open server that is not a GET, as {@code METHOD path} with any path parameter filled in. */
    private static List<String> stateChangingRoutes() throws Exception {
        Field http = open.server().getClass().getDeclaredField("http");
        http.setAccessible(true);
        List<String> routes = new ArrayList<>();
        for (String r : ((HttpApi) http.get(open.server())).routes()) {
            String[] parts = r.split(" ", 2);
            if (!parts[0].equals("GET") && !parts[0].equals("HEAD")) {
                routes.add(parts[0] + " " + parts[1].replaceAll("\\{[^}]*}", "x"));
            }
        }
        assertThat(routes).contains("POST /v1/events", "POST /v1/timestamp", "POST /v1/admin/index/rebuild",
                "POST /v1/traces");
        return routes;
    }

    private static Answer exchange(int port, String request) throws IOException {
        return exchangeFrom(null, port, request, 15_000);
    }

    /** Sends {@code request} and reads one answer (to its Content-Length, or until closed, or 2 s of quiet). */
    private static Answer exchangeFrom(InetAddress from, int port, String request, int timeoutMillis) throws IOException {
        try (Socket s = new Socket()) {
            if (from != null) {
                s.bind(new InetSocketAddress(from, 0));
            }
            s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            return read(s.getInputStream(), s);
        }
    }

    private static Answer read(InputStream in, Socket s) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int headEnd = -1;
        long length = -1;
        while (true) {
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                if (headEnd >= 0) {
                    break; // a stream: the head is what counts
                }
                throw e;
            } catch (IOException e) {
                break; // reset after the answer
            }
            if (n < 0) {
                break;
            }
            got.write(buf, 0, n);
            String text = got.toString(StandardCharsets.UTF_8);
            if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                String cl = new Answer(0, text.substring(0, headEnd), "").header("content-length");
                length = cl == null ? -1 : Long.parseLong(cl);
                if (length < 0) {
                    s.setSoTimeout(2_000);
                }
            }
            if (headEnd >= 0 && (length >= 0 && got.size() >= headEnd + 4 + length
                    || length < 0 && text.endsWith("\r\n0\r\n\r\n"))) {
                break;
            }
        }
        String text = got.toString(StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        assertThat(end).as("an answer: " + text).isPositive();
        String head = text.substring(0, end);
        return new Answer(Integer.parseInt(head.substring(9, 12)), head, text.substring(end + 4));
    }
}
