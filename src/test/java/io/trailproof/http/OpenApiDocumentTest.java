package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.testing.AnswerRecorder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document itself: an OpenAPI 3.1 document whose references all resolve, whose schemas
 * compile as JSON Schema 2020-12, and from which a client can be generated (unique operationIds,
 * declared tags, a role and a security requirement on every operation). The validator library
 * ships no OpenAPI 3.1 meta-schema, so the structure that matters is checked here by hand.
 */
class OpenApiDocumentTest {

    private static OpenApiContract contract;
    private static JsonNode doc;

    @BeforeAll
    static void load() throws Exception {
        contract = OpenApiContract.load();
        doc = contract.document();
    }

    @Test
    void isAnOpenApi31DocumentInTheJsonSchema202012Dialect() {
        assertThat(doc.path("openapi").asText()).startsWith("3.1.");
        assertThat(doc.path("jsonSchemaDialect").asText()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
        assertThat(doc.path("info").path("title").asText()).isNotEmpty();
        assertThat(doc.path("info").path("version").asText()).isNotEmpty();
        assertThat(doc.path("paths").isObject()).isTrue();
        doc.path("paths").fieldNames().forEachRemaining(p -> assertThat(p).startsWith("/"));
    }

    @Test
    void everyReferenceResolves() {
        assertThat(contract.references()).isNotEmpty();
        List<String> unresolved = new ArrayList<>();
        contract.references().forEach((at, ref) -> {
            if (!ref.startsWith("#/") || doc.at(ref.substring(1)).isMissingNode()) {
                unresolved.add(at + " -> " + ref);
            }
        });
        assertThat(unresolved).isEmpty();
    }

    @Test
    void everySchemaCompilesAndTheErrorShapeValidates() {
        doc.at("/components/schemas").fields().forEachRemaining(e ->
                contract.validate(e.getValue(), OpenApiContract.MAPPER.createObjectNode()));
        JsonNode error = doc.at("/components/schemas/Error");
        assertThat(contract.validate(error, OpenApiContract.MAPPER.createObjectNode().put("error", "bad"))).isEmpty();
        assertThat(contract.validate(error, OpenApiContract.MAPPER.createObjectNode())).isNotEmpty();
        assertThat(contract.validate(error, OpenApiContract.MAPPER.createObjectNode().put("error", "x")
                .put("stack", "trace"))).isNotEmpty();
    }

    @Test
    void aStoredEventIsClosedAndASearchResultExtendsIt() throws Exception {
        String event = "{\"id\":\"019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00\",\"schema_version\":\"1.0\",\"agent_id\":\"a\","
                + "\"sequence\":1,\"prev_hash\":\"" + "0".repeat(64) + "\",\"recorded_at\":\"2026-11-25T10:00:00.000000Z\","
                + "\"timestamp\":\"2026-11-25T10:00:00\",\"log_index\":0,\"hash\":\"" + "a".repeat(64) + "\"}";
        JsonNode stored = OpenApiContract.MAPPER.readTree(event);
        JsonNode schema = doc.at("/components/schemas/StoredEvent");
        assertThat(contract.validate(schema, stored)).isEmpty();
        assertThat(contract.validate(schema, ((ObjectNode) stored.deepCopy())
                .put("score", 1.0))).isNotEmpty();
        assertThat(contract.validate(schema, ((ObjectNode) stored.deepCopy())
                .put("sequence", 0))).isNotEmpty();
        JsonNode result = ((ObjectNode) stored.deepCopy()).put("score", 1.5)
                .set("highlights", OpenApiContract.MAPPER.createObjectNode());
        assertThat(contract.validate(doc.at("/components/schemas/SearchResult"), result)).isEmpty();
        assertThat(contract.validate(doc.at("/components/schemas/SearchResult"), stored)).isNotEmpty();
    }

    @Test
    void eitherOrAnswersAreConditionsThatValidatorsCheckAndGeneratorsRead() throws Exception {
        JsonNode verification = doc.at("/components/schemas/ChainVerification");
        String head = ",\"head_sequence\":3,\"head_hash\":\"" + "c".repeat(64) + "\"";
        assertThat(contract.validate(verification, json("{\"valid\":true,\"agent_id\":\"a\",\"events_verified\":3"
                + head + "}"))).isEmpty();
        assertThat(contract.validate(verification, json("{\"valid\":true,\"agent_id\":\"a\",\"events_verified\":3"
                + head + ",\"error\":\"x\",\"check\":\"sequence_gap\"}"))).isNotEmpty();
        assertThat(contract.validate(verification, json("{\"valid\":false,\"agent_id\":\"a\",\"events_verified\":1,"
                + "\"error\":\"sequence gap at sequence 2\",\"sequence\":2,\"check\":\"sequence_gap\","
                + "\"expected\":\"2\",\"actual\":\"3\"}"))).isEmpty();
        assertThat(contract.validate(verification, json("{\"valid\":false,\"agent_id\":\"a\",\"events_verified\":1}")))
                .isNotEmpty();
        JsonNode item = doc.at("/components/schemas/BatchItemResult");
        assertThat(contract.validate(item, json("{\"index\":0,\"error\":\"bad\"}"))).isEmpty();
        assertThat(contract.validate(item, json("{\"index\":0}"))).isNotEmpty();
        // OpenAPI Generator refuses a $ref with sibling keywords (legal in 3.1): extensions use allOf
        List<String> mixed = new ArrayList<>();
        contract.references().keySet().forEach(at -> {
            JsonNode holder = doc.at(at.substring(0, at.length() - "/$ref".length()));
            holder.fieldNames().forEachRemaining(k -> {
                if (!k.equals("$ref") && !k.equals("description") && !k.equals("summary")) {
                    mixed.add(at + " beside " + k);
                }
            });
        });
        assertThat(mixed).isEmpty();
    }

    private static JsonNode json(String text) throws Exception {
        return OpenApiContract.MAPPER.readTree(text);
    }

    @Test
    void operationsHaveUniqueIdsTagsRolesAndSecurity() {
        Set<String> ids = new HashSet<>();
        Set<String> tags = new HashSet<>();
        doc.path("tags").forEach(t -> tags.add(t.path("name").asText()));
        Set<String> roles = Set.of("none", "ingest", "read", "approve", "admin");
        for (OpenApiContract.Operation op : contract.operations()) {
            JsonNode o = op.node();
            String id = o.path("operationId").asText();
            assertThat(id).as(op.key()).matches("[a-z][A-Za-z0-9]*");
            assertThat(ids.add(id)).as("operationId " + id + " is unique").isTrue();
            assertThat(o.path("tags")).as(op.key()).hasSize(1);
            assertThat(tags).as(op.key()).contains(o.path("tags").get(0).asText());
            assertThat(o.path("summary").asText()).as(op.key()).isNotEmpty();
            String role = o.path("x-trailproof-role").asText();
            assertThat(roles).as(op.key()).contains(role);
            assertThat(o.has("security")).as(op.key()).isTrue();
            if (role.equals("none")) {
                assertThat(o.get("security")).as(op.key()).isEmpty();
            } else {
                // the role is the scope of the bearer requirement, and a refused key is documented
                boolean named = false;
                for (JsonNode req : o.get("security")) {
                    if (req.has("apiKey")) {
                        named |= req.get("apiKey").toString().equals("[\"" + role + "\"]");
                    }
                }
                assertThat(named).as(op.key() + " names its role in security").isTrue();
                assertThat(o.path("responses").has("401")).as(op.key()).isTrue();
                assertThat(o.path("responses").has("403")).as(op.key()).isTrue();
            }
            o.path("responses").fields().forEachRemaining(r -> {
                int status = Integer.parseInt(r.getKey());
                JsonNode response = contract.resolve(r.getValue());
                assertThat(response.path("description").asText()).as(op.key() + " " + status).isNotEmpty();
                // Two exceptions: OTLP's own error shape, and the pages a person sees when sign-in fails.
                if (status >= 400 && !(op.key().equals("POST /v1/traces") && status == 400)
                        && !(op.key().equals("GET /auth/callback") && (status == 401 || status == 403))) {
                    assertThat(response.at("/content/application~1json/schema/$ref").asText())
                            .as(op.key() + " " + status + " answers {\"error\"}")
                            .isEqualTo("#/components/schemas/Error");
                }
            });
        }
        assertThat(ids).hasSizeGreaterThan(30);
    }

    @Test
    void everyPathParameterIsDeclared() {
        for (OpenApiContract.Operation op : contract.operations()) {
            Set<String> declared = new HashSet<>();
            op.node().path("parameters").forEach(p -> {
                JsonNode param = contract.resolve(p);
                if (param.path("in").asText().equals("path")) {
                    declared.add(param.path("name").asText());
                    assertThat(param.path("required").asBoolean()).as(op.key()).isTrue();
                }
            });
            Set<String> inTemplate = new HashSet<>();
            Matcher m = Pattern.compile("\\{([^}]+)}").matcher(op.template());
            while (m.find()) {
                inTemplate.add(m.group(1));
            }
            assertThat(declared).as(op.key()).isEqualTo(inTemplate);
        }
    }

    private static AnswerRecorder.Answer answer(String method, String path, int status,
                                                                      String contentType, String body,
                                                                      String... headers) {
        Map<String, List<String>> h = new TreeMap<>();
        for (int i = 0; i < headers.length; i += 2) {
            h.put(headers[i].toLowerCase(Locale.ROOT), List.of(headers[i + 1]));
        }
        return new AnswerRecorder.Answer(method, path, null, status, contentType, h, body);
    }

    /** The checker itself finds what disagrees: otherwise a green OpenApiContractIT would prove nothing. */
    @Test
    void theCheckerFindsAnswersThatDisagree() {
        String stats = "{\"total_events\":1,\"events_last_24h\":1,\"active_agents\":1,\"chain_health\":1.0,"
                + "\"total_agents\":1,\"tree_size\":1,\"merkle_root\":\"" + "b".repeat(64) + "\"}";
        assertThat(contract.problems(answer("GET", "/v1/stats", 200, "application/json", stats))).isEmpty();
        assertThat(contract.problems(answer("GET", "/v1/stats", 200, "application/json",
                stats.replace("}", ",\"extra\":1}")))).isNotEmpty();
        assertThat(contract.problems(answer("GET", "/v1/stats", 200, "text/plain", stats))).isNotEmpty();
        assertThat(contract.problems(answer("GET", "/v1/stats", 418, "application/json", "{\"error\":\"x\"}")))
                .isNotEmpty();
        assertThat(contract.problems(answer("GET", "/v1/stats", 503, "application/json", "{\"error\":\"x\"}",
                "Retry-After", "soon"))).isNotEmpty();
        assertThat(contract.problems(answer("GET", "/v1/stats", 401, "application/json", "{\"error\":\"x\"}")))
                .as("401 without WWW-Authenticate").isNotEmpty();
        assertThat(contract.problems(answer("GET", "/v1/nothing", 404, "application/json", "{\"error\":\"x\"}")))
                .isEmpty();
        assertThat(contract.problems(answer("GET", "/v1/nothing", 200, "application/json", "{}"))).isNotEmpty();
        assertThat(contract.problems(answer("DELETE", "/v1/stats", 405, "application/json", "{\"error\":\"x\"}")))
                .as("405 without Allow").isNotEmpty();
        assertThat(contract.problems(answer("DELETE", "/v1/stats", 405, "application/json", "{\"error\":\"x\"}",
                "Allow", "GET"))).isEmpty();
    }

    @Test
    void concretePathsFindTheirTemplates() {
        assertThat(contract.templateOf("/v1/events")).isEqualTo("/v1/events");
        assertThat(contract.templateOf("/v1/events/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00")).isEqualTo("/v1/events/{id}");
        assertThat(contract.templateOf("/tile/entries/x001/234.p/7")).isEqualTo("/tile/entries/{N}.p/{W}");
        assertThat(contract.templateOf("/tile/0/x001/234")).isEqualTo("/tile/{L}/{N}");
        assertThat(contract.templateOf("/tile/entries/000")).isEqualTo("/tile/entries/{N}");
        assertThat(contract.templateOf("/v1/nothing")).isNull();
        // the console is served beside the API, not described by it
        assertThat(contract.templateOf("/ui/js/app.js")).isNull();
        assertThat(contract.templateOf("/ui/")).isNull();
        assertThat(contract.problems(answer("GET", "/ui/", 200, "text/html; charset=utf-8", "<html>"))).isEmpty();
    }
}
