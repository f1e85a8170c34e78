package io.trailproof.http;

import io.trailproof.testing.ByteSearch;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A download (format=ndjson or csv) whose answer has started when an event can no longer be read
 * (its frame changed on disk under the server) must not look complete: the status is already sent,
 * so the server cuts the connection and the client sees a broken transfer, never a file that merely
 * ends early. The server goes on serving.
 */
class StreamedDownloadFaultIT {

    private static final int EVENTS = 3000;
    private static final int VICTIM = 500; // streamed newest first: about 2,500 rows (600 KB) go out before it

    @TempDir
    Path dir;

    @Test
    void aDownloadThatMeetsAnUnreadableEventIsCutNotEndedCleanly() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer s = InProcessServer.start(data)) {
            Api api = s.api();
            for (int from = 0; from < EVENTS; from += 1000) {
                StringBuilder b = new StringBuilder("[");
                for (int i = from; i < from + 1000; i++) {
                    b.append(i == from ? "" : ",").append("{\"agent_id\":\"bulk\",\"action_name\":\"step-").append(i)
                            .append("\",\"action_input\":{\"text\":\"").append("x".repeat(150)).append("\"}}");
                }
                assertThat(api.post("/v1/batch", b.append(']').toString()).status()).isEqualTo(201);
            }
            damage(data, "\"action_name\":\"step-" + VICTIM + "\"");

            for (String format : new String[] {"ndjson", "csv"}) {
                HttpResponse<InputStream> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(api.base() + "/v1/events?format=" + format)).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("X-Total-Count")).hasValue(Integer.toString(EVENTS));
                long lines = 0;
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                        lines++;
                    }
                    fail(format + ": the transfer ended cleanly after " + lines + " lines of " + EVENTS);
                } catch (IOException broken) {
                    // what a client must see: an incomplete transfer
                }
                assertThat(lines).as(format + " rows before the damaged event").isGreaterThan(1000).isLessThan(EVENTS);
            }
            assertThat(api.get("/health").status()).isEqualTo(200);
            assertThat(api.get("/v1/events?limit=1").status()).isEqualTo(200);
        }
    }

    /** Flips one bit inside the stored bytes of the event carrying {@code marker}, under the running server. */
    private static void damage(Path data, String marker) throws IOException {
        Path segment;
        try (var files = Files.walk(data)) {
            segment = files.filter(f -> f.toString().endsWith(".seg")).sorted().findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(segment);
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        int at = ByteSearch.indexOf(bytes, marker.getBytes(StandardCharsets.UTF_8));
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) (bytes[at + 3] ^ 0x01)}), at + 3);
        }
    }
}
