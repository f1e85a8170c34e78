package io.trailproof.ledger;

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

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
        try (Ledger ledger = Ledger.open(dir, new Ledger.Options(1 << 20, 100_000), Clock.systemUTC(), new Random(1))) {
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
                com.fasterxml.jackson.databind.JsonNode got = JSON.valueToTree(pipelined.results().get(r));
                com.fasterxml.jackson.databind.JsonNode want = JSON.valueToTree(expected.results().get(r));
                assertThat(got).as("rule %d", r).isEqualTo(want);
            }
            assertThat(expected.results().stream().mapToLong(x -> x.violations()).sum()).isPositive();
        }
    }
}
