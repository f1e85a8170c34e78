package io.trailproof.erasure;

import java.time.Duration;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.backup.BackupManifest;
import io.trailproof.backup.OnlineBackup;
import io.trailproof.backup.Restore;
import io.trailproof.backup.Snapshot;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventFields;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.ledger.LogFileHolds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Erasures and online backups exclude each other (src/site/erasure.md#crash-safety-of-an-erasure):
 * a backup fixes file prefixes that must not change until it has sent them, and an erasure rewrites
 * files. An erasure waits for a running backup, whose tar then restores with every digest
 * matching; a backup asked for during an erasure's rewrite waits for it and holds no erased byte.
 */
class ErasureBackupExclusionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ErasureService.Selector SUBJECT = new ErasureService.Selector(null, "subject", null, null,
            null, null);

    @TempDir
    Path dir;

    private static void fill(Ledger ledger) throws Exception {
        for (int i = 0; i < 120; i++) {
            ObjectNode e = JSON.createObjectNode().put("agent_id", i % 2 == 0 ? "subject" : "other");
            e.putObject("action_input").put("text", (i % 2 == 0 ? "backupexclmark" : "keep") + i + " padding padding");
            ledger.append(List.of(e));
        }
    }

    private static byte[] tar(Snapshot s) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void anErasureWaitsForARunningBackupWhoseTarStaysValid() throws Exception {
        Path data = dir.resolve("data");
        try (Ledger ledger = Ledger.open(data, new LedgerOptions(2048, 50), Clock.systemUTC(), new Random(1));
             SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC())) {
            fill(ledger);
            ErasureService erasures = new ErasureService(ledger, index);
            OnlineBackup backup = new OnlineBackup(data, ledger, List::of, Clock.systemUTC());
            Snapshot snapshot;
            CompletableFuture<Object> erasure;
            try (LogFileHolds.Hold hold = backup.holdFiles()) {
                snapshot = backup.capture();
                erasure = CompletableFuture.supplyAsync(() -> {
                    try {
                        return erasures.erase(SUBJECT, EventErasure.ERASABLE, "test", null);
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                // the erasure is recorded, then waits for the backup before it rewrites anything
                Await.until("the erasure is recorded", Duration.ofSeconds(30),
                        () -> ledger.agentPositions(EventFields.ERASURES_AGENT).length > 0);
                assertThat(ledger.agentPositions(EventFields.ERASURES_AGENT)).hasSize(1);
                assertThat(erasure).isNotDone();
                byte[] tar = tar(snapshot);
                assertThat(erasure).isNotDone();
                BackupManifest m = Restore.run(new ByteArrayInputStream(tar), dir.resolve("restored"), n -> { });
                assertThat(m.treeSize()).isEqualTo(snapshot.manifest().treeSize());
                assertThat(ErasureIT.containsAnywhere(dir.resolve("restored"), "backupexclmark")).isTrue();
            }
            erasure.get(60, TimeUnit.SECONDS);
            assertThat(ErasureIT.containsAnywhere(data, "backupexclmark")).isFalse();
        }
    }

    @Test
    void aBackupAskedForDuringARewriteWaitsForItAndHoldsNoErasedByte() throws Exception {
        Path data = dir.resolve("data");
        try (Ledger ledger = Ledger.open(data, new LedgerOptions(2048, 50), Clock.systemUTC(), new Random(1));
             SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC())) {
            fill(ledger);
            ErasureService erasures = new ErasureService(ledger, index);
            OnlineBackup backup = new OnlineBackup(data, ledger, List::of, Clock.systemUTC());
            CountDownLatch inRewrite = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            ledger.erasures().probe(step -> {
                if (step.equals("segment-renamed") && inRewrite.getCount() > 0) {
                    inRewrite.countDown();
                    try {
                        resume.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            CompletableFuture<Object> erasure = CompletableFuture.supplyAsync(() -> {
                try {
                    return erasures.erase(SUBJECT, EventErasure.ERASABLE, "test", null);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(inRewrite.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<byte[]> tar = CompletableFuture.supplyAsync(() -> {
                try (LogFileHolds.Hold hold = backup.holdFiles()) {
                    return tar(backup.capture());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Await.nothingHappensWithin("the backup passes the erasure's hold");
            assertThat(tar).isNotDone();
            resume.countDown();
            erasure.get(60, TimeUnit.SECONDS);
            byte[] archive = tar.get(60, TimeUnit.SECONDS);
            assertThat(new String(archive, StandardCharsets.ISO_8859_1)).doesNotContain("backupexclmark");
            Restore.run(new ByteArrayInputStream(archive), dir.resolve("restored"), n -> { });
        }
    }
}
