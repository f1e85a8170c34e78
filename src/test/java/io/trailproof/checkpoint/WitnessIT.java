package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The add-checkpoint client against a spec-following witness written here ({@link TestWitness}). */
class WitnessIT {
    // The key is configured so that the witness can know it before the service starts.
    private static final String LOG_SKEY = NoteSigner.of("example.com/witnessed", new byte[32])
            .privateKeyText();

    @TempDir
    Path dir;

    private String[] config(String witnessUrl) throws Exception {
        Path key = dir.resolve("log.key");
        Files.writeString(key, LOG_SKEY + "\n");
        return new String[] {"checkpoint.interval", "PT0.05S", "checkpoint.signing-key", key.toString(),
            "checkpoint.witnesses", TestWitness.vkey() + "@" + witnessUrl};
    }

    private static String logVkey() throws Exception {
        return NoteSigner.parse(LOG_SKEY).vkey();
    }

    @Test
    void servedCheckpointsCarryTheCosignatureAlsoAfterTheWitnessWasDown() throws Exception {
        TestWitness witness = new TestWitness(logVkey(), dir.resolve("witness-state"), 0);
        int port = witness.port();
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), config(witness.url()))) {
            Api api = server.api();
            CheckpointTilesIT.ingest(api, 20);
            awaitCosigned(api, 20);

            witness.close(); // down for a while
            CheckpointTilesIT.ingest(api, 30);
            CheckpointTilesIT.awaitCheckpoint(api, 50);
            Await.untilTrue("/health names the witness that is down", Duration.ofSeconds(30),
                    () -> api.get("/health").json().get("problems").toString().contains("witness " + TestWitness.NAME));
            witness = new TestWitness(logVkey(), dir.resolve("witness-state"), port);
            awaitCosigned(api, 50); // the back-off retry sends the latest checkpoint, from the witness's old size
            assertThat(api.get("/health").json().get("status").asText()).isEqualTo("ok");
            // Metrics (src/site/operations.md): the cosignature at size 20 and the failures while the witness was down.
            String metrics = api.get("/metrics").body();
            assertThat(metrics).containsPattern("trailproof_witness_requests_total\\{outcome=\"success\",witness=\""
                    + Pattern.quote(TestWitness.NAME) + "\"\\} [1-9]");
            assertThat(metrics).containsPattern("trailproof_witness_requests_total\\{outcome=\"failure\",witness=\""
                    + Pattern.quote(TestWitness.NAME) + "\"\\} [1-9]");

            // A tlog-proof carries the cosigned checkpoint.
            String id = api.post("/v1/events", "{\"agent_id\":\"x\"}").json().get("id").asText();
            awaitCosigned(api, 51);
            String proof = api.get("/v1/merkle/proof?event_id=" + id + "&format=tlog-proof").body();
            assertThat(proof).contains("\u2014 " + TestWitness.NAME + " ");
        } finally {
            witness.close();
        }
    }

    @Test
    void aWitnessHoldingAnotherHistoryRaisesTheSplitViewAlarmAndIsNotRetriedPast() throws Exception {
        try (TestWitness witness = new TestWitness(logVkey(), dir.resolve("witness-state"), 0)) {
            try (InProcessServer server = InProcessServer.start(dir.resolve("data"), config(witness.url()))) {
                Api api = server.api();
                awaitCosigned(api, 0);
                // Someone showed the witness another size-3 tree of this origin: our consistency proof
                // from 3 cannot match its root (422).
                witness.store(3, new byte[32]);
                CheckpointTilesIT.ingest(api, 10);
                Await.untilTrue("the split view is reported", Duration.ofSeconds(30),
                        () -> api.get("/health").json().get("problems").toString().contains("SPLIT VIEW"));
                String problems = api.get("/health").json().get("problems").toString();
                assertThat(problems).contains("SPLIT VIEW").contains(TestWitness.NAME).contains("422");
                int requests = witness.requests.get();
                CheckpointTilesIT.ingest(api, 5);
                CheckpointTilesIT.awaitCheckpoint(api, 15);
                Await.nothingHappensWithin("the witness that showed a split view is asked again");
                assertThat(witness.requests.get()).isEqualTo(requests);
                String served = api.get("/checkpoint").body();
                assertThat(served).doesNotContain(TestWitness.NAME);
            }
            // The alarm outlives a restart, even if the witness were made to agree again.
            witness.store(0, Rfc9162.emptyRoot());
            int before = witness.requests.get();
            try (InProcessServer server = InProcessServer.start(dir.resolve("data"), config(witness.url()))) {
                Await.nothingHappensWithin("the witness is asked again after a restart");
                assertThat(server.api().get("/health").json().get("problems").toString()).contains("SPLIT VIEW");
                assertThat(witness.requests.get()).isEqualTo(before);
            }
        }
    }

    private static void awaitCosigned(Api api, long size) throws Exception {
        NoteVerifier log = VerifierKey.parse(logVkey());
        NoteVerifier w = VerifierKey.parse(TestWitness.vkey());
        try {
            Await.untilTrue("a cosigned checkpoint of size " + size, Duration.ofSeconds(30), () -> {
                Api.Reply r = api.get("/checkpoint");
                if (r.status() != 200) {
                    return false;
                }
                NoteVerification.Opened o = NoteVerification.open(r.body().getBytes(StandardCharsets.UTF_8), List.of(log, w));
                return TlogCheckpoint.parse(o.note().text()).size() == size && o.signedBy(w);
            });
        } catch (AssertionError timedOut) {
            throw new AssertionError(timedOut.getMessage() + ": " + api.get("/checkpoint").body() + api.get("/health").body());
        }
    }
}
