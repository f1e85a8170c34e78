package io.trailproof.backup;

import io.trailproof.testing.ByteSearch;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * src/site/operations.md end to end: a backup of a server that 4 clients keep writing to, restored offline by
 * the real {@code trailproof restore}, and a server started on it; and the refusals.
 */
class BackupIT {

    private static final String ADMIN = "backup-admin-key";
    private static final String WRITER = "backup-writer-key";
    private static final String[] KEYS = {"auth.api-keys", ADMIN + "," + WRITER + ":ingest+read",
            // The restored root is compared with the one read at the backup; records of reads would move it.
            "access-trail.enabled", "false"};

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(InProcessServer s, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.api().base() + path)).timeout(Duration.ofSeconds(60));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String batch(int client, int round) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < 20; i++) {
            b.append(i == 0 ? "" : ",").append("{\"agent_id\":\"agent-").append(client).append("\",\"action_type\":\"tool_call\"")
                    .append(",\"metadata\":{\"round\":").append(round).append(",\"i\":").append(i).append("}}");
        }
        return b.append("]").toString();
    }

    @Test
    void aBackupTakenUnderLoadRestoresToAServerWithItsRootAndEveryEvent() throws Exception {
        try (TestTsa tsa = TestTsa.start()) {
            Path ca = tsa.writeRootPem(dir.resolve("ca.pem"));
            String[] config = {KEYS[0], KEYS[1], KEYS[2], KEYS[3], "timestamp.default-tsa-url", tsa.url(), "timestamp.trust-anchors",
                    ca.toString(), "timestamp.timeout-ms", "15000"};
            backupUnderLoad(config);
        }
    }

    private void backupUnderLoad(String[] config) throws Exception {
        Path backupFile = dir.resolve("backup.tar");
        String vkey;
        Path restored = dir.resolve("restored");
        Map<Long, JsonNode> acknowledged = new ConcurrentHashMap<>();
        long size;
        String root;
        long sizeAfter;
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), config)) {
            vkey = Api.JSON.readTree(get(s, "/v1/checkpoint/key", ADMIN).body()).get("vkey").asText();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong stored = new AtomicLong();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    for (int round = 0; !stop.get(); round++) {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/batch"))
                                .header("Authorization", "Bearer " + WRITER).header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(batch(client, round))).build(),
                                HttpResponse.BodyHandlers.ofString());
                        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
                        for (JsonNode item : Api.JSON.readTree(r.body())) {
                            JsonNode e = item.get("event");
                            acknowledged.put(e.get("log_index").asLong(), e);
                        }
                        stored.addAndGet(20);
                    }
                    return null;
                }));
            }
            Await.until("1000 events stored before the first backup", Duration.ofMinutes(2), () -> stored.get() >= 1000);
            // A timestamp while the clients write: its record goes into the backup with the log.
            HttpResponse<String> stamp = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/timestamp"))
                    .header("Authorization", "Bearer " + ADMIN).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(stamp.statusCode()).as(stamp.body()).isEqualTo(201);
            Await.until("2000 events stored before the second backup", Duration.ofMinutes(2), () -> stored.get() >= 2000);
            // The CLI's backup, while the 4 clients keep writing.
            Cli.Run backup = Cli.launch(Map.of(), "backup", "-o", backupFile.toString(), "--server", s.api().base(),
                    "--api-key", ADMIN, "--json");
            assertThat(backup.exit()).as(backup.toString()).isZero();
            JsonNode summary = Api.JSON.readTree(backup.out());
            size = summary.get("tree_size").asLong();
            root = summary.get("root").asText();
            // And the endpoint itself: its headers name what its manifest says.
            HttpResponse<byte[]> raw = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/admin/backup"))
                    .header("Authorization", "Bearer " + ADMIN).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(raw.statusCode()).isEqualTo(200);
            assertThat(raw.headers().firstValue("Content-Type")).hasValue("application/x-tar");
            BackupManifest m = Restore.check(new ByteArrayInputStream(raw.body()), x -> { });
            assertThat(raw.headers().firstValue("X-Tree-Size")).hasValue(String.valueOf(m.treeSize()));
            assertThat(raw.headers().firstValue("X-Root")).hasValue(m.root());
            assertThat(m.treeSize()).isGreaterThanOrEqualTo(size);
            long before = stored.get();
            // ingestion goes on after the backups
            Await.until("200 more events stored after the backups", Duration.ofMinutes(2), () -> stored.get() >= before + 200);
            stop.set(true);
            for (Future<?> f : running) {
                f.get();
            }
            clients.shutdown();
            sizeAfter = Api.JSON.readTree(get(s, "/v1/merkle/root", ADMIN).body()).get("tree_size").asLong();
            assertThat(get(s, "/v1/merkle/root?tree_size=" + size, ADMIN).body()).contains(root);
        }
        assertThat(size).isGreaterThanOrEqualTo(2000).isLessThan(sizeAfter);

        Cli.Run restore = Cli.run("restore", backupFile.toString(), "--data-dir", restored.toString());
        assertThat(restore.exit()).as(restore.toString()).isZero();
        assertThat(restore.out()).contains("restored tree size " + size);
        assertThat(restored.resolve("index")).doesNotExist();
        assertThat(restored.resolve("merkle")).doesNotExist();

        try (InProcessServer r = InProcessServer.start(restored, config)) {
            // The same log identity, its timestamp, and no refusal to sign: the backup's signed
            // checkpoint is not ahead of its log.
            assertThat(Api.JSON.readTree(get(r, "/v1/checkpoint/key", ADMIN).body()).get("vkey").asText()).isEqualTo(vkey);
            JsonNode stamps = Api.JSON.readTree(get(r, "/v1/timestamps", ADMIN).body());
            assertThat(stamps.size()).isEqualTo(1);
            assertThat(stamps.get(0).get("tree_size").asLong()).isLessThanOrEqualTo(size);
            HttpResponse<String> stampCheck = get(r, "/v1/timestamps/verify", ADMIN);
            assertThat(stampCheck.statusCode()).as(stampCheck.body()).isEqualTo(200);
            Await.untilTrue("the restored service's checkpoint covers its log", Duration.ofSeconds(30),
                    () -> Api.JSON.readTree(get(r, "/health", null).body()).get("checkpoint_size").asLong() >= size);
            JsonNode health = Api.JSON.readTree(get(r, "/health", null).body());
            assertThat(health.get("status").asText()).as(health.toString()).isEqualTo("ok");
            assertThat(health.get("checkpoint_size").asLong()).isEqualTo(size);
            JsonNode now = Api.JSON.readTree(get(r, "/v1/merkle/root", ADMIN).body());
            assertThat(now.get("tree_size").asLong()).isEqualTo(size);
            assertThat(now.get("root").asText()).isEqualTo(root);
            // Every acknowledged event below the backup's size is there, byte for byte as answered.
            long checked = 0;
            for (long i = 0; i < size; i++) {
                JsonNode e = acknowledged.get(i);
                assertThat(e).as("event at log index " + i + " was acknowledged").isNotNull();
                if (i % 7 == 0 || i == size - 1) {
                    HttpResponse<String> got = get(r, "/v1/events/" + e.get("id").asText(), ADMIN);
                    assertThat(got.statusCode()).isEqualTo(200);
                    assertThat(Api.JSON.readTree(got.body())).isEqualTo(e);
                    checked++;
                }
            }
            assertThat(checked).isPositive();
            Set<String> agents = new TreeSet<>();
            acknowledged.values().stream().filter(e -> e.get("log_index").asLong() < size)
                    .forEach(e -> agents.add(e.get("agent_id").asText()));
            for (String agent : agents) {
                JsonNode v = Api.JSON.readTree(get(r, "/v1/verify?agent_id=" + agent, ADMIN).body());
                assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
            }
            // The index was rebuilt from the log: a search sees every restored event.
            // (503 while the index catches up with the log after the start)
            AtomicReference<HttpResponse<String>> searched = new AtomicReference<>();
            Await.untilTrue("the restored index answers a search", Duration.ofSeconds(60), () -> {
                searched.set(get(r, "/v1/search?q=action_type:tool_call&limit=1", ADMIN));
                return searched.get().statusCode() != 503;
            });
            HttpResponse<String> found = searched.get();
            assertThat(found.statusCode()).as(found.body()).isEqualTo(200);
            assertThat(Api.JSON.readTree(found.body()).get("total").asLong()).as(found.body()).isEqualTo(size);
            // And the CLI's verify, against the restored server.
            Cli.Run verify = Cli.run("verify", "--agent-id", agents.iterator().next(), "--server", r.api().base(),
                    "--api-key", ADMIN);
            assertThat(verify.exit()).as(verify.toString()).isZero();
        }
    }

    @Test
    void truncatedAlteredOrMisdirectedRestoresAreRefusedAndLeaveNothing() throws Exception {
        Path backupFile = dir.resolve("b.tar");
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), KEYS)) {
            for (int round = 0; round < 20; round++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/batch"))
                        .header("Authorization", "Bearer " + WRITER).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(batch(round % 3, round))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(201);
            }
            // Roles: an ingest+read key is refused, no key is asked for one.
            HttpResponse<String> forbidden = get(s, "/v1/admin/backup", WRITER);
            assertThat(forbidden.statusCode()).isEqualTo(403);
            assertThat(forbidden.body()).contains("\"error\"");
            assertThat(get(s, "/v1/admin/backup", null).statusCode()).isEqualTo(401);
            Cli.Run refused = Cli.run("backup", "-o", backupFile.toString(), "--server", s.api().base(), "--api-key", WRITER);
            assertThat(refused.exit()).isEqualTo(1);
            assertThat(backupFile).doesNotExist();
            Cli.Run ok = Cli.run("backup", "-o", backupFile.toString(), "--server", s.api().base(), "--api-key", ADMIN);
            assertThat(ok.exit()).as(ok.toString()).isZero();
        }
        byte[] tar = Files.readAllBytes(backupFile);

        Path truncated = Files.write(dir.resolve("truncated.tar"), Arrays.copyOf(tar, tar.length * 2 / 3));
        Path target = dir.resolve("t1");
        Cli.Run r1 = Cli.run("restore", truncated.toString(), "--data-dir", target.toString());
        assertThat(r1.exit()).as(r1.toString()).isEqualTo(1);
        assertThat(r1.err()).contains("restore refused").contains("truncated");
        assertThat(target).doesNotExist();

        byte[] altered = tar.clone();
        int at = ByteSearch.indexOf(altered, "\"round\":7".getBytes());
        altered[at + 8] = '9';
        Path alteredFile = Files.write(dir.resolve("altered.tar"), altered);
        Path target2 = Files.createDirectories(dir.resolve("t2"));
        Cli.Run r2 = Cli.run("restore", alteredFile.toString(), "--data-dir", target2.toString());
        assertThat(r2.exit()).as(r2.toString()).isEqualTo(1);
        assertThat(r2.err()).contains("restore refused").contains("does not match its SHA-256");
        assertThat(target2).isEmptyDirectory();

        Path full = Files.createDirectories(dir.resolve("full"));
        Files.writeString(full.resolve("mine.txt"), "keep me");
        Cli.Run r3 = Cli.run("restore", backupFile.toString(), "--data-dir", full.toString());
        assertThat(r3.exit()).as(r3.toString()).isEqualTo(2);
        assertThat(r3.err()).contains("is not empty");
        assertThat(Files.readString(full.resolve("mine.txt"))).isEqualTo("keep me");
        try (var files = Files.list(full)) {
            assertThat(files.count()).isEqualTo(1);
        }
        try (var siblings = Files.list(dir)) {
            assertThat(siblings.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".restoring-"));
        }
    }

    @Test
    void aBackupCutOffOrDamagedInTransitLeavesNoFile() throws Exception {
        byte[] tar;
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), KEYS)) {
            for (int round = 0; round < 5; round++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/batch"))
                        .header("Authorization", "Bearer " + WRITER).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(batch(round, round))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(201);
            }
            tar = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/admin/backup"))
                    .header("Authorization", "Bearer " + ADMIN).build(), HttpResponse.BodyHandlers.ofByteArray()).body();
        }
        byte[] damaged = tar.clone();
        damaged[ByteSearch.indexOf(damaged, "\"round\":3".getBytes()) + 8] = '4';
        // A stand-in server: the first answer stops after half the archive (its connection closed), the
        // second is whole but one byte differs.
        HttpServer fake = HttpServer.create(
                new InetSocketAddress("127.0.0.1", 0), 0);
        AtomicInteger calls = new AtomicInteger();
        fake.createContext("/v1/admin/backup", ex -> {
            boolean cut = calls.getAndIncrement() == 0;
            ex.getResponseHeaders().add("Content-Type", "application/x-tar");
            ex.sendResponseHeaders(200, tar.length);
            try (var out = ex.getResponseBody()) {
                out.write(cut ? Arrays.copyOf(tar, tar.length / 2) : damaged);
                out.flush();
                if (cut) {
                    ex.close();
                    throw new IOException("cut");
                }
            }
        });
        fake.start();
        try {
            String url = "http://127.0.0.1:" + fake.getAddress().getPort();
            Path target = dir.resolve("cut.tar");
            Cli.Run cut = Cli.run("backup", "-o", target.toString(), "--server", url);
            assertThat(cut.exit()).as(cut.toString()).isEqualTo(1);
            assertThat(cut.err()).contains("the backup failed").contains("nothing was written");
            Cli.Run bad = Cli.run("backup", "-o", target.toString(), "--server", url);
            assertThat(bad.exit()).as(bad.toString()).isEqualTo(1);
            assertThat(bad.err()).contains("does not match its SHA-256");
            assertThat(target).doesNotExist();
            try (var files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".part"));
            }
        } finally {
            fake.stop(0);
        }
    }

}
