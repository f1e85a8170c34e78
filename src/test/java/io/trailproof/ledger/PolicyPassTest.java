package io.trailproof.ledger;

import io.trailproof.testing.ByteSearch;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.policy.BuiltinPolicies;
import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEngine;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pass that prepares events on other threads gives exactly the report of feeding the engine
 * one event at a time in log order (the order of examples included), over a log long enough for
 * many batches in flight.
 */
class PolicyPassTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void thePipelinedPassReportsExactlyWhatASequentialPassReports() throws Exception {
        Random rnd = new Random(16);
        List<Policy> policies = new ArrayList<>(BuiltinPolicies.all());
        policies.addAll(PolicyParser.parseDocument("""
                policies:
                  - name: ops
                    rules:
                      - {name: no-delete, type: absence, severity: fail, deny: delete_user}
                      - {name: burst, type: rate, severity: warn, per: 60s, max: 3}
                      - {name: allowed, type: boundary, severity: warn, allow_actions: [read, write, delete_user]}
                """.getBytes(StandardCharsets.UTF_8)));
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 100_000), Clock.systemUTC(), new Random(1))) {
            for (int batch = 0; batch < 12; batch++) {
                List<ObjectNode> events = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    String[] names = {"read", "write", "delete_user", "shell"};
                    ObjectNode e = JSON.createObjectNode().put("agent_id", "agent-" + rnd.nextInt(40))
                            .put("session_id", "s-" + rnd.nextInt(200))
                            .put("action_type", rnd.nextInt(3) == 0 ? "TOOL_CALL" : "TOOL_RESULT")
                            .put("action_name", names[rnd.nextInt(names.length)])
                            .put("action_status", rnd.nextInt(4) == 0 ? "error" : "success")
                            .put("duration_ms", rnd.nextInt(90_000))
                            .put("timestamp", "2026-11-25T" + String.format("%02d:%02d:%02dZ", rnd.nextInt(24),
                                    rnd.nextInt(60), rnd.nextInt(60)));
                    events.add(EventValidator.validate(e));
                }
                ledger.append(events);
            }
            assertThat(ledger.size()).isGreaterThan(PolicyPass.SMALL * 4);
            PolicyReport pipelined = ledger.checkPolicies(policies, null, null, null);
            PolicyEngine sequential = new PolicyEngine(policies, null, null, null, null);
            for (long i = 0; i < ledger.size(); i++) {
                sequential.accept(i, ledger.payloadAt(i));
            }
            PolicyReport expected = sequential.finish();
            assertThat(pipelined.eventsChecked()).isEqualTo(expected.eventsChecked());
            assertThat(pipelined.passed()).isEqualTo(expected.passed());
            assertThat(pipelined.results()).hasSameSizeAs(expected.results());
            for (int r = 0; r < expected.results().size(); r++) {
                JsonNode got = JSON.valueToTree(pipelined.results().get(r));
                JsonNode want = JSON.valueToTree(expected.results().get(r));
                assertThat(got).as("rule %d", r).isEqualTo(want);
            }
            assertThat(expected.results().stream().mapToLong(x -> x.violations()).sum()).isPositive();
        }
    }

    @Test
    void aFrameDamagedOnDiskIsAChainIntegrityViolationByLogIndexAndTheRestIsStillChecked() throws Exception {
        for (int events : new int[] {500, (int) PolicyPass.SMALL * 3}) {
            Path data = dir.resolve("damaged-" + events);
            try (Ledger ledger = Ledger.open(data, new LedgerOptions(1 << 20, 100_000), Clock.systemUTC(), new Random(2))) {
                List<ObjectNode> batch = new ArrayList<>();
                for (int i = 0; i < events; i++) {
                    batch.add(EventValidator.validate(JSON.createObjectNode().put("agent_id", "agent-" + (i % 7))
                            .put("action_type", "TOOL_CALL").put("action_name", "step-" + i)
                            .put("timestamp", "2026-11-25T10:00:00Z")));
                }
                ledger.append(batch);
                long victim = events / 2;
                Path segment;
                try (var files = Files.walk(data)) {
                    segment = files.filter(f -> f.toString().endsWith(".seg")).sorted().findFirst().orElseThrow();
                }
                byte[] bytes = Files.readAllBytes(segment);
                int at = ByteSearch.indexOf(bytes, ("\"action_name\":\"step-" + victim + "\"").getBytes(StandardCharsets.UTF_8));
                try (FileChannel ch = FileChannel.open(segment,
                        StandardOpenOption.WRITE)) {
                    ch.write(ByteBuffer.wrap(new byte[] {(byte) (bytes[at + 5] ^ 0x01)}), at + 5);
                }

                PolicyReport report = ledger.checkPolicies(BuiltinPolicies.all(), null, null, null);
                var chain = report.results().stream().filter(r -> r.rule().equals("chain_integrity")).findFirst().orElseThrow();
                assertThat(report.passed()).isFalse();
                assertThat(chain.violations()).as("the damaged event, then the gap it leaves in its agent's chain").isEqualTo(2);
                assertThat(JSON.valueToTree(chain).toString()).contains("log_index " + victim).contains("not a readable event");
                assertThat(report.eventsChecked()).as("every readable event is checked").isEqualTo(events - 1);
            }
        }
    }

}
