package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.trailproof.testing.AnswerRecorder.Answer;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The OpenAPI document as the tests read it: finds the operation of a request, and says what in a
 * real answer disagrees with the document (operation, status, content type, required headers,
 * body against the JSON Schema 2020-12 of the response). Public for tests of other packages that
 * check answers OpenApiContractIT cannot drive (ClusterIT: cluster mode).
 */
public final class OpenApiContract {

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** A documented operation: its path template and method, e.g. {@code GET /v1/events/{id}}. */
    record Operation(String template, String method, JsonNode node) {
        String key() {
            return method.toUpperCase(Locale.ROOT) + " " + template;
        }
    }

    private record Template(String template, Pattern pattern, int literalChars) {
    }

    private final JsonNode document;
    private final List<Template> templates = new ArrayList<>();
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

    OpenApiContract(JsonNode document) {
        this.document = document;
        for (Iterator<Map.Entry<String, JsonNode>> it = document.get("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            templates.add(template(e.getKey(), e.getValue()));
        }
    }

    /** The document packaged with the server, the very bytes {@code GET /v1/openapi.json} serves. */
    public static OpenApiContract load() throws IOException {
        try (InputStream in = OpenApiEndpoint.class.getResourceAsStream(OpenApiEndpoint.RESOURCE)) {
            return new OpenApiContract(MAPPER.readTree(in));
        }
    }

    public JsonNode document() {
        return document;
    }

    /** Every operation of the document. */
    List<Operation> operations() {
        List<Operation> all = new ArrayList<>();
        document.get("paths").fields().forEachRemaining(p -> p.getValue().fields().forEachRemaining(m -> {
            if (!m.getKey().startsWith("x-")) {
                all.add(new Operation(p.getKey(), m.getKey(), m.getValue()));
            }
        }));
        return all;
    }

    /**
     * The path template a concrete path belongs to, or null. Concrete paths win over templated ones
     * (OpenAPI 3.1, "Path Templating Matching"): the match with the most literal characters is taken.
     */
    String templateOf(String path) {
        Template best = null;
        for (Template t : templates) {
            if (t.pattern().matcher(path).matches() && (best == null || t.literalChars() > best.literalChars())) {
                best = t;
            }
        }
        return best == null ? null : best.template();
    }

    Operation operation(String method, String path) {
        String template = templateOf(path);
        if (template == null) {
            return null;
        }
        JsonNode op = document.get("paths").get(template).get(method.toLowerCase(Locale.ROOT));
        return op == null ? null : new Operation(template, method.toLowerCase(Locale.ROOT), op);
    }

    /**
     * Whether a path is the investigator console's ({@code /}, {@code /ui}, {@code /ui/...}): served in
     * front of the API, outside this document (ConsoleServingIT checks those answers).
     */
    static boolean isConsole(String path) {
        return path.equals("/") || path.equals("/ui") || path.startsWith("/ui/");
    }

    /** What in this answer the document does not allow; empty when it conforms or is the console's. */
    List<String> problems(Answer a) {
        List<String> problems = new ArrayList<>();
        if (isConsole(a.path())) {
            return problems;
        }
        String template = templateOf(a.path());
        if (template == null) {
            // An unknown path: the API's 404 (or 401 first, when keys are configured).
            if (a.status() != 404 && a.status() != 401 && a.status() != 503) {
                problems.add("no documented path matches " + a.path() + " (status " + a.status() + ")");
            }
            problems.addAll(bodyProblems(a, resolve(document.at("/components/responses/NotFound"))));
            return problems;
        }
        Operation op = operation(a.method(), a.path());
        if (op == null) {
            // A wrong method on a documented path: 405 with Allow (or 401 first).
            if (a.status() != 405 && a.status() != 401 && a.status() != 503) {
                problems.add(a.method() + " is not documented on " + template + " but was answered " + a.status());
            }
            if (a.status() == 405 && a.header("Allow") == null) {
                problems.add("a 405 without Allow");
            }
            problems.addAll(bodyProblems(a, resolve(document.at("/components/responses/NotFound"))));
            return problems;
        }
        JsonNode response = op.node().path("responses").get(Integer.toString(a.status()));
        if (response == null) {
            problems.add("status " + a.status() + " is not documented for " + op.key());
            return problems;
        }
        problems.addAll(bodyProblems(a, resolve(response)));
        return problems;
    }

    private List<String> bodyProblems(Answer a, JsonNode response) {
        List<String> problems = new ArrayList<>();
        String where = a + ": ";
        response.path("headers").fields().forEachRemaining(h -> {
            JsonNode header = resolve(h.getValue());
            String value = a.header(h.getKey());
            if (value == null) {
                if (header.path("required").asBoolean(false)) {
                    problems.add(where + "required header " + h.getKey() + " is missing");
                }
                return;
            }
            JsonNode schema = header.get("schema");
            if (schema != null) {
                JsonNode instance = schema.path("type").asText().equals("integer") && value.matches("-?[0-9]+")
                        ? MAPPER.getNodeFactory().numberNode(Long.parseLong(value)) : TextNode.valueOf(value);
                validate(schema, instance).forEach(m -> problems.add(where + "header " + h.getKey() + ": " + m));
            }
        });
        JsonNode content = response.get("content");
        if (content == null) {
            if (a.body() != null && !a.body().isEmpty()) {
                problems.add(where + "a body where the document has none");
            }
            return problems;
        }
        if (a.contentType() == null) {
            problems.add(where + "no Content-Type; documented: " + fieldNames(content));
            return problems;
        }
        JsonNode media = null;
        String actual = mediaType(a.contentType());
        for (Iterator<String> it = content.fieldNames(); it.hasNext(); ) {
            String declared = it.next();
            if (declared.equals("*/*") || mediaType(declared).equals(actual)) {
                media = content.get(declared);
                break;
            }
        }
        if (media == null) {
            problems.add(where + "Content-Type " + a.contentType() + " is not documented; documented: "
                    + fieldNames(content));
            return problems;
        }
        if (actual.equals("application/json") && media.has("schema")) {
            JsonNode body;
            try {
                body = MAPPER.readTree(a.body());
            } catch (IOException e) {
                problems.add(where + "the body is not JSON: " + e.getMessage());
                return problems;
            }
            validate(media.get("schema"), body).forEach(m -> problems.add(where + m));
        }
        return problems;
    }

    /** Messages of the JSON Schema 2020-12 validation of {@code instance} against a schema of the document. */
    public List<String> validate(JsonNode schema, JsonNode instance) {
        Schema compiled = schemas.computeIfAbsent(schema.toString(), s -> {
            // The schema's $refs point into the document ("#/components/schemas/..."): it is validated as
            // the root of a copy that carries the document's components.
            ObjectNode root = MAPPER.createObjectNode();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            root.putArray("allOf").add(schema);
            root.set("components", document.get("components"));
            return registry.getSchema(root);
        });
        return compiled.validate(instance).stream().map(e -> e.toString()).toList();
    }

    /** Follows a {@code $ref} into the document (components/responses, headers, parameters). */
    JsonNode resolve(JsonNode node) {
        while (node != null && node.has("$ref")) {
            String ref = node.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new IllegalArgumentException("only local references are used: " + ref);
            }
            node = document.at(ref.substring(1));
            if (node.isMissingNode()) {
                throw new IllegalArgumentException("unresolved reference " + ref);
            }
        }
        return node;
    }

    private static Template template(String template, JsonNode pathItem) {
        String multi = null;
        for (Iterator<JsonNode> it = pathItem.elements(); it.hasNext(); ) {
            JsonNode op = it.next();
            if (op.has("x-trailproof-multi-segment")) {
                multi = op.get("x-trailproof-multi-segment").asText();
            }
        }
        StringBuilder regex = new StringBuilder();
        int literal = 0;
        Matcher m = Pattern.compile("\\{([^}]+)}").matcher(template);
        int last = 0;
        while (m.find()) {
            regex.append(Pattern.quote(template.substring(last, m.start())));
            literal += m.start() - last;
            regex.append(m.group(1).equals(multi) ? "(.+)" : "([^/]+)");
            last = m.end();
        }
        regex.append(Pattern.quote(template.substring(last)));
        literal += template.length() - last;
        return new Template(template, Pattern.compile(regex.toString()), literal);
    }

    private static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Every {@code $ref} in the document, with where it stands: to check that each resolves. */
    Map<String, String> references() {
        Map<String, String> refs = new LinkedHashMap<>();
        collect(document, "", refs);
        return refs;
    }

    private static void collect(JsonNode node, String at, Map<String, String> refs) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals("$ref") && e.getValue().isTextual()) {
                    refs.put(at + "/$ref", e.getValue().asText());
                } else {
                    collect(e.getValue(), at + "/" + e.getKey().replace("~", "~0").replace("/", "~1"), refs);
                }
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collect(node.get(i), at + "/" + i, refs);
            }
        }
    }
}
