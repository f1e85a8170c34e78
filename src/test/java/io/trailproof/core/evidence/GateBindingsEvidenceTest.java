package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.gate.ArgsDigest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.trailproof.core.evidence.PackageFixture.JSON;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate bindings checked offline from a package alone (src/site/gates.md): a trail whose failed
 * bindings are recorded by GATE_VIOLATION events verifies and states the summary line; a trail in
 * which a call binds to a decision that does not check out, without such an event, fails with the
 * call as evidence, for each of the checks; an approval's time limit and a reused approval are
 * judged as the service judges them; and any one-byte change to a binding's members fails the package.
 */
class GateBindingsEvidenceTest {

    private static final String A = "agent-g";

    private static ObjectNode fields(String type, String name) {
        ObjectNode f = JSON.createObjectNode().put("agent_id", A).put("action_type", type);
        if (name != null) {
            f.put("action_name", name);
        }
        return f;
    }

    private static ObjectNode decision(String effect, String name, int amount, String expiresAt) {
        ObjectNode f = fields("DECISION", name);
        f.putObject("action_input").put("amount", amount);
        ObjectNode out = f.putObject("action_output").put("decision", effect).putNull("policy").putNull("rule")
                .put("reason", "r").putNull("policy_event_id")
                .put("args_sha256", ArgsDigest.of(f.get("action_name"), f.get("action_input")));
        if (expiresAt == null) {
            out.putNull("expires_at");
        } else {
            out.put("expires_at", expiresAt);
        }
        return f;
    }

    private static ObjectNode approval(int decision, boolean approved, String approver, String validUntil) {
        ObjectNode f = fields("APPROVAL", "pay");
        f.putObject("action_output").put("decision_id", PackageFixture.idOf(decision)).put("approved", approved)
                .put("approver", approver).putNull("comment").put("valid_until", validUntil);
        return f;
    }

    private static ObjectNode call(int decision, int amount) {
        ObjectNode f = fields("TOOL_CALL", "pay").put("decision_id", PackageFixture.idOf(decision));
        f.putObject("action_input").put("amount", amount);
        return f;
    }

    private static ObjectNode violation(int call, int decision, String check) {
        ObjectNode f = fields("GATE_VIOLATION", null);
        f.putObject("action_output").put("event_id", PackageFixture.idOf(call)).put("decision_id", PackageFixture.idOf(decision))
                .put("check", check);
        return f;
    }

    /** Events recorded at second i of 2026-11-22: valid_until and expires_at below are stated against that. */
    private static List<ObjectNode> goodTrail() {
        List<ObjectNode> t = new ArrayList<>();
        t.add(decision("allow", "pay", 10, null));                          // 0
        t.add(call(0, 10));                                                  // 1 passes
        t.add(decision("ask", "pay", 900, "2026-11-22T01:00:00Z"));          // 2
        t.add(approval(2, true, "alice", "2026-11-22T00:10:00Z"));           // 3
        t.add(call(2, 900));                                                 // 4 passes
        t.add(call(2, 900));                                                 // 5 used
        t.add(violation(5, 2, "used"));                                      // 6
        t.add(decision("deny", "pay", 5, null));                             // 7
        t.add(decision("ask", "pay", 7, "2026-11-22T00:00:09Z"));            // 8 expires unanswered
        t.add(decision("ask", "pay", 8, "2026-11-22T01:00:00Z"));            // 9
        t.add(approval(9, true, "bob", "2026-11-22T00:00:11Z"));             // 10, valid one second
        t.add(call(9, 8));                                                   // 11 passes (at its valid_until)
        return t;
    }

    @Test
    void recordedViolationsAreFactsOfTheTrailAndTheSummaryStatesTheDecisions() throws Exception {
        EvidenceReport r = PackageFixture.verify(new PackageFixture(goodTrail()).pack(A));
        assertThat(r.valid()).as(String.valueOf(r.firstFailure())).isTrue();
        assertThat(r.check(EvidenceCheck.GATE_BINDINGS).orElseThrow().detail())
                .isEqualTo("5 calls decided: 1 allowed, 1 denied, 2 approved by alice, bob, 1 expired, 1 violation");
    }

    @Test
    void aCallThatDoesNotCheckOutWithoutItsViolationFailsWithTheCallAsEvidence() throws Exception {
        record Case(String check, List<ObjectNode> extra) {
        }
        List<Case> cases = List.of(
                new Case("used", List.of(call(0, 10))),
                new Case("arguments", List.of(decision("allow", "pay", 1, null), call(12, 2))),
                new Case("denied", List.of(call(7, 5))),
                new Case("expired", List.of(call(8, 7))),
                new Case("unknown_decision", List.of(call(99, 1))));
        for (Case c : cases) {
            List<ObjectNode> trail = new ArrayList<>(goodTrail());
            trail.addAll(c.extra());
            int callIndex = trail.size() - 1;
            EvidenceReport r = PackageFixture.verify(new PackageFixture(trail).pack(A));
            assertThat(r.valid()).as(c.check()).isFalse();
            CheckResult failure = r.firstFailure().orElseThrow();
            assertThat(failure.check()).as(c.check()).isEqualTo(EvidenceCheck.GATE_BINDINGS);
            assertThat(failure.eventId()).as(c.check()).isEqualTo(PackageFixture.idOf(callIndex));
            assertThat(failure.sequence()).as(c.check()).isEqualTo(callIndex + 1L);
            assertThat(failure.expected()).as(c.check()).contains("check " + c.check());
            // and the same trail with the violation recorded verifies
            trail.add(violation(callIndex, 0, c.check()));
            assertThat(PackageFixture.verify(new PackageFixture(trail).pack(A)).valid()).as(c.check()).isTrue();
        }
        // an approval used after its valid_until
        List<ObjectNode> late = new ArrayList<>(goodTrail());
        late.add(decision("ask", "pay", 3, "2026-11-22T01:00:00Z"));          // 12
        late.add(approval(12, true, "alice", "2026-11-22T00:00:13Z"));        // 13
        late.add(fields("LLM_CALL", "think"));                                // 14
        late.add(call(12, 3));                                                // 15, two seconds late
        CheckResult expired = PackageFixture.verify(new PackageFixture(late).pack(A)).firstFailure().orElseThrow();
        assertThat(expired.expected()).contains("check expired");
    }

    @Test
    void aSliceThatStartsAfterTheDecisionDoesNotJudgeCallsItCannotSee() throws Exception {
        PackageFixture f = new PackageFixture(goodTrail());
        EvidenceReport r = PackageFixture.verify(f.pack(A, 5, 12, null, null));
        assertThat(r.valid()).as(String.valueOf(r.firstFailure())).isTrue();
        assertThat(r.check(EvidenceCheck.GATE_BINDINGS).orElseThrow().detail()).contains("could not be checked");
    }

    @Test
    void everyOneByteChangeToABindingFailsThePackage() throws Exception {
        byte[] good = JSON.writeValueAsBytes(new PackageFixture(goodTrail()).pack(A));
        String text = new String(good, StandardCharsets.UTF_8);
        List<Integer> positions = new ArrayList<>();
        for (String member : List.of("\"decision_id\":\"", "\"args_sha256\":\"", "\"approved\":", "\"valid_until\":\"",
                "\"expires_at\":\"", "\"decision\":\"", "\"check\":\"")) {
            for (int at = text.indexOf(member); at >= 0; at = text.indexOf(member, at + 1)) {
                positions.add(at + member.length());
            }
        }
        assertThat(positions).hasSizeGreaterThan(20);
        for (int p : positions) {
            byte[] bad = good.clone();
            bad[p] = (byte) (bad[p] == '0' ? '1' : bad[p] == 't' ? 'f' : '0');
            assertThat(PackageFixture.verify(bad).valid()).as("byte " + p + " changed").isFalse();
        }
    }
}
