package io.trailproof.gate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.policy.Effect;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start leaves the gate's first pass over a long log to the gate's thread: the start returns
 * before it, and a gate read that comes first waits for it and sees the state the log holds, never
 * an empty one.
 */
class GateStartTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Gate gate(Ledger ledger) {
        GateWrites writes = (fields, claim) -> ledger.appendComposedAsync(fields, null)
                .thenApply(o -> new GateWrites.Stored(o.event().logIndex(), false, o.event()));
        return new Gate(ledger, writes, null, Effect.ASK, Duration.ofMinutes(5), Duration.ofMinutes(5),
                Clock.systemUTC(), dir.resolve(Gate.DECISIONS_FILE));
    }

    @Test
    void aReadBeforeTheFirstPassEndsWaitsForItAndSeesTheLogsState() throws Exception {
        List<String> decisions = new ArrayList<>();
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(7))) {
            Gate first = gate(ledger);
            first.start();
            for (int i = 0; i < 20; i++) {
                List<ObjectNode> filler = new ArrayList<>();
                for (int j = 0; j < 500; j++) {
                    filler.add(JSON.createObjectNode().put("agent_id", "agent-" + (j % 7)).put("action_type", "TOOL_CALL"));
                }
                ledger.append(filler);
                ObjectNode proposal = JSON.createObjectNode().put("agent_id", "agent-" + i).put("action_type", "TOOL_CALL")
                        .put("action_name", "transfer");
                long at = first.decide(proposal, null).get(30, TimeUnit.SECONDS).stored().logIndex();
                decisions.add(first.eventId(at));
            }
            first.close();

            Gate restarted = gate(ledger);
            restarted.start(0);   // the whole first pass on the gate's thread
            List<CompletableFuture<Boolean>> reads = new ArrayList<>();
            for (String id : decisions) {
                reads.add(CompletableFuture.supplyAsync(() -> restarted.decisionState(id).isPresent()));
            }
            for (CompletableFuture<Boolean> read : reads) {
                assertThat(read.get(60, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(restarted.pending(100)).hasSize(decisions.size());
            Await.until("the gate's first pass is done", Duration.ofSeconds(60), restarted::loaded);
            restarted.close();
        }
    }
}
