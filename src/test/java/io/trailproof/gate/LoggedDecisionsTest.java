package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.gate.ArgsDigest;
import io.trailproof.core.gate.Bindings;
import io.trailproof.core.gate.GateEvent;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate's decisions kept outside the heap give what the in-memory bindings give: over a seeded
 * random log of decisions, answers and bound calls (other agents' answers and calls, unknown
 * decisions, reuse, denied and unanswered asks, expiry, argument mismatches, digests and effects
 * the service never writes), with only three decisions kept whole in memory, every verdict and every
 * decision's state equals the reference's, and what is shown of a decision is read back as written.
 */
class LoggedDecisionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] AGENTS = {"agent-a", "agent-b"};
    private static final String[] NAMES = {"transfer", "send_email"};
    private static final String[] EFFECTS = {"allow", "deny", "ask", "ask", "hold"};

    @TempDir
    Path dir;

    private record Shown(long logIndex, String sessionId, String rule, String reason, long recordedAtMicros) {
    }

    @Test
    void verdictsAndStateEqualTheInMemoryBindingsWhateverIsCached() throws Exception {
        Random random = new Random(20261203L);
        Instant now = Instant.now();
        Bindings reference = new Bindings();
        List<String> ids = new ArrayList<>();
        Map<String, Shown> shown = new HashMap<>();
        int verdicts = 0;
        try (Ledger ledger = Ledger.open(dir.resolve("log"), new LedgerOptions(1 << 20, 1000), Clock.systemUTC(),
                new Random(7));
             LoggedDecisions logged = LoggedDecisions.open(ledger, dir.resolve("table"), 3)) {
            Bindings subject = new Bindings(logged);
            for (int i = 0; i < 1500; i++) {
                ObjectNode f = event(random, ids, now);
                long index = ledger.append(List.of(f)).get(0).event().logIndex();
                byte[] payload = ledger.payloadAt(index);
                GateEvent g = GateEvent.read(payload);
                if (g == null) {
                    continue;
                }
                JsonNode stored = JSON.readTree(payload);
                String session = stored.path("session_id").isTextual() ? stored.get("session_id").asText() : null;
                if (g.kind() == GateEvent.Kind.DECISION) {
                    ids.add(g.id());
                    shown.put(g.id(), new Shown(index, session, g.rule(), g.reason(), g.recordedAtMicros()));
                }
                logged.applying(index, session, g);
                Bindings.Verdict mine = subject.accept(g);
                Bindings.Verdict theirs = reference.accept(g);
                assertThat(mine == null).as("event %d", i).isEqualTo(theirs == null);
                if (mine != null) {
                    verdicts++;
                    assertThat(mine.check()).as("event %d", i).isEqualTo(theirs.check());
                    assertThat(state(mine.decision())).isEqualTo(state(theirs.decision()));
                }
                if (i % 100 == 99) {
                    for (String id : ids) {
                        assertThat(state(subject.decision(id))).as(id).isEqualTo(state(reference.decision(id)));
                        GateLog.DecisionInfo info = logged.entry(id).info();
                        assertThat(new Shown(info.logIndex(), info.sessionId(), info.rule(), info.reason(),
                                info.recordedAtMicros())).as(id).isEqualTo(shown.get(id));
                    }
                }
            }
            assertThat(logged.size()).isEqualTo(ids.size());
        }
        assertThat(verdicts).isGreaterThan(300);
        assertThat(ids).hasSizeGreaterThan(300);
    }

    /** Everything a decision holds, as one comparable list. */
    private static List<Object> state(Bindings.Decision d) {
        if (d == null) {
            return null;
        }
        List<Object> s = new ArrayList<>();
        s.add(d.id);
        s.add(d.agentId);
        s.add(d.effect);
        s.add(d.argsSha256);
        s.add(d.expiresAtMicros);
        s.add(d.approved);
        s.add(d.approver);
        s.add(d.validUntilMicros);
        s.add(d.approvalId);
        s.add(d.usedBy);
        return s;
    }

    private static ObjectNode event(Random random, List<String> ids, Instant now) {
        String agent = AGENTS[random.nextInt(AGENTS.length)];
        ObjectNode f = JSON.createObjectNode().put("agent_id", agent);
        if (random.nextBoolean()) {
            f.put("session_id", "session-" + random.nextInt(3));
        }
        String name = NAMES[random.nextInt(NAMES.length)];
        int op = ids.isEmpty() ? 0 : random.nextInt(10);
        if (op < 4) {
            f.put("action_type", "DECISION").put("action_name", name);
            f.putObject("action_input").put("amount", random.nextInt(3));
            ObjectNode out = f.putObject("action_output").put("decision", EFFECTS[random.nextInt(EFFECTS.length)])
                    .put("rule", "rule-" + random.nextInt(5)).put("reason", "reason " + random.nextInt(5));
            String digest = ArgsDigest.of(f.get("action_name"), f.get("action_input"));
            switch (random.nextInt(8)) {
                case 0 -> out.put("args_sha256", digest.toUpperCase());
                case 1 -> out.putNull("args_sha256");
                default -> out.put("args_sha256", digest);
            }
            if (random.nextBoolean()) {
                out.put("expires_at", EventTime.formatRecordedAt(now.plusSeconds(random.nextInt(600) - 300)));
            }
        } else if (op < 6) {
            f.put("action_type", "APPROVAL");
            f.putObject("action_output").put("decision_id", pick(random, ids)).put("approved", random.nextInt(3) > 0)
                    .put("approver", "person-" + random.nextInt(3))
                    .put("valid_until", EventTime.formatRecordedAt(now.plusSeconds(random.nextInt(600) - 300)));
        } else if (op < 9) {
            f.put("action_type", "TOOL_CALL").put("action_name", name).put("decision_id", pick(random, ids));
            f.putObject("action_input").put("amount", random.nextInt(3));
        } else {
            f.put("action_type", "TOOL_CALL").put("action_name", name);
        }
        return f;
    }

    /** A recent decision's id mostly, an old one sometimes, now and then one that names none. */
    private static String pick(Random random, List<String> ids) {
        int r = random.nextInt(10);
        if (r == 0) {
            return "no-such-decision-" + random.nextInt(3);
        }
        int from = r < 7 ? Math.max(0, ids.size() - 4) : 0;
        return ids.get(from + random.nextInt(ids.size() - from));
    }
}
