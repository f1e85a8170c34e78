package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rules of Redocly CLI's {@code recommended} ruleset for OpenAPI 3.1 that apply to a single-file
 * document, checked in Java so that the build needs neither Node nor the network. Each finding names
 * its Redocly rule; a document this finds clean is also clean for {@code redocly lint} (the two are
 * compared by hand when a rule is added here). Rules:
 *
 * <ul>
 *   <li>{@code info-license}, {@code info-license-strict}: {@code info.license} with a url or an SPDX
 *       identifier.</li>
 *   <li>{@code no-empty-servers}, {@code no-server-trailing-slash}, {@code no-server-example.com},
 *       {@code no-undefined-server-variable}, {@code no-server-variables-empty-enum}.</li>
 *   <li>{@code tag-description}, {@code no-duplicated-tag-names}, and (not in {@code recommended}, but
 *       generated clients group by tag) {@code operation-tag-defined}.</li>
 *   <li>{@code no-path-trailing-slash}, {@code path-declaration-must-exist}, {@code path-not-include-query},
 *       {@code no-identical-paths}, {@code no-ambiguous-paths}, {@code path-parameters-defined},
 *       {@code operation-parameters-unique}.</li>
 *   <li>{@code operation-operationId}, {@code operation-operationId-unique},
 *       {@code operation-operationId-url-safe}, {@code operation-summary}, {@code operation-2xx-response},
 *       {@code operation-4xx-response}.</li>
 *   <li>{@code security-defined}, {@code security-scopes-defined} (OAuth 2 flows), and unused security
 *       schemes (part of {@code no-unused-components}).</li>
 *   <li>{@code no-unresolved-refs}, {@code spec-ref-siblings} (outside schemas only {@code description}
 *       and {@code summary} beside a {@code $ref}), {@code no-unused-components},
 *       {@code spec-components-invalid-map-name}.</li>
 *   <li>In every schema: {@code no-required-schema-properties-undefined} (a required name is a
 *       property of the schema, or of the schema whose {@code allOf}/{@code anyOf}/{@code oneOf} it is
 *       part of; {@code if}/{@code then}/{@code else}/{@code not} do not count),
 *       {@code no-schema-type-mismatch}, {@code no-enum-type-mismatch}, {@code no-duplicated-enum-values},
 *       {@code no-mixed-number-range-constraints}, {@code no-invalid-schema-examples}.</li>
 *   <li>{@code no-invalid-media-type-examples}, {@code no-invalid-parameter-examples},
 *       {@code no-example-value-and-externalValue}, {@code no-unsafe-markdown} (no script tag, event
 *       handler attribute or {@code javascript:} link in a description).</li>
 * </ul>
 *
 * <p>The schema rules are {@link OpenApiSchemaLint}'s. Not mirrored: {@code struct} (the full OpenAPI
 * meta-schema; OpenApiDocumentTest checks the structure the tests rely on) and
 * {@code no-illogical-composition-keywords}. By hand, with Node:
 * {@code npx @redocly/cli lint src/main/resources/io/trailproof/http/openapi.json} (no configuration:
 * the recommended rules) reports nothing either.
 */
final class OpenApiLint {

    /** One broken rule: Redocly's rule name, the JSON pointer where, and what is wrong. */
    record Finding(String rule, String at, String message) {
        @Override
        public String toString() {
            return rule + " at " + at + ": " + message;
        }
    }

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final Set<String> REFERABLE = Set.of("schemas", "responses", "parameters", "examples",
            "requestBodies", "headers");
    private static final Pattern URL_SAFE = Pattern.compile("^[A-Za-z0-9-._~:/?#\\[\\]@!$&'()*+,;=]*$");
    private static final Pattern COMPONENT_NAME = Pattern.compile("^[a-zA-Z0-9.\\-_]+$");
    private static final Pattern TEMPLATE = Pattern.compile("\\{([^}]*)}");
    private static final Pattern EXAMPLE_SERVER = Pattern.compile("^(.*[/.])?(example\\.com|localhost)([/:?].*|$)");

    private final JsonNode doc;
    final OpenApiContract validator;
    private final List<Finding> findings = new ArrayList<>();
    private final OpenApiSchemaLint schemas;

    private OpenApiLint(JsonNode doc) {
        this.doc = doc;
        this.validator = new OpenApiContract(doc);
        this.schemas = new OpenApiSchemaLint(this);
    }

    /** Every finding of every rule above; empty for a clean document. */
    static List<Finding> check(JsonNode doc) {
        OpenApiLint lint = new OpenApiLint(doc);
        lint.info();
        lint.servers();
        lint.tags();
        lint.paths();
        lint.security();
        lint.references();
        lint.components();
        lint.walk(doc, "");
        return lint.findings;
    }

    void report(String rule, String at, String message) {
        findings.add(new Finding(rule, at.isEmpty() ? "/" : at, message));
    }

    static String pointer(String at, String key) {
        return at + "/" + key.replace("~", "~0").replace("/", "~1");
    }

    private JsonNode resolve(JsonNode node) {
        Set<String> seen = new HashSet<>();
        while (node != null && node.isObject() && node.has("$ref") && seen.add(node.get("$ref").asText())) {
            String ref = node.get("$ref").asText();
            node = ref.startsWith("#") ? doc.at(ref.substring(1)) : null;
            if (node != null && node.isMissingNode()) {
                return null;
            }
        }
        return node;
    }

    // ------------------------------------------------------------------ root

    private void info() {
        JsonNode license = doc.path("info").path("license");
        if (!license.isObject()) {
            report("info-license", "/info", "Info object should contain `license` field.");
        } else if (!license.hasNonNull("url") && !license.hasNonNull("identifier")) {
            report("info-license-strict", "/info/license", "License object should contain `url` or `identifier`.");
        }
    }

    private void servers() {
        JsonNode servers = doc.path("servers");
        if (!servers.isArray() || servers.isEmpty()) {
            report("no-empty-servers", "/servers", "Servers must be present and not empty.");
            return;
        }
        for (int i = 0; i < servers.size(); i++) {
            String at = "/servers/" + i;
            String url = servers.get(i).path("url").asText();
            if (url.endsWith("/") && !url.equals("/")) {
                report("no-server-trailing-slash", at, "Server `url` should not have a trailing slash.");
            }
            if (EXAMPLE_SERVER.matcher(url).matches()) {
                report("no-server-example.com", at, "Server `url` should not point to example.com or localhost.");
            }
            JsonNode variables = servers.get(i).path("variables");
            Set<String> used = new HashSet<>();
            Matcher m = TEMPLATE.matcher(url);
            while (m.find()) {
                used.add(m.group(1));
                if (!variables.has(m.group(1))) {
                    report("no-undefined-server-variable", at, "The `" + m.group(1) + "` variable is not defined.");
                }
            }
            variables.fields().forEachRemaining(v -> {
                if (!used.contains(v.getKey())) {
                    report("no-undefined-server-variable", at, "The `" + v.getKey() + "` variable is not used in the url.");
                }
                if (v.getValue().has("enum") && v.getValue().get("enum").isEmpty()) {
                    report("no-server-variables-empty-enum", at, "Server variable `" + v.getKey() + "` has an empty enum.");
                }
            });
        }
    }

    private void tags() {
        Set<String> names = new HashSet<>();
        JsonNode tags = doc.path("tags");
        for (int i = 0; i < tags.size(); i++) {
            String name = tags.get(i).path("name").asText();
            if (!names.add(name)) {
                report("no-duplicated-tag-names", "/tags/" + i, "Duplicate tag name `" + name + "`.");
            }
            if (tags.get(i).path("description").asText().isBlank()) {
                report("tag-description", "/tags/" + i, "Tag object should contain `description` field.");
            }
        }
    }

    // ------------------------------------------------------------------ paths and operations

    private void paths() {
        Map<String, String> normalised = new HashMap<>();
        List<String> seen = new ArrayList<>();
        Set<String> operationIds = new HashSet<>();
        Set<String> tagNames = new HashSet<>();
        doc.path("tags").forEach(t -> tagNames.add(t.path("name").asText()));
        doc.path("paths").fields().forEachRemaining(p -> {
            String path = p.getKey();
            String at = pointer("/paths", path);
            if (path.endsWith("/") && !path.equals("/")) {
                report("no-path-trailing-slash", at, "`" + path + "` should not have a trailing slash.");
            }
            if (path.contains("{}")) {
                report("path-declaration-must-exist", at, "Path parameter declarations must be non-empty.");
            }
            if (path.contains("?")) {
                report("path-not-include-query", at, "Don't put query string items in the path.");
            }
            String other = normalised.putIfAbsent(TEMPLATE.matcher(path).replaceAll("{}"), path);
            if (other != null) {
                report("no-identical-paths", at, "Differs only by parameter names from `" + other + "`.");
            }
            for (String earlier : seen) {
                if (ambiguous(earlier, path)) {
                    report("no-ambiguous-paths", at, "`" + earlier + "` and `" + path + "` are ambiguous.");
                }
            }
            seen.add(path);
            JsonNode item = p.getValue();
            unique(item.path("parameters"), pointer(at, "parameters"));
            item.fields().forEachRemaining(m -> {
                if (METHODS.contains(m.getKey())) {
                    operation(path, pointer(at, m.getKey()), item, m.getValue(), operationIds, tagNames);
                }
            });
        });
    }

    /** Redocly's test: as many segments and variables, and every segment pair equal or one of them a variable. */
    private static boolean ambiguous(String a, String b) {
        String[] x = a.split("/", -1);
        String[] y = b.split("/", -1);
        if (x.length != y.length || variables(x) != variables(y)) {
            return false;
        }
        for (int i = 0; i < x.length; i++) {
            if (!isVariable(x[i]) && !isVariable(y[i]) && !x[i].equals(y[i])) {
                return false;
            }
        }
        return true;
    }

    private static boolean isVariable(String segment) {
        return segment.matches("^\\{.+?}$");
    }

    private static long variables(String[] segments) {
        return Arrays.stream(segments).filter(OpenApiLint::isVariable).count();
    }

    private void operation(String path, String at, JsonNode item, JsonNode op, Set<String> ids, Set<String> tagNames) {
        String id = op.path("operationId").asText();
        if (id.isEmpty()) {
            report("operation-operationId", at, "Operation object should contain `operationId` field.");
        } else {
            if (!ids.add(id)) {
                report("operation-operationId-unique", at, "Every operation must have a unique `operationId`.");
            }
            if (!URL_SAFE.matcher(id).matches()) {
                report("operation-operationId-url-safe", at, "Operation `operationId` should not have URL invalid characters.");
            }
        }
        if (op.path("summary").asText().isBlank()) {
            report("operation-summary", at, "Operation object should contain `summary` field.");
        }
        Set<String> codes = new HashSet<>();
        op.path("responses").fieldNames().forEachRemaining(codes::add);
        if (codes.stream().noneMatch(c -> c.matches("2[0-9Xx]{2}") || c.equals("default"))) {
            report("operation-2xx-response", at, "Operation must have at least one `2XX` response.");
        }
        if (codes.stream().noneMatch(c -> c.matches("4[0-9Xx]{2}"))) {
            report("operation-4xx-response", at, "Operation must have at least one `4XX` response.");
        }
        if (!op.has("tags") || op.get("tags").isEmpty()) {
            report("operation-tag-defined", at, "Operation tags should be defined.");
        }
        op.path("tags").forEach(t -> {
            if (!tagNames.contains(t.asText())) {
                report("operation-tag-defined", at, "Operation tag `" + t.asText() + "` is not defined in global tags.");
            }
        });
        unique(op.path("parameters"), pointer(at, "parameters"));
        Set<String> inTemplate = new LinkedHashSet<>();
        Matcher m = TEMPLATE.matcher(path);
        while (m.find()) {
            inTemplate.add(m.group(1));
        }
        Set<String> declared = new LinkedHashSet<>();
        for (JsonNode list : List.of(item.path("parameters"), op.path("parameters"))) {
            list.forEach(p -> {
                JsonNode param = resolve(p);
                if (param != null && param.path("in").asText().equals("path")) {
                    declared.add(param.path("name").asText());
                }
            });
        }
        for (String name : inTemplate) {
            if (!declared.contains(name)) {
                report("path-parameters-defined", at, "The path parameter `" + name + "` is not defined.");
            }
        }
        for (String name : declared) {
            if (!inTemplate.contains(name)) {
                report("path-parameters-defined", at, "Path parameter `" + name + "` is not used in the path " + path + ".");
            }
        }
        if (!op.has("security") && !doc.has("security")) {
            report("security-defined", at, "Every operation should have security defined on it or on the root.");
        }
    }

    private void unique(JsonNode parameters, String at) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < parameters.size(); i++) {
            JsonNode p = resolve(parameters.get(i));
            if (p != null && !seen.add(p.path("in").asText() + ":" + p.path("name").asText())) {
                report("operation-parameters-unique", at + "/" + i, "Parameter `" + p.path("name").asText()
                        + "` in " + p.path("in").asText() + " is declared twice.");
            }
        }
    }

    // ------------------------------------------------------------------ security

    private void security() {
        JsonNode schemes = doc.path("components").path("securitySchemes");
        Set<String> used = new HashSet<>();
        List<Map.Entry<String, JsonNode>> requirements = new ArrayList<>();
        if (doc.has("security")) {
            requirements.add(Map.entry("/security", doc.get("security")));
        }
        doc.path("paths").fields().forEachRemaining(p -> p.getValue().fields().forEachRemaining(m -> {
            if (METHODS.contains(m.getKey()) && m.getValue().has("security")) {
                requirements.add(Map.entry(pointer(pointer("/paths", p.getKey()), m.getKey()) + "/security",
                        m.getValue().get("security")));
            }
        }));
        for (Map.Entry<String, JsonNode> r : requirements) {
            r.getValue().forEach(requirement -> requirement.fields().forEachRemaining(e -> {
                used.add(e.getKey());
                JsonNode scheme = schemes.get(e.getKey());
                if (scheme == null) {
                    report("security-defined", r.getKey(), "Security scheme `" + e.getKey() + "` is not defined.");
                } else if (scheme.path("type").asText().equals("oauth2")) {
                    for (JsonNode scope : e.getValue()) {
                        boolean defined = false;
                        for (JsonNode flow : scheme.path("flows")) {
                            defined |= flow.path("scopes").has(scope.asText());
                        }
                        if (!defined) {
                            report("security-scopes-defined", r.getKey(), "Scope `" + scope.asText()
                                    + "` is not defined in `" + e.getKey() + "`.");
                        }
                    }
                }
            }));
        }
        schemes.fieldNames().forEachRemaining(name -> {
            if (!used.contains(name)) {
                report("no-unused-components", pointer("/components/securitySchemes", name),
                        "Security scheme: \"" + name + "\" is never used.");
            }
        });
    }

    // ------------------------------------------------------------------ references and components

    private void references() {
        new OpenApiContract(doc).references().forEach((at, ref) -> {
            if (!ref.startsWith("#/") || doc.at(ref.substring(1)).isMissingNode()) {
                report("no-unresolved-refs", at, "Can't resolve $ref " + ref + ".");
            }
        });
    }

    private void components() {
        Set<String> targets = new HashSet<>();
        new OpenApiContract(doc).references().forEach((at, ref) -> {
            // a component that refers to itself does not make itself used
            if (!(at + "/").startsWith(ref.substring(1) + "/")) {
                targets.add(ref.substring(1));
            }
        });
        doc.path("components").fields().forEachRemaining(kind -> kind.getValue().fieldNames().forEachRemaining(name -> {
            String at = pointer(pointer("/components", kind.getKey()), name);
            if (!COMPONENT_NAME.matcher(name).matches()) {
                report("spec-components-invalid-map-name", at, "The map key `" + name + "` is not a valid component name.");
            }
            if (REFERABLE.contains(kind.getKey()) && !targets.contains(at)) {
                report("no-unused-components", at, "Component: \"" + name + "\" is never used.");
            }
        }));
    }

    // ------------------------------------------------------------------ the walk: descriptions, examples, schemas

    /** Walks the document outside schemas; every schema found starts a schema walk. */
    private void walk(JsonNode node, String at) {
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), at + "/" + i);
            }
            return;
        }
        if (!node.isObject()) {
            return;
        }
        if (at.equals("/components/schemas")) {
            node.fields().forEachRemaining(e -> schemas.check(e.getValue(), pointer(at, e.getKey())));
            return;
        }
        if (at.equals("/components/examples")) {
            exampleObjects(node, at);
            return;
        }
        markdown(node, at);
        if (node.has("$ref")) {
            node.fieldNames().forEachRemaining(k -> {
                if (!k.equals("$ref") && !k.equals("description") && !k.equals("summary")) {
                    report("spec-ref-siblings", pointer(at, k), "`" + k + "` is not expected beside `$ref`.");
                }
            });
            return;
        }
        if (node.has("schema") && (node.has("example") || node.has("examples"))) {
            examples(node, at, resolveSchema(node.get("schema")),
                    node.has("in") ? "no-invalid-parameter-examples" : "no-invalid-media-type-examples");
        }
        node.fields().forEachRemaining(e -> {
            String key = e.getKey();
            if (key.equals("schema")) {
                schemas.check(e.getValue(), pointer(at, key));
            } else if (key.equals("examples") && e.getValue().isObject()) {
                exampleObjects(e.getValue(), pointer(at, key));
            } else if (!key.startsWith("x-") && !key.equals("example")) {
                walk(e.getValue(), pointer(at, key));
            }
        });
    }

    /** A map of Example objects: their values are data, so they are checked here and not walked. */
    private void exampleObjects(JsonNode map, String at) {
        map.fields().forEachRemaining(e -> {
            if (e.getValue().has("value") && e.getValue().has("externalValue")) {
                report("no-example-value-and-externalValue", pointer(at, e.getKey()),
                        "Example object can have either `value` or `externalValue`.");
            }
        });
    }

    JsonNode resolveSchema(JsonNode schema) {
        JsonNode resolved = resolve(schema);
        return resolved == null ? schema : resolved;
    }

    private void examples(JsonNode holder, String at, JsonNode schema, String rule) {
        if (holder.has("example")) {
            validator.validate(schema, holder.get("example"))
                    .forEach(m -> report(rule, pointer(at, "example"), m));
        }
        holder.path("examples").fields().forEachRemaining(e -> {
            JsonNode example = resolve(e.getValue());
            if (example != null && example.has("value")) {
                validator.validate(schema, example.get("value"))
                        .forEach(m -> report(rule, pointer(pointer(at, "examples"), e.getKey()), m));
            }
        });
    }

    void markdown(JsonNode node, String at) {
        JsonNode description = node.get("description");
        if (description != null && description.isTextual()) {
            String text = description.asText();
            if (Pattern.compile("<script\\b", Pattern.CASE_INSENSITIVE).matcher(text).find()
                    || Pattern.compile("<[a-z][^>]*\\bon[a-z]+\\s*=", Pattern.CASE_INSENSITIVE).matcher(text).find()
                    || Pattern.compile("(?:]\\(\\s*|\\b(?:href|src)\\s*=\\s*[\"']?\\s*)javascript:",
                            Pattern.CASE_INSENSITIVE).matcher(text).find()) {
                report("no-unsafe-markdown", pointer(at, "description"), "Unsafe markup in a description.");
            }
        }
    }
}
