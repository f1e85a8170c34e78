package io.trailproof.ledger;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restoring positions from the journal's records, grouped by agent, gives every agent exactly the
 * positions a one-at-a-time replay gives (seeded-random records: few agents and many events, many
 * agents and few events).
 */
class AgentTableRestoreTest {

    @Test
    void groupedRestoreGivesEachAgentItsPositionsInLogOrder() {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            int agents = 1 + rnd.nextInt(seed % 2 == 0 ? 8 : 3_000);
            List<List<Long>> reference = new ArrayList<>();
            AgentTable table = new AgentTable();
            for (int o = 0; o < agents; o++) {
                assertThat(table.restoreAgent(o, "agent-" + o)).isTrue();
                reference.add(new ArrayList<>());
            }
            long at = 0;
            for (int r = 0; r < 1 + rnd.nextInt(20); r++) {
                int[] ordinals = new int[rnd.nextInt(rnd.nextBoolean() ? 5 : 5_000)];
                for (int i = 0; i < ordinals.length; i++) {
                    ordinals[i] = rnd.nextInt(agents);
                    reference.get(ordinals[i]).add(at + i);
                }
                table.restoreEvents(at, ordinals);
                at += ordinals.length;
            }
            for (int o = 0; o < agents; o++) {
                long[] want = reference.get(o).stream().mapToLong(Long::longValue).toArray();
                assertThat(table.get("agent-" + o).positionsBelow(Long.MAX_VALUE)).as("seed %d agent %d", seed, o)
                        .containsExactly(want);
            }
        }
    }
}
