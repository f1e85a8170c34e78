package io.trailproof.core.policy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class PolicyParserTest {

    private static List<Policy> parse(String text) throws PolicyRejection {
        return PolicyParser.parseDocument(text.getBytes(StandardCharsets.UTF_8));
    }

    /** One rule of a policy named p, as YAML, with the rule's keys given as one flow mapping. */
    private static String oneRule(String ruleKeys) {
        return "policies:\n  - name: p\n    rules:\n      - " + ruleKeys + "\n";
    }

    @Test
    void readsEveryRuleTypeFromYaml() throws Exception {
        List<Policy> policies = parse("""
                policies:
                  - name: agent-safety
                    rules:
                      - {name: search-then-summarize, type: sequence, severity: fail, when: search, expect: summarize, within: 60s}
                      - {name: no-delete, type: absence, severity: fail, deny: delete_user}
                      - {name: no-delete-after-login, type: absence, severity: warn, scope: session, deny: delete_user, when: login}
                      - {name: only-these, type: boundary, severity: fail, allow_actions: [search, summarize]}
                      - {name: must-plan, type: presence, severity: warn, scope: session, require: [plan, plan, review]}
                      - {name: llm-rate, type: rate, severity: fail, per: 1m, max: 100, label_filter: {env: prod, tier: 1}}
                      - {name: no-ssn, type: pattern, severity: fail, for_field: action_input.query, deny_pattern: '\\d{3}-\\d{2}-\\d{4}'}
                      - {name: office-hours, type: temporal, severity: warn, hours: [22, 6], days: [1, 2, 3, 4, 5]}
                """);
        assertThat(policies).hasSize(1);
        List<Rule> rules = policies.get(0).rules();
        assertThat(rules).extracting(Rule::type).containsExactly("sequence", "absence", "absence", "boundary",
                "presence", "rate", "pattern", "temporal");
        assertThat(rules.get(0).definition()).isEqualTo(new RuleDefinition.Sequence("search", "summarize", 60_000));
        assertThat(rules.get(0).scope()).isEqualTo(Scope.AGENT);
        assertThat(rules.get(2).scope()).isEqualTo(Scope.SESSION);
        assertThat(rules.get(2).severity()).isEqualTo(Severity.WARN);
        assertThat(rules.get(2).definition()).isEqualTo(new RuleDefinition.Absence("delete_user", "login"));
        assertThat(rules.get(4).definition()).isEqualTo(new RuleDefinition.Presence(List.of("plan", "review")));
        assertThat(rules.get(5).definition()).isEqualTo(new RuleDefinition.Rate(60_000, 100));
        assertThat(rules.get(5).labelFilter()).isEqualTo(Map.of("env", "prod", "tier", "1"));
        RuleDefinition.PatternRule pattern = (RuleDefinition.PatternRule) rules.get(6).definition();
        assertThat(pattern.deny()).isTrue();
        assertThat(pattern.pattern().matcher("my ssn is 123-45-6789").find()).isTrue();
        RuleDefinition.Temporal t = (RuleDefinition.Temporal) rules.get(7).definition();
        assertThat(t.hourAllowed(23)).isTrue();
        assertThat(t.hourAllowed(5)).isTrue();
        assertThat(t.hourAllowed(6)).isFalse();
        assertThat(t.hourAllowed(12)).isFalse();
        assertThat(t.dayAllowed(0)).isFalse();
        assertThat(t.dayAllowed(3)).isTrue();
    }

    @Test
    void readsJsonToo() throws Exception {
        List<Policy> policies = parse("""
                {"policies": [{"name": "p", "rules": [
                  {"name": "r", "type": "temporal", "severity": "fail", "hours": [9, 24]}]}]}
                """);
        RuleDefinition.Temporal t = (RuleDefinition.Temporal) policies.get(0).rules().get(0).definition();
        assertThat(t.hourAllowed(9)).isTrue();
        assertThat(t.hourAllowed(23)).isTrue();
        assertThat(t.hourAllowed(8)).isFalse();
        assertThat(t.dayAllowed(6)).isTrue();
    }

    @Test
    void durationsHaveUnits() throws Exception {
        for (Object[] c : new Object[][]{{"500ms", 500L}, {"60s", 60_000L}, {"5m", 300_000L}, {"2h", 7_200_000L},
                {"7d", 604_800_000L}}) {
            Rule r = parse(oneRule("{name: r, type: rate, severity: fail, per: " + c[0] + ", max: 1}")).get(0).rules().get(0);
            assertThat(((RuleDefinition.Rate) r.definition()).perMillis()).isEqualTo(c[1]);
        }
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                arguments("not yaml", "policies: [", "not valid YAML or JSON"),
                arguments("a list at the top", "- a\n- b\n", "must be a mapping with the key 'policies'"),
                arguments("no policies key", "rules: []\n", "unknown key 'rules'"),
                arguments("empty policies", "policies: []\n", "'policies' must be a non-empty list"),
                arguments("duplicate key", "policies: []\npolicies: []\n", "not valid YAML or JSON"),
                arguments("policy without name", "policies:\n  - rules: []\n", "policy 1: the key 'name' is missing"),
                arguments("policy unknown key", "policies:\n  - {name: p, rulez: []}\n", "policy 'p': unknown key 'rulez'"),
                arguments("policy without rules", "policies:\n  - {name: p}\n", "policy 'p': key 'rules' must be a non-empty list"),
                arguments("duplicate policy", "policies:\n  - {name: p, rules: [{name: r, type: absence, severity: fail, deny: x}]}\n"
                        + "  - {name: p, rules: [{name: r, type: absence, severity: fail, deny: x}]}\n", "policy 'p': key 'name': another policy"),
                arguments("rule without name", oneRule("{type: absence, severity: fail, deny: x}"), "policy 'p', rule 1: the key 'name' is missing"),
                arguments("duplicate rule", "policies:\n  - {name: p, rules: [{name: r, type: absence, severity: fail, deny: x}, "
                        + "{name: r, type: absence, severity: fail, deny: y}]}\n", "policy 'p', rule 'r': key 'name': another rule"),
                arguments("unknown type", oneRule("{name: r, type: frequency, severity: fail}"), "policy 'p', rule 'r': key 'type' is 'frequency'"),
                arguments("missing type", oneRule("{name: r, severity: fail}"), "policy 'p', rule 'r': the key 'type' is missing"),
                arguments("missing severity", oneRule("{name: r, type: absence, deny: x}"), "policy 'p', rule 'r': the key 'severity' is missing"),
                arguments("unknown severity", oneRule("{name: r, type: absence, severity: error, deny: x}"), "policy 'p', rule 'r': key 'severity' must be fail or warn"),
                arguments("unknown scope", oneRule("{name: r, type: absence, severity: fail, scope: tenant, deny: x}"), "policy 'p', rule 'r': key 'scope' must be agent or session"),
                arguments("key of another type", oneRule("{name: r, type: absence, severity: fail, deny: x, within: 5s}"), "policy 'p', rule 'r': unknown key 'within'"),
                arguments("label filter not a mapping", oneRule("{name: r, type: absence, severity: fail, deny: x, label_filter: [a]}"), "policy 'p', rule 'r': key 'label_filter' must be a mapping"),
                arguments("label filter value a list", oneRule("{name: r, type: absence, severity: fail, deny: x, label_filter: {a: [1]}}"), "policy 'p', rule 'r': key 'label_filter' maps 'a'"),
                arguments("sequence without expect", oneRule("{name: r, type: sequence, severity: fail, when: a}"), "policy 'p', rule 'r': the key 'expect' is missing"),
                arguments("name of wrong type", oneRule("{name: r, type: sequence, severity: fail, when: [a], expect: b}"), "policy 'p', rule 'r': key 'when' must be a non-empty string"),
                arguments("bad duration", oneRule("{name: r, type: sequence, severity: fail, when: a, expect: b, within: 10x}"), "policy 'p', rule 'r': key 'within' must be a duration"),
                arguments("zero duration", oneRule("{name: r, type: rate, severity: fail, per: 0s, max: 1}"), "policy 'p', rule 'r': key 'per' must be a duration"),
                arguments("number as duration", oneRule("{name: r, type: rate, severity: fail, per: 60, max: 1}"), "policy 'p', rule 'r': key 'per' must be a duration"),
                arguments("huge duration", oneRule("{name: r, type: rate, severity: fail, per: 999999999999d, max: 1}"), "policy 'p', rule 'r': key 'per' is longer than 100 years"),
                arguments("absence without deny", oneRule("{name: r, type: absence, severity: fail, when: a}"), "policy 'p', rule 'r': the key 'deny' is missing"),
                arguments("empty allow list", oneRule("{name: r, type: boundary, severity: fail, allow_actions: []}"), "policy 'p', rule 'r': key 'allow_actions' must be a non-empty list"),
                arguments("allow list of numbers", oneRule("{name: r, type: boundary, severity: fail, allow_actions: [1]}"), "policy 'p', rule 'r': key 'allow_actions' must list only non-empty strings"),
                arguments("require not a list", oneRule("{name: r, type: presence, severity: fail, require: plan}"), "policy 'p', rule 'r': key 'require' must be a non-empty list"),
                arguments("rate without max", oneRule("{name: r, type: rate, severity: fail, per: 1m}"), "policy 'p', rule 'r': the key 'max' is missing"),
                arguments("negative max", oneRule("{name: r, type: rate, severity: fail, per: 1m, max: -1}"), "policy 'p', rule 'r': key 'max' must be a whole number from 0 up"),
                arguments("fractional max", oneRule("{name: r, type: rate, severity: fail, per: 1m, max: 1.5}"), "policy 'p', rule 'r': key 'max' must be a whole number"),
                arguments("max as text", oneRule("{name: r, type: rate, severity: fail, per: 1m, max: many}"), "policy 'p', rule 'r': key 'max' must be a whole number"),
                arguments("bad regex", oneRule("{name: r, type: pattern, severity: fail, for_field: error_message, deny_pattern: 'a(b'}"), "policy 'p', rule 'r': key 'deny_pattern' is not a regular expression the pattern engine runs"),
                arguments("backreference", oneRule("{name: r, type: pattern, severity: fail, for_field: error_message, deny_pattern: '(a+)\\1'}"), "policy 'p', rule 'r': key 'deny_pattern' is not a regular expression the pattern engine runs"),
                arguments("lookahead", oneRule("{name: r, type: pattern, severity: fail, for_field: error_message, match_pattern: 'a(?=b)'}"), "policy 'p', rule 'r': key 'match_pattern' is not a regular expression the pattern engine runs"),
                arguments("both patterns", oneRule("{name: r, type: pattern, severity: fail, for_field: f, deny_pattern: a, match_pattern: b}"), "policy 'p', rule 'r': a pattern rule needs exactly one"),
                arguments("no pattern", oneRule("{name: r, type: pattern, severity: fail, for_field: f}"), "policy 'p', rule 'r': a pattern rule needs exactly one"),
                arguments("bad path", oneRule("{name: r, type: pattern, severity: fail, for_field: a..b, match_pattern: x}"), "policy 'p', rule 'r': key 'for_field' must be a field name or a dotted path"),
                arguments("temporal with nothing", oneRule("{name: r, type: temporal, severity: fail}"), "policy 'p', rule 'r': a temporal rule needs the key 'hours'"),
                arguments("hour out of range", oneRule("{name: r, type: temporal, severity: fail, hours: [9, 25]}"), "policy 'p', rule 'r': key 'hours' must be a whole number from 0 to 24"),
                arguments("start hour 24", oneRule("{name: r, type: temporal, severity: fail, hours: [24, 3]}"), "policy 'p', rule 'r': key 'hours' must be a whole number from 0 to 23"),
                arguments("one hour", oneRule("{name: r, type: temporal, severity: fail, hours: [9]}"), "policy 'p', rule 'r': key 'hours' must be a list of two hours"),
                arguments("empty hours", oneRule("{name: r, type: temporal, severity: fail, hours: [9, 9]}"), "policy 'p', rule 'r': key 'hours' [9, 9) allows no hour or every hour"),
                arguments("day out of range", oneRule("{name: r, type: temporal, severity: fail, days: [1, 7]}"), "policy 'p', rule 'r': key 'days' must be a whole number from 0 to 6"),
                arguments("days empty", oneRule("{name: r, type: temporal, severity: fail, days: []}"), "policy 'p', rule 'r': key 'days' must be a non-empty list"),
                arguments("rule not a mapping", oneRule("just-a-string"), "policy 'p', rule 1 must be a mapping"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void refusesMalformedDocumentsNamingPolicyRuleAndKey(String what, String document, String message) {
        assertThatThrownBy(() -> parse(document))
                .as(what)
                .isInstanceOf(PolicyRejection.class)
                .hasMessageContaining(message);
    }

    /**
     * A pattern that backtracks exponentially in a backtracking engine ((a+)+$ on a run of a's that
     * ends in another letter: 2^n ways to split the run) runs in linear time: 10,000 characters
     * checked at once, where a backtracking engine would not finish at 40.
     */
    @Test
    void patternsRunInLinearTime() throws Exception {
        List<Policy> policies = parse(oneRule("{name: r, type: pattern, severity: fail, for_field: error_message, "
                + "deny_pattern: '(a+)+$'}"));
        RuleDefinition.PatternRule rule = (RuleDefinition.PatternRule) policies.get(0).rules().get(0).definition();
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (int n : new int[] {40, 1_000, 10_000}) {
                assertThat(rule.pattern().matcher("a".repeat(n) + "b").find()).isFalse();
                assertThat(rule.pattern().matcher("b" + "a".repeat(n)).find()).isTrue();
            }
        });
    }

    @Test
    void anUnknownPolicyNameIsRefused() throws Exception {
        List<Policy> policies = BuiltinPolicies.all();
        assertThat(PolicyEngine.select(policies, "error_rate")).extracting(Policy::name).containsExactly("error_rate");
        assertThat(PolicyEngine.select(policies, null)).hasSize(6);
        assertThatThrownBy(() -> PolicyEngine.select(policies, "nope"))
                .hasMessageContaining("no policy is named 'nope'")
                .hasMessageContaining("chain_integrity");
    }

    /**
     * Seeded mutations of a valid document (characters deleted, duplicated or replaced): each either
     * parses or is refused with a PolicyRejection; nothing else (no NullPointerException, no
     * ClassCastException) ever escapes, whatever the input.
     */
    @Test
    void mutatedDocumentsAreParsedOrRefusedNeverCrash() {
        String valid = PolicyCorpusTest.DOCUMENT;
        String alphabet = " :-[]{},'\"\n#&*!|>%@`0123456789abcdefghijklmnopqrstuvwxyz.";
        Random random = new Random(16);
        int refused = 0;
        for (int i = 0; i < 3000; i++) {
            StringBuilder b = new StringBuilder(valid);
            for (int k = 1 + random.nextInt(4); k > 0; k--) {
                int at = random.nextInt(b.length());
                switch (random.nextInt(3)) {
                    case 0 -> b.deleteCharAt(at);
                    case 1 -> b.insert(at, b.charAt(at));
                    default -> b.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
                }
            }
            try {
                parse(b.toString());
            } catch (PolicyRejection e) {
                refused++;
                assertThat(e.getMessage()).as(b.toString()).isNotBlank().doesNotContain("Exception");
            }
        }
        assertThat(refused).isGreaterThan(100);
    }
}
