package io.trailproof.core.policy;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a policy document (src/site/redaction.md), YAML or JSON (a JSON document is YAML too), strictly: every
 * key must be known for its place, every required key present and of its type, every value in its
 * range. Anything else is a {@link PolicyRejection} whose one sentence names the policy, the rule and
 * the key, so that a document either runs exactly as written or not at all.
 *
 * <p>Decisions where the contract is silent: {@code severity} is required (a compliance rule says
 * whether it fails the check); {@code scope} defaults to {@code agent}; {@code within} is optional
 * (absent: any time later); durations are a positive whole number with a unit {@code ms}, {@code s},
 * {@code m}, {@code h} or {@code d}; policy names are unique in a document and rule names in a policy.
 */
public final class PolicyParser {

    /** Most policies a document may hold, and rules a policy; far beyond use, small enough to bound a check. */
    public static final int MAX_POLICIES = 1000;
    public static final int MAX_RULES = 1000;

    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .build();
    private static final long MAX_DURATION_MILLIS = 100L * 366 * 86_400_000;
    private static final Pattern DURATION = Pattern.compile("([0-9]{1,12})(ms|s|m|h|d)");
    private static final Set<String> COMMON_KEYS = Set.of("name", "type", "severity", "scope", "label_filter",
            "effect", "reason");
    /** Rule types that can judge a proposal on its own and its history (src/site/gates.md). */
    private static final Set<String> GATE_TYPES = Set.of("absence", "boundary", "rate", "temporal", "pattern",
            "requires", "match");
    /** Longest {@code reason}: shown to agents and approvers, stored in every decision. */
    public static final int MAX_REASON_LENGTH = 1024;
    private static final Map<String, Set<String>> TYPE_KEYS = Map.of(
            "sequence", Set.of("when", "expect", "within"),
            "absence", Set.of("deny", "when"),
            "boundary", Set.of("allow_actions"),
            "presence", Set.of("require"),
            "rate", Set.of("per", "max"),
            "pattern", Set.of("for_field", "match_pattern", "deny_pattern"),
            "temporal", Set.of("hours", "days"),
            "requires", Set.of("for", "requires"),
            "match", Set.of("query"));
    private static final String TYPES = "sequence, absence, boundary, presence, rate, pattern, temporal, requires or match";

    private PolicyParser() {
    }

    /** Parses a whole document: an object whose only key is {@code policies}. */
    public static List<Policy> parseDocument(byte[] text) throws PolicyRejection {
        return parsePolicies(documentPolicies(text));
    }

    /**
     * A whole document as a tree, its outer shape and its policies checked: what the gate stores
     * (src/site/gates.md).
     */
    public static JsonNode readDocument(byte[] text) throws PolicyRejection {
        parsePolicies(documentPolicies(text));
        try {
            return YAML.readTree(text);
        } catch (IOException e) {
            throw new PolicyRejection("the policy document cannot be read: " + e.getMessage());
        }
    }

    /**
     * The list a document holds under {@code policies}, as a tree, with the document's outer shape
     * checked (its policies are checked by {@link #parsePolicies}): what a client sends as the
     * {@code policies} of a check request.
     */
    public static JsonNode documentPolicies(byte[] text) throws PolicyRejection {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            throw new PolicyRejection("the policy document is not valid YAML or JSON: " + e.getOriginalMessage()
                    + where(e));
        } catch (IOException e) {
            throw new PolicyRejection("the policy document cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new PolicyRejection("the policy document must be a mapping with the key 'policies' (a list of policies)");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!key.equals("policies")) {
                throw new PolicyRejection("the policy document has the unknown key '" + shorten(key)
                        + "'; its only key is 'policies'");
            }
        }
        JsonNode policies = root.get("policies");
        if (policies == null) {
            throw new PolicyRejection("the policy document has no key 'policies' (a list of policies)");
        }
        return policies;
    }

    /** Parses the list a document holds under {@code policies} (also the {@code policies} of a check request). */
    public static List<Policy> parsePolicies(JsonNode policies) throws PolicyRejection {
        if (!policies.isArray() || policies.isEmpty()) {
            throw new PolicyRejection("'policies' must be a non-empty list of policies");
        }
        if (policies.size() > MAX_POLICIES) {
            throw new PolicyRejection("'policies' lists " + policies.size() + " policies; at most " + MAX_POLICIES
                    + " are allowed");
        }
        List<Policy> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < policies.size(); i++) {
            Policy p = policy(policies.get(i), i + 1);
            if (!names.add(p.name())) {
                throw new PolicyRejection("policy '" + shorten(p.name()) + "': key 'name': another policy of the document "
                        + "has the same name; policy names must be unique");
            }
            out.add(p);
        }
        return out;
    }

    private static Policy policy(JsonNode node, int position) throws PolicyRejection {
        String at = "policy " + position;
        if (!node.isObject()) {
            throw new PolicyRejection(at + " must be a mapping with the keys 'name' and 'rules'");
        }
        String name = requiredText(node, "name", at);
        at = "policy '" + shorten(name) + "'";
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!key.equals("name") && !key.equals("rules")) {
                throw new PolicyRejection(at + ": unknown key '" + shorten(key) + "'; a policy has only 'name' and 'rules'");
            }
        }
        JsonNode rules = node.get("rules");
        if (rules == null || !rules.isArray() || rules.isEmpty()) {
            throw new PolicyRejection(at + ": key 'rules' must be a non-empty list of rules");
        }
        if (rules.size() > MAX_RULES) {
            throw new PolicyRejection(at + ": key 'rules' lists " + rules.size() + " rules; at most " + MAX_RULES
                    + " are allowed");
        }
        List<Rule> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rule(rules.get(i), at, i + 1);
            if (!names.add(r.name())) {
                throw new PolicyRejection(at + ", rule '" + shorten(r.name()) + "': key 'name': another rule of the "
                        + "policy has the same name; rule names must be unique within a policy");
            }
            out.add(r);
        }
        return new Policy(name, out);
    }

    private static Rule rule(JsonNode node, String policyAt, int position) throws PolicyRejection {
        String at = policyAt + ", rule " + position;
        if (!node.isObject()) {
            throw new PolicyRejection(at + " must be a mapping with at least 'name', 'type' and 'severity'");
        }
        String name = requiredText(node, "name", at);
        at = policyAt + ", rule '" + shorten(name) + "'";
        String type = requiredText(node, "type", at);
        Set<String> typeKeys = TYPE_KEYS.get(type);
        if (typeKeys == null) {
            throw new PolicyRejection(at + ": key 'type' is '" + shorten(type) + "'; it must be " + TYPES);
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!COMMON_KEYS.contains(key) && !typeKeys.contains(key)) {
                throw new PolicyRejection(at + ": unknown key '" + shorten(key) + "' for a rule of type " + type
                        + "; it may have " + String.join(", ", new TreeSet<>(typeKeys))
                        + " besides name, type, severity, scope, label_filter, effect and reason");
            }
        }
        Effect effect = null;
        String effectText = optionalText(node, "effect", at);
        if (effectText != null) {
            effect = Effect.of(effectText);
            if (effect == null) {
                throw new PolicyRejection(at + ": key 'effect' must be deny, ask or allow, got '" + shorten(effectText) + "'");
            }
            if (!GATE_TYPES.contains(type)) {
                throw new PolicyRejection(at + ": key 'effect' is not allowed on a rule of type " + type
                        + ", which cannot judge a proposed action before it runs; gate rules are of type "
                        + String.join(", ", new TreeSet<>(GATE_TYPES)));
            }
        } else if (type.equals("match")) {
            throw new PolicyRejection(at + ": the key 'effect' is missing; a match rule decides proposals at the gate "
                    + "and needs effect deny, ask or allow");
        }
        String reason = optionalText(node, "reason", at);
        if (reason != null && reason.length() > MAX_REASON_LENGTH) {
            throw new PolicyRejection(at + ": key 'reason' is longer than " + MAX_REASON_LENGTH + " characters");
        }
        // A gate rule may leave severity out: as a check of the stored trail it then warns.
        String severityText = effect == null ? requiredText(node, "severity", at) : optionalText(node, "severity", at);
        Severity severity = switch (severityText == null ? "warn" : severityText) {
            case "fail" -> Severity.FAIL;
            case "warn" -> Severity.WARN;
            default -> throw new PolicyRejection(at + ": key 'severity' must be fail or warn, got '"
                    + shorten(node.get("severity").textValue()) + "'");
        };
        Scope scope = Scope.AGENT;
        String scopeText = optionalText(node, "scope", at);
        if (scopeText != null) {
            scope = switch (scopeText) {
                case "agent" -> Scope.AGENT;
                case "session" -> Scope.SESSION;
                default -> throw new PolicyRejection(at + ": key 'scope' must be agent or session, got '"
                        + shorten(scopeText) + "'");
            };
        }
        return new Rule(name, severity, scope, labelFilter(node, at), definition(type, node, at), effect, reason);
    }

    private static RuleDefinition definition(String type, JsonNode node, String at) throws PolicyRejection {
        return switch (type) {
            case "sequence" -> {
                JsonNode within = node.get("within");
                yield new RuleDefinition.Sequence(requiredText(node, "when", at), requiredText(node, "expect", at),
                        within == null || within.isNull() ? 0 : duration(within, "within", at));
            }
            case "absence" -> new RuleDefinition.Absence(requiredText(node, "deny", at), optionalText(node, "when", at));
            case "boundary" -> new RuleDefinition.Boundary(new LinkedHashSet<>(textList(node, "allow_actions", at)));
            case "presence" -> new RuleDefinition.Presence(new ArrayList<>(new LinkedHashSet<>(textList(node, "require", at))));
            case "rate" -> new RuleDefinition.Rate(duration(required(node, "per", at), "per", at),
                    integer(required(node, "max", at), "max", at, 0, Long.MAX_VALUE));
            case "pattern" -> pattern(node, at);
            case "temporal" -> temporal(node, at);
            case "requires" -> new RuleDefinition.Requires(requiredText(node, "for", at), requiredText(node, "requires", at));
            case "match" -> new RuleDefinition.Match(requiredText(node, "query", at));
            default -> throw new IllegalStateException(type);
        };
    }

    private static RuleDefinition pattern(JsonNode node, String at) throws PolicyRejection {
        String field = requiredText(node, "for_field", at);
        for (String segment : field.split("\\.", -1)) {
            if (segment.isEmpty()) {
                throw new PolicyRejection(at + ": key 'for_field' must be a field name or a dotted path such as "
                        + "action_input.query, got '" + shorten(field) + "'");
            }
        }
        String match = optionalText(node, "match_pattern", at);
        String deny = optionalText(node, "deny_pattern", at);
        if ((match == null) == (deny == null)) {
            throw new PolicyRejection(at + ": a pattern rule needs exactly one of the keys 'match_pattern' and "
                    + "'deny_pattern'");
        }
        String key = match != null ? "match_pattern" : "deny_pattern";
        String regex = match != null ? match : deny;
        try {
            return new RuleDefinition.PatternRule(field, Pattern.compile(regex), deny != null);
        } catch (PatternSyntaxException e) {
            throw new PolicyRejection(at + ": key '" + key + "' is not a regular expression the pattern engine runs ("
                    + e.getDescription() + (e.getPattern() == null || e.getPattern().isEmpty() ? ""
                    : " in '" + shorten(e.getPattern()) + "'") + "); patterns run in linear time (RE2 syntax), so "
                    + "backreferences and lookaround such as (?=...) are not available");
        }
    }

    private static RuleDefinition temporal(JsonNode node, String at) throws PolicyRejection {
        JsonNode hours = node.get("hours");
        JsonNode days = node.get("days");
        if ((hours == null || hours.isNull()) && (days == null || days.isNull())) {
            throw new PolicyRejection(at + ": a temporal rule needs the key 'hours' ([start, end) in UTC), "
                    + "'days' (a list of 0-6, 0 = Sunday) or both");
        }
        int start = -1;
        int end = -1;
        if (hours != null && !hours.isNull()) {
            if (!hours.isArray() || hours.size() != 2) {
                throw new PolicyRejection(at + ": key 'hours' must be a list of two hours [start, end) in UTC, "
                        + "such as [9, 17]");
            }
            start = (int) integer(hours.get(0), "hours", at, 0, 23);
            end = (int) integer(hours.get(1), "hours", at, 0, 24);
            if (start == end || start == 0 && end == 24) {
                throw new PolicyRejection(at + ": key 'hours' [" + start + ", " + end + ") allows no hour or every "
                        + "hour; give a start and end that differ, or leave 'hours' out");
            }
            end %= 24;
        }
        int dayBits = RuleDefinition.Temporal.EVERY_DAY;
        if (days != null && !days.isNull()) {
            if (!days.isArray() || days.isEmpty()) {
                throw new PolicyRejection(at + ": key 'days' must be a non-empty list of days 0-6 (0 = Sunday)");
            }
            dayBits = 0;
            for (JsonNode d : days) {
                dayBits |= 1 << integer(d, "days", at, 0, 6);
            }
        }
        return new RuleDefinition.Temporal(start, end, dayBits);
    }

    private static Map<String, String> labelFilter(JsonNode node, String at) throws PolicyRejection {
        JsonNode filter = node.get("label_filter");
        Map<String, String> out = new LinkedHashMap<>();
        if (filter == null || filter.isNull()) {
            return out;
        }
        if (!filter.isObject()) {
            throw new PolicyRejection(at + ": key 'label_filter' must be a mapping of label names to values");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = filter.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            // Labels are strings; a YAML author writing `tier: 1` means the label value "1".
            if (!v.isTextual() && !v.isNumber() && !v.isBoolean()) {
                throw new PolicyRejection(at + ": key 'label_filter' maps '" + shorten(e.getKey())
                        + "' to something that is not a label value (a string)");
            }
            out.put(e.getKey(), v.asText());
        }
        return out;
    }

    // ------------------------------------------------------------------ values

    private static JsonNode required(JsonNode node, String key, String at) throws PolicyRejection {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            throw new PolicyRejection(at + ": the key '" + key + "' is missing");
        }
        return v;
    }

    private static String requiredText(JsonNode node, String key, String at) throws PolicyRejection {
        String v = optionalText(node, key, at);
        if (v == null) {
            throw new PolicyRejection(at + ": the key '" + key + "' is missing");
        }
        return v;
    }

    private static String optionalText(JsonNode node, String key, String at) throws PolicyRejection {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() || v.textValue().isEmpty()) {
            throw new PolicyRejection(at + ": key '" + key + "' must be a non-empty string");
        }
        return v.textValue();
    }

    private static List<String> textList(JsonNode node, String key, String at) throws PolicyRejection {
        JsonNode v = required(node, key, at);
        if (!v.isArray() || v.isEmpty()) {
            throw new PolicyRejection(at + ": key '" + key + "' must be a non-empty list of action names");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : v) {
            if (!item.isTextual() || item.textValue().isEmpty()) {
                throw new PolicyRejection(at + ": key '" + key + "' must list only non-empty strings");
            }
            out.add(item.textValue());
        }
        return out;
    }

    private static long integer(JsonNode v, String key, String at, long min, long max) throws PolicyRejection {
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw new PolicyRejection(at + ": key '" + key + "' must be a whole number from " + min
                    + (max == Long.MAX_VALUE ? " up" : " to " + max) + ", got " + (v == null ? "nothing" : shorten(v.toString())));
        }
        return v.longValue();
    }

    /** A duration in milliseconds: a positive whole number and a unit ({@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}, {@code 7d}). */
    static long duration(JsonNode v, String key, String at) throws PolicyRejection {
        Matcher m = v.isTextual() ? DURATION.matcher(v.textValue().trim()) : null;
        if (m == null || !m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new PolicyRejection(at + ": key '" + key + "' must be a duration such as 500ms, 60s, 5m, 1h or 7d, got "
                    + shorten(v.isTextual() ? "'" + v.textValue() + "'" : v.toString()));
        }
        long n = Long.parseLong(m.group(1));
        long unit = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            case "m" -> 60_000;
            case "h" -> 3_600_000;
            default -> 86_400_000;
        };
        if (n > MAX_DURATION_MILLIS / unit) {
            throw new PolicyRejection(at + ": key '" + key + "' is longer than 100 years, got '" + v.textValue() + "'");
        }
        return n * unit;
    }

    private static String where(JsonProcessingException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + ")";
    }

    static String shorten(String s) {
        return s == null ? "" : s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
