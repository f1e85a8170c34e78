package io.trailproof.backup;

import java.time.Duration;
import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code trailproof restore} killed with SIGKILL in the middle leaves the target absent (the
 * staging directory beside it is never renamed), and a second restore into it then succeeds.
 */
class RestoreCrashIT {

    @TempDir
    Path dir;

    @Test
    void aRestoreKilledMidwayLeavesTheTargetAbsent() throws Exception {
        Path tar = dir.resolve("b.tar");
        HttpClient http = HttpClient.newHttpClient();
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            String pad = "x".repeat(2000);
            for (int b = 0; b < 20; b++) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < 1000; i++) {
                    batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"a").append(i % 10)
                            .append("\",\"metadata\":{\"pad\":\"").append(pad).append("\"}}");
                }
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/batch"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(batch.append("]").toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(201);
            }
            HttpResponse<Path> r = http.send(HttpRequest.newBuilder(URI.create(s.api().base() + "/v1/admin/backup")).build(),
                    HttpResponse.BodyHandlers.ofFile(tar));
            assertThat(r.statusCode()).isEqualTo(200);
        }
        Path target = dir.resolve("restored");
        Process p = ServerProcess.onTestJdk(new ProcessBuilder(List.of(ServerProcess.launcher().toString(), "restore",
                tar.toString(), "--data-dir", target.toString())).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out").toFile())).start();
        // Kill it as soon as it has started writing into its staging directory.
        Await.untilTrue("the restore writes into its staging directory, or ends", Duration.ofSeconds(60),
                () -> stagingHasFiles() || !p.isAlive());
        boolean killed = false;
        if (p.isAlive() && stagingHasFiles()) {
            p.destroyForcibly();
            killed = true;
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(killed).as("the restore was killed before it finished: " + Files.readString(dir.resolve("out")))
                .isTrue();
        assertThat(target).doesNotExist();

        Cli.Run again = Cli.run("restore", tar.toString(), "--data-dir", target.toString());
        assertThat(again.exit()).as(again.toString()).isZero();
        assertThat(again.out()).contains("restored tree size 20000");
    }

    private boolean stagingHasFiles() throws Exception {
        try (Stream<Path> siblings = Files.list(dir)) {
            for (Path p : siblings.filter(x -> x.getFileName().toString().startsWith(".restored.restoring-")).toList()) {
                try (Stream<Path> inside = Files.walk(p)) {
                    if (inside.anyMatch(Files::isRegularFile)) {
                        return true;
                    }
                }
            }
        } catch (UncheckedIOException | NoSuchFileException e) {
            return false;   // the staging directory changed under the walk
        }
        return false;
    }
}
