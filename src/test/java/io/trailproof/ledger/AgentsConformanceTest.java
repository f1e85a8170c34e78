package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** src/site/http-api.md#endpoints and src/site/http-api.md#agents: {@code chain_valid} is always a verdict, and {@code chain_health} counts every chain. */
class AgentsConformanceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static ObjectNode event(String agent) {
        return JSON.createObjectNode().put("agent_id", agent).put("action_type", "TOOL_CALL");
    }

    @Test
    void aChainNotYetVerifiedIsVerifiedWhenTheAgentsAreListed() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ledger.append(List.of(event("a"), event("b"), event("a")));
            List<AgentSummary> agents = ledger.agents();
            assertThat(agents).extracting(AgentSummary::chainValid).containsExactly(true, true);
            assertThat(agents).allSatisfy(a -> assertThat(a.verifiedAt()).isNotNull());
            assertThat(agents.get(0).headSequence()).isEqualTo(2);
        }
    }

    @Test
    void chainHealthIsValidChainsOverAllChains() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            Path segment = dir.resolve("log").resolve("00000000000000000000.seg");
            ledger.append(List.of(event("b"), event("b"), event("b")));
            long at = Files.size(segment) + 40;
            ledger.append(List.of(event("a")));
            // Damage agent a's event in the log: its frame no longer passes its check.
            try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                ch.read(b, at);
                b.put(0, (byte) (b.get(0) ^ 1)).rewind();
                ch.write(b, at);
            }
            // Neither chain was verified before: both get a verdict now, and one of two is valid.
            assertThat(ledger.stats().chainHealth()).isEqualTo(0.5);
            assertThat(ledger.agents()).extracting(AgentSummary::chainValid).containsExactly(false, true);
        }
    }
}
