package io.trailproof.core.policy;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The streaming engine against a brute-force reference written here from the contract's counting
 * rules, holding every event in memory and answering each rule by looking at the whole trail:
 * random trails (seeded, so a failure repeats), random rules of every type and both scopes, random
 * label filters and narrowing. Compared per rule: the number of violations and the log indexes of
 * the examples.
 */
class PolicyEngineReferenceTest {

    /** An event's facts as generated (the reference never reads the stored bytes). */
    record Ev(int index, String agent, String session, String type, String name, long tsMicros, String status,
              long duration, String env, String query) {
    }

    private static final String[] NAMES = {"search", "summarize", "login", "delete_user", "plan", "fetch"};
    private static final String[] TYPES = {"TOOL_CALL", "TOOL_RESULT", "LLM"};
    private static final long BASE = Instant.parse("2026-01-05T08:00:00Z").getEpochSecond() * 1_000_000;

    @Test
    void streamingEngineAgreesWithBruteForce() throws Exception {
        Map<String, Integer> violatedRules = new TreeMap<>();
        for (long seed = 1; seed <= 60; seed++) {
            Random random = new Random(seed);
            Trail trail = new Trail();
            List<Ev> events = randomTrail(random, trail);
            long ts = events.get(events.size() - 1).tsMicros();
            List<Policy> policies = randomPolicies(random);
            String agent = random.nextInt(4) == 0 ? "a" + random.nextInt(3) : null;
            Long since = random.nextInt(3) == 0 ? ts - random.nextInt(3600) * 1_000_000L : null;
            Long until = random.nextInt(3) == 0 ? BASE + random.nextInt(3600) * 1_000_000L : null;

            PolicyReport report = trail.check(policies, agent, since == null ? null : iso(since),
                    until == null ? null : iso(until));
            int k = 0;
            for (Policy p : policies) {
                for (Rule r : p.rules()) {
                    List<Ev> seen = events.stream().filter(e -> (agent == null || agent.equals(e.agent()))
                            && (since == null || e.tsMicros() >= since) && (until == null || e.tsMicros() < until)
                            && (r.labelFilter().isEmpty() || r.labelFilter().get("env").equals(e.env()))).toList();
                    List<Integer> expected = reference(r, seen);
                    RuleResult actual = report.results().get(k++);
                    String what = "seed " + seed + ", rule " + r;
                    assertThat(actual.violations()).as(what).isEqualTo(expected.size());
                    if (!expected.isEmpty()) {
                        violatedRules.merge(r.definition() instanceof RuleDefinition.Builtin b ? b.kind().wireName()
                                : r.type(), 1, Integer::sum);
                    }
                    List<Integer> sorted = expected.stream().sorted().limit(ExampleList.LIMIT).toList();
                    assertThat(actual.examples()).extracting(x -> indexOf(trail, x.eventId())).as(what)
                            .containsExactlyElementsOf(sorted);
                }
            }
        }
        // The comparison means something only if every kind of rule was seen violated (but chain_integrity).
        assertThat(violatedRules.keySet()).containsExactlyInAnyOrder("sequence", "absence", "boundary", "presence",
                "rate", "pattern", "temporal", "requires", "event_completeness", "session_health", "error_rate", "duration_outliers");
    }

    /** A random trail (seeded), appended to {@code trail} as stored events, and the facts the references read. */
    static List<Ev> randomTrail(Random random, Trail trail) {
        List<Ev> events = new ArrayList<>();
        long ts = BASE;
        int n = 20 + random.nextInt(180);
        for (int i = 0; i < n; i++) {
            // mostly forward in small steps; sometimes a gap of hours, sometimes backwards (clients' clocks)
            int jump = random.nextInt(20);
            ts += jump == 0 ? random.nextInt(3 * 3600) * 1_000_000L : jump == 1 ? -random.nextInt(600) * 1_000_000L
                    : random.nextInt(40) * 1_000_000L + random.nextInt(1000);
            Ev e = new Ev(i, "a" + random.nextInt(3), random.nextInt(3) == 0 ? null : "s" + random.nextInt(2),
                    pick(random, TYPES), random.nextInt(10) == 0 ? null : pick(random, NAMES), ts,
                    random.nextBoolean() ? "error" : "ok", random.nextInt(4) == 0 ? -1 : random.nextInt(90_000),
                    random.nextInt(3) == 0 ? null : random.nextBoolean() ? "prod" : "dev",
                    random.nextInt(3) == 0 ? null : "q " + random.nextInt(1000));
            events.add(e);
            trail.add(json(e));
        }
        return events;
    }

    private static int indexOf(Trail trail, String id) {
        for (int i = 0; ; i++) {
            if (trail.id(i).equals(id)) {
                return i;
            }
        }
    }

    // ------------------------------------------------------------------ the reference

    /** The log index of each violation of {@code rule} over {@code seen} (the events the rule sees, in log order). */
    static List<Integer> reference(Rule rule, List<Ev> seen) {
        BiPredicate<Ev, Ev> sameScope = rule.scope() == Scope.AGENT ? (a, b) -> a.agent().equals(b.agent())
                : (a, b) -> a.agent().equals(b.agent()) && Objects.equals(a.session(), b.session());
        List<Integer> out = new ArrayList<>();
        switch (rule.definition()) {
            case RuleDefinition.Sequence d -> {
                for (int i = 0; i < seen.size(); i++) {
                    Ev w = seen.get(i);
                    if (!d.when().equals(w.name())) {
                        continue;
                    }
                    boolean answered = false;
                    for (int j = i + 1; j < seen.size() && !answered; j++) {
                        Ev x = seen.get(j);
                        answered = sameScope.test(w, x) && d.expect().equals(x.name())
                                && (d.withinMillis() == 0 || x.tsMicros() - w.tsMicros() <= d.withinMillis() * 1000);
                    }
                    if (!answered) {
                        out.add(w.index());
                    }
                }
            }
            case RuleDefinition.Absence d -> {
                for (int i = 0; i < seen.size(); i++) {
                    Ev x = seen.get(i);
                    boolean denied = x.name() != null && (d.deny().endsWith("*")
                            ? x.name().startsWith(d.deny().substring(0, d.deny().length() - 1)) : d.deny().equals(x.name()));
                    if (!denied) {
                        continue;
                    }
                    boolean after = d.when() == null;
                    for (int j = 0; j < i && !after; j++) {
                        after = sameScope.test(x, seen.get(j)) && d.when().equals(seen.get(j).name());
                    }
                    if (after) {
                        out.add(x.index());
                    }
                }
            }
            case RuleDefinition.Boundary d -> seen.stream().filter(e -> e.name() != null && !d.allowed().contains(e.name()))
                    .forEach(e -> out.add(e.index()));
            case RuleDefinition.Presence d -> {
                for (int i = 0; i < seen.size(); i++) {
                    Ev first = seen.get(i);
                    boolean isFirst = true;
                    for (int j = 0; j < i && isFirst; j++) {
                        isFirst = !sameScope.test(first, seen.get(j));
                    }
                    if (!isFirst) {
                        continue;
                    }
                    for (String name : d.required()) {
                        if (seen.stream().noneMatch(e -> sameScope.test(first, e) && name.equals(e.name()))) {
                            out.add(first.index());
                        }
                    }
                }
            }
            case RuleDefinition.Rate d -> {
                long per = d.perMillis() * 1000;
                for (int i = 0; i < seen.size(); i++) {
                    Ev x = seen.get(i);
                    long count = 0;
                    for (int j = 0; j <= i; j++) {
                        Ev y = seen.get(j);
                        if (sameScope.test(x, y) && Math.floorDiv(y.tsMicros(), per) == Math.floorDiv(x.tsMicros(), per)) {
                            count++;
                        }
                    }
                    if (count > d.max()) {
                        out.add(x.index());
                    }
                }
            }
            case RuleDefinition.PatternRule d -> {
                for (Ev e : seen) {
                    String v = d.field().equals("action_input.query") ? e.query() : e.env();
                    if (v != null && d.pattern().matcher(v).find() == d.deny()) {
                        out.add(e.index());
                    }
                }
            }
            case RuleDefinition.Temporal d -> {
                for (Ev e : seen) {
                    ZonedDateTime t = Instant.ofEpochSecond(Math.floorDiv(e.tsMicros(), 1_000_000)).atZone(ZoneOffset.UTC);
                    int day = t.getDayOfWeek().getValue() % 7;
                    if (!d.hourAllowed(t.getHour()) || !d.dayAllowed(day)) {
                        out.add(e.index());
                    }
                }
            }
            case RuleDefinition.Requires d -> {
                for (int i = 0; i < seen.size(); i++) {
                    Ev x = seen.get(i);
                    if (!d.forAction().equals(x.name())) {
                        continue;
                    }
                    boolean met = false;
                    for (int j = 0; j < i && !met; j++) {
                        met = sameScope.test(x, seen.get(j)) && d.requires().equals(seen.get(j).name());
                    }
                    if (!met) {
                        out.add(x.index());
                    }
                }
            }
            case RuleDefinition.Match d -> throw new IllegalArgumentException("match rules decide proposals only");
            case RuleDefinition.Builtin b -> builtin(b.kind(), seen, sameScope, out);
        }
        return out;
    }

    private static void builtin(RuleDefinition.BuiltinKind kind, List<Ev> seen, BiPredicate<Ev, Ev> sameSession,
                                List<Integer> out) {
        switch (kind) {
            case EVENT_COMPLETENESS -> {
                Set<Integer> answered = new HashSet<>();
                for (int j = 0; j < seen.size(); j++) {
                    Ev result = seen.get(j);
                    if (!"TOOL_RESULT".equals(result.type())) {
                        continue;
                    }
                    for (int i = 0; i < j; i++) { // the oldest call of the name still unanswered
                        Ev call = seen.get(i);
                        if ("TOOL_CALL".equals(call.type()) && sameSession.test(call, result)
                                && Objects.equals(call.name(), result.name()) && answered.add(i)) {
                            break;
                        }
                    }
                }
                for (int i = 0; i < seen.size(); i++) {
                    if ("TOOL_CALL".equals(seen.get(i).type()) && !answered.contains(i)) {
                        out.add(seen.get(i).index());
                    }
                }
            }
            case SESSION_HEALTH -> {
                for (int i = 0; i < seen.size(); i++) {
                    for (int j = i - 1; j >= 0; j--) {
                        if (sameSession.test(seen.get(i), seen.get(j))) {
                            if (seen.get(i).tsMicros() - seen.get(j).tsMicros() > 3_600_000_000L) {
                                out.add(seen.get(i).index());
                            }
                            break;
                        }
                    }
                }
            }
            case ERROR_RATE -> {
                Map<List<String>, List<Ev>> sessions = new LinkedHashMap<>();
                for (Ev e : seen) {
                    sessions.computeIfAbsent(Arrays.asList(e.agent(), e.session()), k -> new ArrayList<>()).add(e);
                }
                for (List<Ev> s : sessions.values()) {
                    long errors = s.stream().filter(e -> "error".equals(e.status())).count();
                    if (s.size() >= 4 && errors * 2 > s.size()) {
                        out.add(s.get(0).index());
                    }
                }
            }
            case DURATION_OUTLIERS -> seen.stream().filter(e -> "TOOL_CALL".equals(e.type()) && e.duration() > 60_000)
                    .forEach(e -> out.add(e.index()));
            case CHAIN_INTEGRITY -> { } // every generated chain is intact
            case GATE_COMPLIANCE -> { } // no generated agent is gated (none has a DECISION)
        }
    }

    // ------------------------------------------------------------------ generation

    static List<Policy> randomPolicies(Random random) throws PolicyRejection {
        StringBuilder doc = new StringBuilder("policies:\n  - name: random\n    rules:\n");
        int rules = 3 + random.nextInt(8);
        for (int i = 0; i < rules; i++) {
            String common = "name: r" + i + ", severity: " + (random.nextBoolean() ? "fail" : "warn")
                    + (random.nextBoolean() ? ", scope: session" : "")
                    + (random.nextInt(4) == 0 ? ", label_filter: {env: " + (random.nextBoolean() ? "prod" : "dev") + "}" : "");
            String specific = switch (random.nextInt(8)) {
                case 0 -> "type: sequence, when: " + pick(random, NAMES) + ", expect: " + pick(random, NAMES)
                        + (random.nextBoolean() ? ", within: " + (1 + random.nextInt(120)) + "s" : "");
                case 1 -> "type: absence, deny: " + (random.nextInt(4) == 0 ? "'delete_*'" : pick(random, NAMES)) + (random.nextBoolean() ? ", when: " + pick(random, NAMES) : "");
                case 2 -> "type: boundary, allow_actions: [" + pick(random, NAMES) + ", " + pick(random, NAMES) + "]";
                case 3 -> "type: presence, require: [" + pick(random, NAMES) + ", " + pick(random, NAMES) + "]";
                case 4 -> "type: rate, per: " + (1 + random.nextInt(5)) + "m, max: " + random.nextInt(4);
                case 5 -> random.nextBoolean() ? "type: pattern, for_field: action_input.query, "
                        + (random.nextBoolean() ? "deny_pattern: '[0-3]7'" : "match_pattern: '^q [1-5]'")
                        : "type: pattern, for_field: labels.env, match_pattern: prod";
                case 6 -> "type: requires, for: " + pick(random, NAMES) + ", requires: " + pick(random, NAMES);
                default -> "type: temporal, hours: [" + random.nextInt(24) + ", " + (1 + random.nextInt(23)) + "]"
                        + (random.nextBoolean() ? ", days: [1, 3, 5]" : "");
            };
            if (specific.contains("hours: [") && specific.matches(".*hours: \\[(\\d+), \\1\\].*")) {
                specific = "type: temporal, days: [0, 6]";
            }
            doc.append("      - {").append(common).append(", ").append(specific).append("}\n");
        }
        List<Policy> out = new ArrayList<>(PolicyParser.parseDocument(doc.toString().getBytes()));
        out.addAll(BuiltinPolicies.all());
        return out;
    }

    private static String json(Ev e) {
        StringBuilder b = new StringBuilder("{\"agent_id\":\"" + e.agent() + "\",\"action_type\":\"" + e.type() + "\"");
        if (e.session() != null) {
            b.append(",\"session_id\":\"").append(e.session()).append('"');
        }
        if (e.name() != null) {
            b.append(",\"action_name\":\"").append(e.name()).append('"');
        }
        b.append(",\"timestamp\":\"").append(iso(e.tsMicros())).append('"');
        b.append(",\"action_status\":\"").append(e.status()).append('"');
        if (e.duration() >= 0) {
            b.append(",\"duration_ms\":").append(e.duration());
        }
        if (e.env() != null) {
            b.append(",\"labels\":{\"env\":\"").append(e.env()).append("\"}");
        }
        if (e.query() != null) {
            b.append(",\"action_input\":{\"query\":\"").append(e.query()).append("\"}");
        }
        return b.append('}').toString();
    }

    private static String iso(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L).toString();
    }

    static String pick(Random random, String[] from) {
        return from[random.nextInt(from.length)];
    }

}
