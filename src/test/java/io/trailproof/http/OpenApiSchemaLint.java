package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.trailproof.http.OpenApiLint.pointer;

/**
 * The schema rules of {@link OpenApiLint}, applied to every schema of the document and every schema
 * under it: {@code no-required-schema-properties-undefined} (a required name is a property of the
 * schema, or of the schema whose {@code allOf}/{@code anyOf}/{@code oneOf} it is part of, as Redocly
 * reads it: {@code if}/{@code then}/{@code else}/{@code not} do not count), {@code no-schema-type-mismatch},
 * {@code no-enum-type-mismatch}, {@code no-duplicated-enum-values}, {@code no-mixed-number-range-constraints},
 * {@code no-invalid-schema-examples}, and {@code no-unsafe-markdown} in descriptions.
 */
final class OpenApiSchemaLint {

    private static final Set<String> SINGLE_SUBSCHEMAS = Set.of("items", "additionalProperties", "not", "if",
            "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema");
    private static final Set<String> MAP_SUBSCHEMAS = Set.of("properties", "patternProperties", "dependentSchemas", "$defs");
    private static final Set<String> COMPOSITIONS = Set.of("allOf", "anyOf", "oneOf");

    private final OpenApiLint lint;

    OpenApiSchemaLint(OpenApiLint lint) {
        this.lint = lint;
    }

    private void report(String rule, String at, String message) {
        lint.report(rule, at, message);
    }

    /** One schema of the document (a root: not inside another schema) and everything under it. */
    void check(JsonNode schema, String at) {
        schema(schema, at, new ArrayDeque<>(), null);
    }

    /**
     * One schema and everything under it. {@code chain} holds the schemas above it, each with the
     * keyword that led to its child ({@code relation}): what {@code no-required-schema-properties-undefined}
     * needs to find the composition a schema is part of.
     */
    private void schema(JsonNode s, String at, Deque<JsonNode> chain, String relation) {
        if (!s.isObject()) {
            return;
        }
        lint.markdown(s, at);
        requiredDefined(s, at, chain, relation);
        JsonNode type = s.get("type");
        if (type != null && type.isTextual()) {
            if (!type.asText().equals("array") && s.has("items")) {
                report("no-schema-type-mismatch", at, "'" + type.asText() + "' type should not contain 'items'.");
            }
            if (!type.asText().equals("object") && s.has("properties")) {
                report("no-schema-type-mismatch", at, "'" + type.asText() + "' type should not contain 'properties'.");
            }
        }
        if (type != null) {
            List<String> types = new ArrayList<>();
            if (type.isArray()) {
                type.forEach(t -> types.add(t.asText()));
            } else {
                types.add(type.asText());
            }
            s.path("enum").forEach(v -> {
                if (types.stream().noneMatch(t -> isOfType(v, t))) {
                    report("no-enum-type-mismatch", pointer(at, "enum"),
                            "Enum value " + v + " is not of type " + types + ".");
                }
            });
            if (s.has("const") && types.stream().noneMatch(t -> isOfType(s.get("const"), t))) {
                report("no-enum-type-mismatch", pointer(at, "const"),
                        "The const value is not of type " + types + ".");
            }
        }
        Set<JsonNode> values = new HashSet<>();
        s.path("enum").forEach(v -> {
            if (!values.add(v)) {
                report("no-duplicated-enum-values", pointer(at, "enum"), "Duplicate enum value " + v + ".");
            }
        });
        if ((s.has("maximum") && s.path("exclusiveMaximum").isNumber())
                || (s.has("minimum") && s.path("exclusiveMinimum").isNumber())) {
            report("no-mixed-number-range-constraints", at, "Both an inclusive and an exclusive bound on one side.");
        }
        if (s.has("examples") && s.get("examples").isArray()) {
            for (int i = 0; i < s.get("examples").size(); i++) {
                lint.validator.validate(s, s.get("examples").get(i))
                        .forEach(m -> report("no-invalid-schema-examples", pointer(at, "examples"), m));
            }
        }
        if (s.has("example")) {
            lint.validator.validate(s, s.get("example"))
                    .forEach(m -> report("no-invalid-schema-examples", pointer(at, "example"), m));
        }
        chain.push(s);
        relations.put(s, relation);
        s.fields().forEachRemaining(e -> {
            String key = e.getKey();
            String child = pointer(at, key);
            if (SINGLE_SUBSCHEMAS.contains(key)) {
                schema(e.getValue(), child, chain, key);
            } else if (MAP_SUBSCHEMAS.contains(key)) {
                e.getValue().fields().forEachRemaining(p ->
                        schema(p.getValue(), pointer(child, p.getKey()), chain, key));
            } else if (COMPOSITIONS.contains(key) || key.equals("prefixItems")) {
                for (int i = 0; i < e.getValue().size(); i++) {
                    schema(e.getValue().get(i), child + "/" + i, chain, key);
                }
            }
        });
        chain.pop();
        relations.remove(s);
    }

    /** How each schema on the current chain hangs from its parent (null for a root). */
    private final Map<JsonNode, String> relations = new IdentityHashMap<>();

    private void requiredDefined(JsonNode s, String at, Deque<JsonNode> chain, String relation) {
        JsonNode required = s.get("required");
        if (required == null || !required.isArray() || required.isEmpty()) {
            return;
        }
        // The outermost schema this one is composed into without a break (allOf/anyOf/oneOf all the way up).
        JsonNode composedInto = null;
        String link = relation;
        for (JsonNode parent : chain) {
            if (link == null || !COMPOSITIONS.contains(link)) {
                break;
            }
            composedInto = parent;
            link = relations.get(parent);
        }
        for (int i = 0; i < required.size(); i++) {
            String name = required.get(i).asText();
            if (!defines(s, name, new HashSet<>())
                    && (composedInto == null || !defines(composedInto, name, new HashSet<>()))) {
                report("no-required-schema-properties-undefined", at + "/required/" + i,
                        "Required property '" + name + "' is not defined.");
            }
        }
    }

    private boolean defines(JsonNode schema, String name, Set<JsonNode> seen) {
        JsonNode s = lint.resolveSchema(schema);
        if (s == null || !s.isObject() || !seen.add(s)) {
            return false;
        }
        if (s.path("properties").has(name)) {
            return true;
        }
        for (JsonNode member : s.path("allOf")) {
            if (defines(member, name, seen)) {
                return true;
            }
        }
        for (String keyword : List.of("anyOf", "oneOf")) {
            JsonNode members = s.path(keyword);
            if (!members.isEmpty()) {
                boolean all = true;
                for (JsonNode member : members) {
                    all &= defines(member, name, new HashSet<>(seen));
                }
                if (all) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isOfType(JsonNode v, String type) {
        return switch (type) {
            case "null" -> v.isNull();
            case "boolean" -> v.isBoolean();
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber() || (v.isNumber() && v.asDouble() == Math.rint(v.asDouble()));
            case "number" -> v.isNumber();
            case "array" -> v.isArray();
            case "object" -> v.isObject();
            default -> false;
        };
    }
}
