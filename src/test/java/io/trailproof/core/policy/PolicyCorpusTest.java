package io.trailproof.core.policy;

import io.trailproof.core.event.EventTime;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A small trail with known violations of every rule type (both scopes, label filters, warn and
 * fail) and of every built-in policy, whose exact results are asserted: counts, the events the
 * examples name, in log order, and the sentences.
 */
class PolicyCorpusTest {

    /** 2026-01-05 is a Monday; 2026-01-04 a Sunday. */
    static final String DOCUMENT = """
            policies:
              - name: flow
                rules:
                  - {name: summarize-soon, type: sequence, severity: fail, when: search, expect: summarize, within: 60s}
                  - {name: summarize-in-session, type: sequence, severity: warn, scope: session, when: search, expect: summarize}
                  - {name: no-delete, type: absence, severity: fail, deny: delete_user}
                  - {name: no-delete-after-login, type: absence, severity: warn, scope: session, deny: delete_user, when: login}
                  - {name: prod-actions, type: boundary, severity: fail, label_filter: {env: prod},
                     allow_actions: [search, summarize, login, plan, delete_user]}
                  - {name: plans, type: presence, severity: warn, scope: session, require: [plan]}
              - name: limits
                rules:
                  - {name: two-a-minute, type: rate, severity: fail, per: 1m, max: 2}
                  - {name: no-ssn, type: pattern, severity: fail, for_field: action_input.query, deny_pattern: '\\d{3}-\\d{2}-\\d{4}'}
                  - {name: known-env, type: pattern, severity: warn, for_field: labels.env, match_pattern: '^(prod|dev)$'}
                  - {name: office-hours, type: temporal, severity: fail, hours: [9, 17], days: [1, 2, 3, 4, 5]}
            """;

    private Trail trail;

    @BeforeEach
    void corpus() {
        trail = new Trail();
        String prod = "\"labels\":{\"env\":\"prod\"}";
        trail.add("a1", "s1", "TOOL_CALL", "search", "2026-01-05T10:00:00Z", prod + ",\"action_input\":{\"query\":\"weather\"}"); // 0
        trail.add("a1", "s1", "TOOL_RESULT", "summarize", "2026-01-05T10:00:30Z", prod);                                       // 1
        trail.add("a1", "s1", "TOOL_CALL", "search", "2026-01-05T10:01:00Z", prod + ",\"action_input\":{\"query\":\"ssn 123-45-6789\"}"); // 2
        trail.add("a1", "s1", "LLM", "summarize", "2026-01-05T10:03:00Z", "");                                                 // 3
        trail.add("a1", "s1", "TOOL_CALL", "login", "2026-01-05T10:03:10Z", "\"labels\":{\"env\":\"staging\"}");               // 4
        trail.add("a1", "s1", "TOOL_CALL", "delete_user", "2026-01-05T10:03:20Z", prod);                                       // 5
        trail.add("a2", null, "TOOL_CALL", "shell_exec", "2026-01-04T10:00:00Z", prod);                                        // 6
        trail.add("a2", null, "TOOL_CALL", "search", "2026-01-05T20:00:00Z", "");                                              // 7
        trail.add("a1", "s2", "LLM", "plan", "2026-01-05T10:03:30Z", "");                                                      // 8
        trail.add("a1", "s2", "TOOL_CALL", "search", "2026-01-05T10:04:00Z", "");                                              // 9
        trail.add("a1", "s2", "TOOL_RESULT", "summarize", "2026-01-05T10:04:30Z", "");                                         // 10
    }

    private static List<Policy> document() throws PolicyRejection {
        return PolicyParser.parseDocument(DOCUMENT.getBytes(StandardCharsets.UTF_8));
    }

    private static RuleResult rule(PolicyReport report, String name) {
        return report.results().stream().filter(r -> r.rule().equals(name)).findFirst().orElseThrow();
    }

    private void assertRule(PolicyReport report, String name, int violations, int... exampleIndexes) {
        RuleResult r = rule(report, name);
        assertThat(r.violations()).as(name).isEqualTo(violations);
        assertThat(r.passed()).as(name).isEqualTo(violations == 0);
        assertThat(r.examples()).extracting(Example::eventId).as(name)
                .containsExactly(Arrays.stream(exampleIndexes).mapToObj(trail::id).toArray(String[]::new));
    }

    @Test
    void everyRuleTypeCountsExactlyItsViolations() throws Exception {
        PolicyReport report = trail.check(document());

        assertThat(report.passed()).isFalse();
        assertThat(report.eventsChecked()).isEqualTo(11);
        assertThat(report.results()).extracting(RuleResult::policy, RuleResult::rule).containsExactly(
                Tuple.tuple("flow", "summarize-soon"),
                Tuple.tuple("flow", "summarize-in-session"),
                Tuple.tuple("flow", "no-delete"),
                Tuple.tuple("flow", "no-delete-after-login"),
                Tuple.tuple("flow", "prod-actions"),
                Tuple.tuple("flow", "plans"),
                Tuple.tuple("limits", "two-a-minute"),
                Tuple.tuple("limits", "no-ssn"),
                Tuple.tuple("limits", "known-env"),
                Tuple.tuple("limits", "office-hours"));

        // search at 2 is answered only 120 s later; search at 7 never (agent scope)
        assertRule(report, "summarize-soon", 2, 2, 7);
        // per session without a time limit only a2's search is unanswered
        assertRule(report, "summarize-in-session", 1, 7);
        assertRule(report, "no-delete", 1, 5);
        assertRule(report, "no-delete-after-login", 1, 5);
        // only the events labelled env=prod are looked at: shell_exec of a2
        assertRule(report, "prod-actions", 1, 6);
        // sessions a1/s1 and a2/(none) have no plan, named by their first events; a1/s2 has one
        assertRule(report, "plans", 2, 0, 6);
        // a1's minute 10:03 holds events 3, 4, 5 and 8: the third and fourth are past the limit
        assertRule(report, "two-a-minute", 2, 5, 8);
        assertRule(report, "no-ssn", 1, 2);
        assertRule(report, "known-env", 1, 4);
        // a Sunday, and 20:00
        assertRule(report, "office-hours", 2, 6, 7);

        assertThat(rule(report, "summarize-soon").examples().get(0).message())
                .isEqualTo("search at sequence 3 is not followed by summarize within 1m in agent a1");
        assertThat(rule(report, "summarize-in-session").examples().get(0).message())
                .isEqualTo("search at sequence 2 is not followed by summarize in the events without session_id of agent a2");
        assertThat(rule(report, "no-delete-after-login").examples().get(0).message())
                .isEqualTo("delete_user must not occur after login; it did in session s1 of agent a1");
        assertThat(rule(report, "plans").examples().get(0).message()).isEqualTo("no plan event in session s1 of agent a1");
        assertThat(rule(report, "two-a-minute").examples().get(1).message())
                .isEqualTo("event 4 of agent a1 in the 1m window from 2026-01-05T10:03:00Z; at most 2 are allowed");
        assertThat(rule(report, "no-ssn").examples().get(0).message())
                .isEqualTo("action_input.query contains a match of the denied pattern \\d{3}-\\d{2}-\\d{4}");
        assertThat(rule(report, "office-hours").examples()).extracting(Example::message).containsExactly(
                "timestamp 2026-01-04T10:00:00Z (Sunday) is on a day not allowed",
                "timestamp 2026-01-05T20:00:00Z (Monday) is outside the allowed hours [9, 17) UTC");
        Example first = rule(report, "no-delete").examples().get(0);
        assertThat(first.agentId()).isEqualTo("a1");
        assertThat(first.sequence()).isEqualTo(6);
    }

    @Test
    void warnRulesAreReportedButNeverFail() throws Exception {
        List<Policy> warnOnly = PolicyParser.parseDocument(DOCUMENT.replace("severity: fail", "severity: warn")
                .getBytes(StandardCharsets.UTF_8));
        PolicyReport report = trail.check(warnOnly);
        assertThat(report.passed()).isTrue();
        assertThat(rule(report, "no-delete").passed()).isFalse();
        assertThat(rule(report, "no-delete").violations()).isEqualTo(1);
    }

    @Test
    void narrowingByAgentAndTime() throws Exception {
        PolicyReport a2 = trail.check(document(), "a2", null, null);
        assertThat(a2.eventsChecked()).isEqualTo(2);
        assertRule(a2, "office-hours", 2, 6, 7);
        assertRule(a2, "no-delete", 0);

        // [10:01, 10:04): events 2, 3, 4, 5 and 8; search at 2 is answered by 3, 120 s later
        PolicyReport window = trail.check(document(), null, "2026-01-05T10:01:00Z", "2026-01-05T10:04:00Z");
        assertThat(window.eventsChecked()).isEqualTo(5);
        assertRule(window, "summarize-soon", 1, 2);
        assertRule(window, "summarize-in-session", 0);
        assertRule(window, "two-a-minute", 2, 5, 8);
        assertRule(window, "office-hours", 0);
        // until is exclusive, since inclusive
        assertThat(trail.check(document(), null, "2026-01-05T10:00:00Z", "2026-01-05T10:00:30Z").eventsChecked()).isEqualTo(1);

        PolicyReport limits = trail.check(PolicyEngine.select(document(), "limits"));
        assertThat(limits.results()).extracting(RuleResult::policy).containsOnly("limits");
    }

    @Test
    void builtInPoliciesOverAKnownTrail() {
        Trail t = new Trail();
        t.add("b1", "x", "TOOL_CALL", "fetch", "2026-01-05T10:00:00Z", "\"duration_ms\":70000");        // 0 outlier
        t.add("b1", "x", "TOOL_RESULT", "fetch", "2026-01-05T10:00:01Z", "");                           // 1 answers 0
        t.add("b1", "x", "TOOL_CALL", "fetch", "2026-01-05T10:00:02Z", "\"duration_ms\":60000");        // 2 never answered
        t.add("b1", "x", "TOOL_CALL", "parse", "2026-01-05T12:00:02Z", "");                             // 3 after a 2 h gap
        t.add("b1", "x", "TOOL_RESULT", "parse", "2026-01-05T12:00:03Z", "");                           // 4 answers 3
        t.add("b1", "y", "TOOL_RESULT", "fetch", "2026-01-05T12:00:04Z", "");                           // 5 another session: answers nothing
        t.add("b2", null, "LLM", "think", "2026-01-05T10:00:00Z", "\"action_status\":\"error\"");       // 6 first of a bad session
        t.add("b2", null, "LLM", "think", "2026-01-05T10:00:01Z", "\"action_status\":\"error\"");       // 7
        t.add("b2", null, "LLM", "think", "2026-01-05T10:00:02Z", "\"action_status\":\"ok\"");          // 8
        t.add("b2", null, "LLM", "think", "2026-01-05T10:00:03Z", "\"action_status\":\"error\"");       // 9
        t.add("b3", "z", "LLM", "read", "2026-01-05T10:00:00Z", "\"action_status\":\"error\"");         // 10 half errors: fine
        t.add("b3", "z", "LLM", "read", "2026-01-05T10:00:01Z", "\"action_status\":\"error\"");         // 11 edited below
        t.add("b3", "z", "LLM", "read", "2026-01-05T10:00:02Z", "");                                    // 12
        t.add("b3", "z", "LLM", "read", "2026-01-05T10:00:03Z", "");                                    // 13
        t.tamper(11, "\"read\"", "\"reaD\"");
        trail = t;

        PolicyReport report = t.check(BuiltinPolicies.all());
        assertThat(report.passed()).isFalse();
        assertThat(report.results()).extracting(RuleResult::policy).containsExactly("chain_integrity",
                "event_completeness", "session_health", "error_rate", "duration_outliers", "gate_compliance");
        assertThat(report.results()).extracting(RuleResult::type).containsOnly("builtin");
        assertRule(report, "gate_compliance", 0);
        assertRule(report, "chain_integrity", 1, 11);
        assertThat(rule(report, "chain_integrity").examples().get(0).message())
                .isEqualTo("the chain of agent b3 does not verify: hash mismatch at sequence 2");
        assertRule(report, "event_completeness", 1, 2);
        assertRule(report, "session_health", 1, 3);
        assertThat(rule(report, "session_health").examples().get(0).message())
                .isEqualTo("a gap of 120 min after the previous event of session x of agent b1 (more than 1h)");
        assertRule(report, "error_rate", 1, 6);
        assertThat(rule(report, "error_rate").examples().get(0).message())
                .isEqualTo("3 of 4 events of the events without session_id of agent b2 have action_status error (more than 50%)");
        assertRule(report, "duration_outliers", 1, 0);

        // chain_integrity verifies whole chains whatever the window; the other rules see only the window
        PolicyReport late = t.check(BuiltinPolicies.all(), null, "2026-01-05T12:00:00Z", null);
        assertRule(late, "chain_integrity", 1, 11);
        assertRule(late, "duration_outliers", 0);
        assertRule(late, "event_completeness", 0);
    }

    @Test
    void patternsReadTheChainsOwnFieldsAlsoWhileTheChainIsChecked() throws Exception {
        List<Policy> policies = new ArrayList<>(PolicyParser.parseDocument("""
                policies:
                  - name: ids
                    rules:
                      - {name: agent-a2, type: pattern, severity: fail, for_field: agent_id, deny_pattern: '^a2$'}
                      - {name: late, type: pattern, severity: fail, for_field: sequence, match_pattern: '^[1-5]$'}
                      - {name: input, type: pattern, severity: fail, for_field: action_input, deny_pattern: '"query":"ssn'}
                """.getBytes(StandardCharsets.UTF_8)));
        PolicyReport alone = trail.check(policies);
        policies.addAll(BuiltinPolicies.all());
        PolicyReport withChain = trail.check(policies);
        for (PolicyReport report : List.of(alone, withChain)) {
            assertRule(report, "agent-a2", 2, 6, 7);
            assertRule(report, "late", 4, 5, 8, 9, 10); // a1's sequences 6 to 9
            assertRule(report, "input", 1, 2);
        }
        assertRule(withChain, "chain_integrity", 0);
    }

    @Test
    void rateKeepsABoundedNumberOfWindowsPerScope() throws Exception {
        Trail t = new Trail();
        Instant base = Instant.parse("2026-01-05T00:00:00Z");
        // two events in each of minutes 0 and 1, one in each of minutes 2 to 1099; then a third event
        // in minute 0, by then more than 1,024 windows behind (forgotten: it counts alone, no
        // violation), and a second and third in minute 1099 (the third is the one violation)
        t.add("a", null, "LLM", "x", base.toString(), "");
        t.add("a", null, "LLM", "x", base.plusSeconds(1).toString(), "");
        t.add("a", null, "LLM", "x", base.plusSeconds(60).toString(), "");
        t.add("a", null, "LLM", "x", base.plusSeconds(61).toString(), "");
        for (int m = 2; m < 1100; m++) {
            t.add("a", null, "LLM", "x", base.plusSeconds(60L * m).toString(), "");
        }
        t.add("a", null, "LLM", "x", base.plusSeconds(2).toString(), "");                // 1102
        t.add("a", null, "LLM", "x", base.plusSeconds(60L * 1099 + 1).toString(), "");   // 1103
        t.add("a", null, "LLM", "x", base.plusSeconds(60L * 1099 + 2).toString(), "");   // 1104
        trail = t;
        PolicyReport report = t.check(PolicyParser.parseDocument("""
                policies: [{name: p, rules: [{name: two, type: rate, severity: fail, per: 1m, max: 2}]}]
                """.getBytes(StandardCharsets.UTF_8)));
        assertRule(report, "two", 1, 1104);
    }

    @Test
    void anEmptyTrailPassesEveryRule() throws Exception {
        PolicyReport report = new Trail().check(document());
        assertThat(report.passed()).isTrue();
        assertThat(report.results()).allMatch(r -> r.violations() == 0 && r.examples().isEmpty());
    }

    @Test
    void atMostTwentyExamplesTheFirstInLogOrder() throws Exception {
        Trail t = new Trail();
        for (int i = 0; i < 50; i++) {
            t.add("a", null, "TOOL_CALL", "search", "2026-01-05T10:00:" + String.format("%02d", i) + "Z", "");
        }
        trail = t;
        PolicyReport report = t.check(PolicyParser.parseDocument("""
                policies: [{name: p, rules: [{name: s, type: sequence, severity: fail, when: search, expect: done}]}]
                """.getBytes(StandardCharsets.UTF_8)));
        assertRule(report, "s", 50, IntStream.range(0, 20).toArray());
    }

    @Test
    void readsTimestampsOfEveryAcceptedForm() {
        for (String ts : List.of("2026-01-05T10:00:00Z", "2026-01-05T10:00:00.5Z", "2026-01-05T11:30:00+01:30",
                "2026-01-05t10:00:00z", "2026-01-05T10:00Z", "2026-01-05T10:00:00", "2026-01-05T08:00:00-02:00",
                "2026-01-05T10:00:00.123456789Z", "2026-01-05T10:00:00+0000")) {
            Instant expected = EventTime.parseTimestamp(ts);
            assertThat(PolicyEventReader.epochMicros(ts)).as(ts)
                    .isEqualTo(expected.getEpochSecond() * 1_000_000 + expected.getNano() / 1000);
        }
    }
}
