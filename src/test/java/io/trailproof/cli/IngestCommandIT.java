package io.trailproof.cli;

import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class IngestCommandIT {

    @TempDir
    Path dir;

    @Test
    void sendsEveryLineAndReportsRefusalsByLineNumber() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            String url = "http://127.0.0.1:" + server.server().port();
            Path good = dir.resolve("good.jsonl");
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < 25; i++) {
                lines.append("{\"agent_id\":\"ingest-a\",\"action_name\":\"step ").append(i).append("\"}\n");
            }
            lines.append("\n");
            Files.writeString(good, lines);
            assertThat(Main.run("ingest", good.toString(), "--server", url, "--batch-size", "10")).isZero();
            assertThat(server.server().ledger().size()).isEqualTo(25);

            Path mixed = dir.resolve("mixed.jsonl");
            Files.writeString(mixed, "{\"agent_id\":\"ingest-b\"}\n{not json\n{\"action_type\":\"no agent\"}\n{\"agent_id\":\"ingest-b\"}\n");
            assertThat(Main.run("ingest", mixed.toString(), "--server", url)).isEqualTo(1);
            assertThat(server.server().ledger().size()).isEqualTo(27);

            assertThat(Main.run("ingest", dir.resolve("missing.jsonl").toString(), "--server", url)).isEqualTo(2);
            assertThat(Main.run("ingest", good.toString(), "--server", "http://127.0.0.1:1")).isEqualTo(1);
        }
    }

    @Test
    void runningIngestAgainAfterAFailureNeverStoresALineTwice() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            String url = "http://127.0.0.1:" + server.server().port();
            Path file = dir.resolve("events.jsonl");
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < 25; i++) {
                lines.append("{\"agent_id\":\"again\",\"action_name\":\"step ").append(i).append("\"}\n");
            }
            Files.writeString(file, lines);
            // An earlier run stored the first batch (lines 1-10), then failed.
            StringBuilder first = new StringBuilder("[");
            String[] all = lines.toString().split("\n");
            for (int i = 0; i < 10; i++) {
                first.append(i == 0 ? "" : ",").append(all[i]);
            }
            ServerClient client = new ServerClient(URI.create(url), null);
            String key = IngestCommand.batchKey(IngestCommand.fileIdentity(file), 1, 10);
            assertThat(client.post("/v1/batch", first.append("]").toString().getBytes(), key).status()).isEqualTo(201);
            assertThat(server.server().ledger().size()).isEqualTo(10);

            assertThat(Main.run("ingest", file.toString(), "--server", url, "--batch-size", "10")).isZero();
            assertThat(server.server().ledger().size()).isEqualTo(25);
            // and the whole run once more: nothing new, and it says so
            Cli.Run again = Cli.run("ingest", file.toString(), "--server", url, "--batch-size", "10");
            assertThat(again.exit()).as(again.toString()).isZero();
            assertThat(server.server().ledger().size()).isEqualTo(25);
            assertThat(again.out()).contains("25 events stored, 0 refused").contains("25 of the stored events were already stored");
        }
    }
}
