package io.trailproof.timestamp;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.server.TrailproofServer;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.LogSurgeon;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * POST /v1/timestamp, GET /v1/timestamps and GET /v1/timestamps/verify against the real server and a
 * real RFC 3161 TSA (BouncyCastle behind an HTTP server in this JVM, with its own CA). No internet.
 */
class TimestampIT {

    @TempDir
    Path dir;

    private TestTsa tsa;
    private Path caPem;

    @BeforeEach
    void startTsa() throws Exception {
        tsa = TestTsa.start();
        caPem = tsa.writeRootPem(dir.resolve("ca.pem"));
    }

    @AfterEach
    void stopTsa() throws IOException {
        tsa.close();
    }

    private Path data() {
        return dir.resolve("data");
    }

    /**
     * A TSA that answers gets this long: a cold first signature in a loaded test JVM can take seconds.
     * The tests of a TSA that hangs or trickles set {@link #SHORT_TIMEOUT_MS} instead, to be quick.
     */
    private static final int TSA_TIMEOUT_MS = 15_000;
    private static final int SHORT_TIMEOUT_MS = 3_000;

    private InProcessServer server(String... extra) throws Exception {
        List<String> kv = new ArrayList<>(List.of("timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", caPem.toString(), "timestamp.timeout-ms", String.valueOf(TSA_TIMEOUT_MS)));
        kv.addAll(List.of(extra));
        return InProcessServer.start(data(), kv.toArray(String[]::new));
    }

    private static void events(Api api, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            assertThat(api.post("/v1/events", "{\"agent_id\":\"a" + (i % 2) + "\",\"action_name\":\"step " + i + "\"}")
                    .status()).isEqualTo(201);
        }
    }

    private static void assertNothingStored(Api api) throws Exception {
        assertThat(api.get("/v1/timestamps").json()).isEmpty();
        assertThat(api.get("/v1/timestamps/verify").status()).isEqualTo(404);
    }

    @Test
    void anEmptyLogIsAConflictAndNothingIsStored() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            Api.Reply r = api.post("/v1/timestamp", "{}");
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.json().get("error").asText()).contains("log is empty");
            assertThat(tsa.requests()).isZero();
            assertNothingStored(api);
            assertThat(api.get("/v1/timestamps/verify").json().get("error").asText()).contains("POST /v1/timestamp");
        }
    }

    @Test
    void aTimestampIsStoredDurablyAndVerifies() throws Exception {
        JsonNode record;
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 5);
            JsonNode root = api.get("/v1/merkle/root").json();
            Api.Reply r = api.post("/v1/timestamp", "{}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
            record = r.json();
            assertThat(record.get("merkle_root").asText()).isEqualTo(root.get("root").asText());
            assertThat(record.get("tree_size").asLong()).isEqualTo(5);
            assertThat(record.get("tsa").asText()).isEqualTo("127.0.0.1");
            assertThat(record.get("tsa_url").asText()).isEqualTo(tsa.url());
            assertThat(record.get("hash_algorithm").asText()).isEqualTo("SHA-256");
            assertThat(record.get("policy").asText()).isEqualTo(TestTsa.POLICY);
            assertThat(record.get("serial_number").asText()).matches("[0-9a-f]+");
            assertThat(record.get("nonce").asText()).matches("[0-9a-f]+");
            assertThat(record.get("id").asText()).matches("[0-9a-f-]{36}");
            assertThat(Instant.parse(record.get("timestamp").asText())).isNotNull();
            assertThat(Instant.parse(record.get("requested_at").asText())).isNotNull();
            assertThat(Base64.getDecoder().decode(record.get("certificates").get(0).asText()))
                    .isEqualTo(tsa.signerCertificate().getEncoded());
            assertThat(Base64.getDecoder().decode(record.get("token").asText())).isNotEmpty();
        }
        // A restart reads the record back from DIR/timestamps/ unchanged.
        try (InProcessServer s = server()) {
            Api api = s.api();
            JsonNode list = api.get("/v1/timestamps").json();
            assertThat(list).hasSize(1);
            assertThat(list.get(0)).isEqualTo(record);
            JsonNode v = api.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
            assertThat(v.get("error").asText()).isEmpty();
            assertThat(v.get("timestamp_id").asText()).isEqualTo(record.get("id").asText());
            assertThat(v.get("tsa_time").asText()).isEqualTo(record.get("timestamp").asText());
            assertThat(v.get("current_root_matches").asBoolean()).isTrue();
            assertThat(v.get("consistent").asBoolean()).isTrue();
            for (String check : List.of("signature", "message_imprint", "certificate_chain", "consistency")) {
                assertThat(v.get("checks").get(check).asBoolean()).as(check).isTrue();
            }
        }
    }

    @Test
    void eventsAddedAfterATimestampLeaveItValid() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 3);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
            events(api, 4);
            JsonNode v = api.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
            assertThat(v.get("current_root_matches").asBoolean()).isFalse();
            assertThat(v.get("consistent").asBoolean()).isTrue();
            assertThat(v.get("tree_size").asLong()).isEqualTo(3);
            assertThat(v.get("current_tree_size").asLong()).isEqualTo(7);
            assertThat(v.get("current_root").asText()).isEqualTo(api.get("/v1/merkle/root").json().get("root").asText());
        }
    }

    @Test
    void listingIsNewestFirstWithLimitAndOffset() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            for (int i = 1; i <= 3; i++) {
                events(api, 1);
                assertThat(api.post("/v1/timestamp", "").status()).isEqualTo(201);
            }
            Api.Reply all = api.get("/v1/timestamps");
            assertThat(all.header("X-Total-Count")).isEqualTo("3");
            assertThat(all.json()).extracting(n -> n.get("tree_size").asLong()).containsExactly(3L, 2L, 1L);
            assertThat(api.get("/v1/timestamps?limit=2").json()).extracting(n -> n.get("tree_size").asLong())
                    .containsExactly(3L, 2L);
            assertThat(api.get("/v1/timestamps?limit=2&offset=2").json()).extracting(n -> n.get("tree_size").asLong())
                    .containsExactly(1L);
            assertThat(api.get("/v1/timestamps?offset=5").json()).isEmpty();
            assertThat(api.get("/v1/timestamps?limit=0").status()).isEqualTo(400);
            assertThat(api.get("/v1/timestamps?limit=x").status()).isEqualTo(400);
            assertThat(api.get("/v1/timestamps/verify").json().get("tree_size").asLong()).isEqualTo(3);
            String oldest = all.json().get(2).get("id").asText();
            assertThat(api.get("/v1/timestamps/verify?id=" + oldest).json().get("tree_size").asLong()).isEqualTo(1);
            assertThat(api.get("/v1/timestamps/verify?id=nope").status()).isEqualTo(404);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestTsa.Mode.class, names = {"GARBAGE", "REJECT", "WRONG_NONCE", "WRONG_IMPRINT", "NO_EKU",
            "EXPIRED_SIGNER", "HANG", "HTTP_500", "DRIP"})
    void aFailingTsaIsA502AndNothingIsStored(TestTsa.Mode mode) throws Exception {
        // Only a TSA that hangs or trickles needs the short time-out; the others answer, and a cold
        // first signature on a loaded machine may take longer than it.
        boolean slow = mode == TestTsa.Mode.HANG || mode == TestTsa.Mode.DRIP;
        try (InProcessServer s = server("timestamp.timeout-ms", String.valueOf(slow ? SHORT_TIMEOUT_MS : TSA_TIMEOUT_MS))) {
            Api api = s.api();
            events(api, 2);
            tsa.mode(mode);
            Api.Reply r = api.post("/v1/timestamp", "{}");
            assertThat(r.status()).as(r.body()).isEqualTo(502);
            String error = r.json().get("error").asText();
            assertThat(error).contains("127.0.0.1").endsWith("nothing was stored");
            assertThat(error).contains(switch (mode) {
                case REJECT -> "refused the request";
                case WRONG_NONCE -> "nonce";
                case WRONG_IMPRINT -> "different message imprint";
                case NO_EKU -> "not a time-stamping certificate";
                case EXPIRED_SIGNER -> "was not valid at the token's time";
                // Not an RFC 3161 answer, or none complete within timestamp.timeout-ms (a body
                // trickling in counts): one sentence, whatever the cause.
                case GARBAGE, HANG, HTTP_500, DRIP -> "is unreachable or not a TSA";
                default -> throw new AssertionError(mode);
            });
            assertNothingStored(api);
        }
        // Nothing reached the disk either.
        try (InProcessServer s = server()) {
            assertNothingStored(s.api());
        }
    }

    @Test
    void anUnreachableTsaIsA502() throws Exception {
        try (InProcessServer s = server("timestamp.default-tsa-url", TestTsa.deadUrl())) {
            Api api = s.api();
            events(api, 1);
            Api.Reply r = api.post("/v1/timestamp", "{}");
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.json().get("error").asText()).contains("unreachable");
            assertNothingStored(api);
        }
    }

    /**
     * A closed port, an open port that speaks something else, and an HTTP server that is no TSA get
     * the same sentence (the URL aside): the answer cannot be used to map which ports are open.
     */
    @Test
    void aFailedFetchDoesNotTellAClosedPortFromAnOpenOne() throws Exception {
        String closed = TestTsa.deadUrl();
        try (ServerSocket banner = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                while (!banner.isClosed()) {
                    try (Socket s = banner.accept()) {
                        s.getOutputStream().write("SSH-2.0-OpenSSH_9.6\r\n".getBytes(StandardCharsets.US_ASCII));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            String open = "http://127.0.0.1:" + banner.getLocalPort() + "/tsa";
            tsa.mode(TestTsa.Mode.GARBAGE);
            try (InProcessServer s = server("timestamp.allowed-tsa-urls", closed + "," + open)) {
                Api api = s.api();
                events(api, 1);
                List<String> sentences = new ArrayList<>();
                for (String url : List.of(closed, open, tsa.url())) {
                    Api.Reply r = api.post("/v1/timestamp", "{\"tsa_url\":\"" + url + "\"}");
                    assertThat(r.status()).as(url + ": " + r.body()).isEqualTo(502);
                    sentences.add(r.json().get("error").asText().replace(url, "<url>"));
                }
                assertThat(sentences).containsOnly("the TSA at <url> is unreachable or not a TSA (no RFC 3161 answer; "
                        + "the server log has the details); nothing was stored");
                assertNothingStored(api);
            }
        }
    }

    /** Without timestamp.allowed-tsa-urls only the default TSA may be named; no request leaves for another URL. */
    @Test
    void onlyTheDefaultTsaIsAllowedWithoutAnAllowList() throws Exception {
        try (TestTsa other = TestTsa.start(); InProcessServer s = server()) {
            Api api = s.api();
            events(api, 1);
            for (String url : List.of(other.url(), "http://169.254.169.254/latest/meta-data/",
                    "http://127.0.0.1:" + s.server().port() + "/v1/events")) {
                Api.Reply r = api.post("/v1/timestamp", "{\"tsa_url\":\"" + url + "\"}");
                assertThat(r.status()).as(url).isEqualTo(400);
                assertThat(r.json().get("error").asText()).contains("not on the allow-list").contains(tsa.url());
            }
            assertThat(other.requests()).isZero();
            assertThat(tsa.requests()).isZero();
            assertThat(api.post("/v1/timestamp", "{\"tsa_url\":\"" + tsa.url() + "\"}").status()).isEqualTo(201);
        }
    }

    @Test
    void badTsaUrlsAndBodiesAre400() throws Exception {
        String allowed = tsa.url();
        try (InProcessServer s = server("timestamp.allowed-tsa-urls", allowed)) {
            Api api = s.api();
            events(api, 1);
            String[][] cases = {
                    {"{\"tsa_url\":\"ftp://tsa.example/\"}", "http or https"},
                    {"{\"tsa_url\":\"\"}", "non-empty"},
                    {"{\"tsa_url\":\"not a url\"}", "tsa_url"},
                    {"{\"tsa_url\":\"http://tsa.example.org/\"}", "not on the allow-list"},
                    {"{\"tsa_url\":5}", "tsa_url"},
                    {"{\"tsa\":\"http://x/\"}", "unknown field tsa"},
                    {"[]", "JSON object"},
                    {"{\"tsa_url\":\"a\",\"tsa_url\":\"b\"}", "tsa_url"},
            };
            for (String[] c : cases) {
                Api.Reply r = api.post("/v1/timestamp", c[0]);
                assertThat(r.status()).as(c[0]).isEqualTo(400);
                assertThat(r.json().get("error").asText()).as(c[0]).contains(c[1]);
            }
            assertThat(api.post("/v1/timestamp", "{}".getBytes(StandardCharsets.UTF_8), "text/plain").status())
                    .isEqualTo(415);
            assertThat(tsa.requests()).isZero();
            assertNothingStored(api);
            Api.Reply ok = api.post("/v1/timestamp", "{\"tsa_url\":\"" + allowed + "\"}");
            assertThat(ok.status()).as(ok.body()).isEqualTo(201);
        }
    }

    @Test
    void aChainThatReachesNoTrustAnchorIsStoredButDoesNotVerify() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 2);
            tsa.mode(TestTsa.Mode.UNTRUSTED);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
            JsonNode v = api.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).isFalse();
            assertThat(v.get("checks").get("certificate_chain").asBoolean()).isFalse();
            assertThat(v.get("checks").get("signature").asBoolean()).isTrue();
            assertThat(v.get("checks").get("message_imprint").asBoolean()).isTrue();
            assertThat(v.get("checks").get("consistency").asBoolean()).isTrue();
            assertThat(v.get("error").asText()).startsWith("certificate_chain: ").contains("Unknown Root CA");
        }
    }

    @Test
    void aChainWithACertificateExpiredAtGenTimeDoesNotVerify() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 2);
            tsa.mode(TestTsa.Mode.EXPIRED_INTERMEDIATE);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
            JsonNode v = api.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).isFalse();
            assertThat(v.get("error").asText()).startsWith("certificate_chain: ").contains("Expired Intermediate CA")
                    .contains("was not valid at the token's time");
        }
    }

    @Test
    void withoutTheTestCaAsAnchorTheChainFails() throws Exception {
        try (InProcessServer s = InProcessServer.start(data(), "timestamp.default-tsa-url", tsa.url())) {
            Api api = s.api();
            events(api, 1);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
            JsonNode v = api.get("/v1/timestamps/verify").json();
            assertThat(v.get("checks").get("certificate_chain").asBoolean()).isFalse();
        }
    }

    @Test
    void alteringAStampedEventsFieldsIsFoundAndNamed() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 6);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
        }
        // The attacker changes a field of event 2 and leaves its hash: the log itself stays intact.
        LogSurgeon.rewrite(LogSurgeon.onlySegment(data()), records -> {
            records.set(2, edit(records.get(2), false));
            return records;
        });
        try (InProcessServer s = server()) {
            JsonNode v = s.api().get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).isFalse();
            assertThat(v.get("checks").get("message_imprint").asBoolean()).isFalse();
            assertThat(v.get("checks").get("signature").asBoolean()).isTrue();
            assertThat(v.get("error").asText()).startsWith("message_imprint: ").contains("log index 2")
                    .contains("altered after it was stamped");
            assertThat(v.get("check").asText()).isEqualTo("message_imprint");
        }
    }

    @Test
    void rewritingAStampedEventWithItsHashAndRebuildingTheTreeIsFound() throws Exception {
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 6);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
            events(api, 2);
        }
        // A thorough attacker recomputes the hash and lets the service rebuild every derived file.
        LogSurgeon.rewrite(LogSurgeon.onlySegment(data()), records -> {
            records.set(1, edit(records.get(1), true));
            return records;
        });
        deleteRecursively(data().resolve("merkle"));
        Files.deleteIfExists(data().resolve("head-snapshot"));
        try (InProcessServer s = server()) {
            JsonNode v = s.api().get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).isFalse();
            assertThat(v.get("checks").get("message_imprint").asBoolean()).isFalse();
            assertThat(v.get("checks").get("consistency").asBoolean()).isFalse();
            assertThat(v.get("error").asText()).startsWith("message_imprint: ");
        }
    }

    @Test
    void opensslAcceptsAStoredToken() throws Exception {
        assumeTrue(onPath("openssl"), "openssl is not installed");
        JsonNode record;
        try (InProcessServer s = server()) {
            Api api = s.api();
            events(api, 3);
            record = api.post("/v1/timestamp", "{}").json();
        }
        Path token = dir.resolve("token.der");
        Files.write(token, Base64.getDecoder().decode(record.get("token").asText()));
        Process p = new ProcessBuilder("openssl", "ts", "-verify", "-digest", record.get("merkle_root").asText(),
                "-in", token.toString(), "-token_in", "-CAfile", caPem.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("Verification: OK");
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void scheduledTimestampingRetriesAfterFailuresAndStampsOnlyGrowth() throws Exception {
        tsa.mode(TestTsa.Mode.HTTP_500);
        try (InProcessServer s = server("timestamp.interval", "PT0.2S")) {
            Api api = s.api();
            events(api, 4);
            awaitRequests(3);                     // it keeps retrying while the TSA fails
            assertThat(api.get("/v1/timestamps").json()).isEmpty();
            tsa.mode(TestTsa.Mode.OK);
            JsonNode list = awaitTimestamps(api, 1);
            assertThat(list.get(0).get("tree_size").asLong()).isEqualTo(4);
            events(api, 1);
            list = awaitTimestamps(api, 2);
            assertThat(list.get(0).get("tree_size").asLong()).isEqualTo(5);
            assertThat(api.get("/v1/timestamps/verify").json().get("valid").asBoolean()).isTrue();
        }
    }

    @Test
    void anUnreadableTrustAnchorFileStopsTheStartWithItsName() {
        Path missing = dir.resolve("missing.pem");
        assertThatThrownBy(() -> InProcessServer.start(data(),
                        "timestamp.trust-anchors", missing.toString()))
                .isInstanceOf(TrailproofServer.StartException.class)
                .hasMessageContaining(missing.toString()).hasMessageContaining("does not exist");
    }

    @Test
    void scheduledTimestampingIsOffByDefault() throws Exception {
        try (InProcessServer s = server()) {
            events(s.api(), 2);
            Await.nothingHappensWithin("a scheduled request to the TSA while timestamp.interval is unset");
            assertThat(tsa.requests()).isZero();
        }
    }

    private void awaitRequests(int n) throws InterruptedException {
        Await.until(n + " requests to the TSA", Duration.ofSeconds(30), () -> tsa.requests() >= n);
    }

    private static JsonNode awaitTimestamps(Api api, int n) throws Exception {
        Await.untilTrue(n + " timestamps", Duration.ofSeconds(30), () -> api.get("/v1/timestamps").json().size() >= n);
        JsonNode list = api.get("/v1/timestamps").json();
        assertThat(list).hasSize(n);
        return list;
    }

    private static byte[] edit(byte[] payload, boolean rehash) {
        try {
            ObjectNode event = (ObjectNode) Api.JSON.readTree(payload);
            event.put("action_name", "something else");
            if (rehash) {
                ObjectNode covered = event.deepCopy();
                covered.remove("hash");
                covered.remove("log_index");
                event.put("hash", HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(Rfc8785.canonicalize(covered))));
            }
            return Rfc8785.canonicalize(event);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void deleteRecursively(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, program)));
    }

}
