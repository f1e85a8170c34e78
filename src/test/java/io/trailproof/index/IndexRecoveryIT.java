package io.trailproof.index;

import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** A deleted or damaged index is rebuilt from the log at start, with nobody's help (src/site/storage.md). */
class IndexRecoveryIT {

    @TempDir
    Path dir;

    private static void fill(Api api, int events) throws Exception {
        fill(api, 0, events);
    }

    /** Events numbered {@code from .. from+events-1}: agent agent-(n % 3), action name "step numberN", label n=N. */
    private static void fill(Api api, int from, int events) throws Exception {
        StringBuilder batch = new StringBuilder("[");
        for (int i = from; i < from + events; i++) {
            batch.append(i == from ? "" : ",").append("{\"agent_id\":\"agent-").append(i % 3)
                    .append("\",\"action_name\":\"step number").append(i).append("\",\"labels\":{\"n\":\"").append(i)
                    .append("\"}}");
        }
        assertThat(api.post("/v1/batch", batch.append("]").toString()).status()).isEqualTo(201);
    }

    private static void assertEverythingSearchable(Api api, int events) throws Exception {
        assertThat(api.get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo(Integer.toString(events));
        assertThat(api.get("/v1/search?q=number7").json().get("total").asLong()).isEqualTo(1);
        assertThat(api.get("/v1/events?agent_id=agent-1").header("X-Total-Count"))
                .isEqualTo(Integer.toString((events + 1) / 3));
        assertThat(api.get("/v1/events?label.n=" + (events - 1)).header("X-Total-Count")).isEqualTo("1");
    }

    /** Waits until /health no longer lists the index's check of its checksums under {@code loading}. */
    private static void awaitIndexChecked(Api api) throws Exception {
        Await.untilTrue("the search index's check is done", Duration.ofSeconds(30),
                () -> !api.get("/health").json().get("loading").toString().contains("index check"));
    }

    private static Path liveGeneration(Path data) throws IOException {
        return data.resolve("index").resolve(Files.readString(data.resolve("index/current")).trim());
    }

    @Test
    void aDeletedIndexIsRebuiltAtStart() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 500);
            assertEverythingSearchable(server.api(), 500);
        }
        deleteTree(data.resolve("index"));
        try (InProcessServer server = InProcessServer.start(data)) {
            assertEverythingSearchable(server.api(), 500);
            fill(server.api(), 500, 100);
            assertEverythingSearchable(server.api(), 600);
        }
        try (InProcessServer server = InProcessServer.start(data)) {
            assertEverythingSearchable(server.api(), 600);
        }
    }

    @Test
    void anIndexOfAnOlderFormatIsRebuiltAtStart() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 500);
            assertEverythingSearchable(server.api(), 500);
        }
        Path old = liveGeneration(data);
        LuceneEventIndexTest.markFormat(old, "0");
        try (InProcessServer server = InProcessServer.start(data)) {
            assertEverythingSearchable(server.api(), 500);
            assertThat(liveGeneration(data)).isNotEqualTo(old);
            assertThat(old).doesNotExist();
            assertThat(data.resolve("index/damaged")).doesNotExist(); // an upgrade, not damage
        }
    }

    @Test
    void aTruncatedIndexFileIsMovedAsideAndTheIndexRebuilt() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 3000);
            assertEverythingSearchable(server.api(), 3000);
        }
        Path largest;
        try (Stream<Path> files = Files.list(liveGeneration(data))) {
            largest = files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("segments")
                    && !p.getFileName().toString().equals("write.lock"))
                    .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
        }
        try (FileChannel ch = FileChannel.open(largest, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2);
        }
        try (InProcessServer server = InProcessServer.start(data)) {
            awaitIndexChecked(server.api());
            assertEverythingSearchable(server.api(), 3000);
            assertThat(data.resolve("index/damaged")).isDirectory();
        }
    }

    @Test
    void aFlippedByteInAnIndexFileIsFoundAndTheIndexRebuilt() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 2000);
            assertEverythingSearchable(server.api(), 2000);
        }
        Path victim;
        try (Stream<Path> files = Files.list(liveGeneration(data))) {
            victim = files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("segments")
                    && !p.getFileName().toString().equals("write.lock"))
                    .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(victim);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(victim, bytes);
        try (InProcessServer server = InProcessServer.start(data)) {
            // Found by the check after the start (the start reads no file whole), or by the start itself.
            awaitIndexChecked(server.api());
            assertThat(data.resolve("index/damaged")).isDirectory();
            assertEverythingSearchable(server.api(), 2000);
            assertThat(server.api().get("/v1/events?limit=1").header("X-Index-Check")).isNull();
        }
    }

    @Test
    void anIndexAheadOfTheLogIsReplaced() throws Exception {
        Path big = dir.resolve("big");
        Path small = dir.resolve("small");
        try (InProcessServer server = InProcessServer.start(big)) {
            fill(server.api(), 300);
        }
        try (InProcessServer server = InProcessServer.start(small)) {
            fill(server.api(), 30);
        }
        deleteTree(small.resolve("index"));
        copyTree(big.resolve("index"), small.resolve("index"));
        try (InProcessServer server = InProcessServer.start(small)) {
            assertThat(server.api().get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo("30");
        }
    }

    @Test
    void aCleanStopLeavesTheIndexLevelWithTheLog() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 1500); // no read: the follower may not have caught up when the stop begins
        }
        try (LuceneEventIndex index = LuceneEventIndex.open(liveGeneration(data))) {
            assertThat(index.size()).isEqualTo(1500);
        }
    }

    static void deleteTree(Path p) throws IOException {
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path f : walk.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else if (!f.getFileName().toString().equals("write.lock")) {
                    Files.copy(f, target);
                }
            }
        }
    }
}
