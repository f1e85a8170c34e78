package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.policy.Effect;
import io.trailproof.core.policy.GateEvaluator;
import io.trailproof.core.policy.PolicyEvent;
import io.trailproof.core.policy.PolicyEventReader;
import io.trailproof.core.policy.PolicyParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One gate decision with a 100-rule policy (src/site/gates.md): 20 boundary, 20 absence after a
 * `when`, 20 rate, 20 pattern, 10 requires and 10 temporal rules, half of them per session, over a
 * history of 100,000 stored events of 100 agents and 1,000 sessions; each call decides the next of
 * 1,024 different proposals. No rule denies (a deny ends the evaluation early), so every proposal is
 * judged by all 100 rules: the worst case. What is measured is the rules' judgement, the part that grows with the
 * policy; reading the request and the durable write are the ingest path's.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class GateEvaluatorBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] NAMES = new String[40];

    static {
        for (int i = 0; i < NAMES.length; i++) {
            NAMES[i] = "tool_" + i;
        }
    }

    private GateEvaluator evaluator;
    private final PolicyEvent[] proposals = new PolicyEvent[1024];
    private int next;

    @Setup
    public void setUp() throws Exception {
        evaluator = new GateEvaluator(PolicyParser.parseDocument(policy().getBytes(StandardCharsets.UTF_8)), Effect.ALLOW);
        Random random = new Random(7);
        PolicyEventReader reader = new PolicyEventReader(Set.of("action_input"));
        Map<String, String> heads = new HashMap<>();
        Map<String, Long> sequences = new HashMap<>();
        long t = Instant.parse("2026-11-22T09:00:00Z").getEpochSecond();
        for (int i = 0; i < 100_000 + proposals.length; i++) {
            String agent = "agent-" + random.nextInt(100);
            ObjectNode f = JSON.createObjectNode().put("agent_id", agent)
                    .put("session_id", agent + "-s" + random.nextInt(10)).put("action_type", "TOOL_CALL")
                    .put("action_name", NAMES[random.nextInt(NAMES.length)])
                    .put("timestamp", Instant.ofEpochSecond(t + i / 10).toString());
            f.putObject("action_input").put("amount", random.nextInt(5000)).put("to", "user" + random.nextInt(50) + "@example.com");
            f.putObject("labels").put("env", random.nextBoolean() ? "prod" : "dev");
            long seq = sequences.merge(agent, 1L, Long::sum);
            StoredEvent e = StoredEvent.seal(f, String.format("019a8b2c-1d2e-7f30-8a41-%012x", i),
                    "2026-11-22T09:00:00.000000Z", seq, heads.getOrDefault(agent, EventFields.GENESIS_PREV_HASH), i);
            heads.put(agent, e.hash());
            PolicyEvent p = reader.read(e.payload());
            if (i < 100_000) {
                evaluator.observe(p);
            } else {
                proposals[i - 100_000] = p;
            }
        }
    }

    private static String policy() {
        StringBuilder b = new StringBuilder("policies:\n  - name: bench\n    rules:\n");
        for (int i = 0; i < 100; i++) {
            String scope = i % 2 == 0 ? ", scope: session" : "";
            String n = NAMES[i % NAMES.length];
            String m = NAMES[(i * 7 + 3) % NAMES.length];
            String rule = switch (i / 10) {
                case 0, 1 -> "type: boundary, allow_actions: [" + String.join(", ", NAMES) + "], effect: deny";
                case 2, 3 -> "type: absence, when: " + m + ", deny: " + n + ", effect: ask";
                case 4, 5 -> "type: rate, per: 1m, max: " + (50 + i) + ", label_filter: {env: prod}, effect: ask";
                case 6, 7 -> "type: pattern, for_field: action_input.to, deny_pattern: 'user" + i + "@', effect: ask";
                case 8 -> "type: requires, for: " + n + ", requires: " + m + ", effect: ask";
                default -> "type: temporal, hours: [0, 23], effect: deny";
            };
            b.append("      - {name: r").append(i).append(scope).append(", ").append(rule).append("}\n");
        }
        return b.toString();
    }

    @Benchmark
    public GateEvaluator.Verdict decide100Rules() {
        return evaluator.decide(proposals[next++ & 1023], q -> false);
    }

    /**
     * The same decisions timed by this thread's CPU time rather than the wall clock: on a machine
     * shared with other work, wall time per operation grows with the run queue, CPU time does not.
     * Prints the CPU microseconds per decision of each of 5 rounds of 200,000 decisions (after 3 of warm-up).
     */
    public static void main(String[] args) throws Exception {
        GateEvaluatorBench b = new GateEvaluatorBench();
        b.setUp();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        int sink = 0;
        for (int round = -3; round < 5; round++) {
            long c0 = cpu.getCurrentThreadCpuTime();
            long w0 = System.nanoTime();
            for (int i = 0; i < 200_000; i++) {
                sink += b.decide100Rules().effect().ordinal();
            }
            long c = cpu.getCurrentThreadCpuTime() - c0;
            long w = System.nanoTime() - w0;
            if (round >= 0) {
                System.out.printf(Locale.ROOT, "round %d: %.2f us CPU, %.2f us wall per decision (100 rules)%n", round + 1,
                        c / 1e3 / 200_000, w / 1e3 / 200_000);
            }
        }
        System.out.println(sink == 42 ? "" : "done");
    }
}
