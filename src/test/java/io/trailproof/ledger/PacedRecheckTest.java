package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.Pacer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class PacedRecheckTest {

    @TempDir
    Path dir;

    /** The periodic check walks every chain at the pace; the same verdicts as an unpaced walk. */
    @Test
    void theRecheckOfEveryChainIsPaced() throws Exception {
        ObjectMapper json = new ObjectMapper();
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 16, 1000), Clock.systemUTC(), new Random(1))) {
            List<ObjectNode> events = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                events.add(json.createObjectNode().put("agent_id", "agent-" + (i % 3)).put("action_type", "TOOL_CALL"));
            }
            ledger.append(events);
            long[] now = {0};
            List<Long> sleeps = new ArrayList<>();
            // Each pace() call sees 2 ms of work: every third call (6 ms, past the 5 ms slice) sleeps.
            Pacer p = new Pacer(0.5, () -> now[0] += 2_000_000, sleeps::add);
            assertThat(ledger.verifyAll(p)).isEqualTo(3);
            assertThat(ledger.verifyAll()).isEqualTo(3);
            // 3000 events, a pace() every 64: 45 calls, a sleep on every third.
            assertThat(sleeps).hasSize(15);
        }
    }
}
