package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document passes the rules of Redocly's {@code recommended} ruleset (listed on
 * {@link OpenApiLint}), so that a user's linter or generator finds nothing to complain about but the
 * one warning below; and the rules themselves find what they should, on a small document made to
 * break each of them.
 */
class OpenApiLintTest {

    /**
     * The two sign-in routes a browser navigates through answer only redirects (or a page), never a
     * 2XX: Redocly's {@code operation-2xx-response} (a warning in {@code recommended}) flags them.
     */
    private static final Set<String> REDIRECTS_ONLY = Set.of(
            "operation-2xx-response at /paths/~1auth~1login/get: Operation must have at least one `2XX` response.",
            "operation-2xx-response at /paths/~1auth~1callback/get: Operation must have at least one `2XX` response.");

    @Test
    void theDocumentBreaksNoRecommendedRule() throws Exception {
        assertThat(OpenApiLint.check(OpenApiContract.load().document()).stream().map(Object::toString))
                .containsExactlyInAnyOrderElementsOf(REDIRECTS_ONLY);
    }

    private static final String CLEAN = """
            {"openapi": "3.1.0",
             "info": {"title": "t", "version": "1", "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"}},
             "servers": [{"url": "/"}],
             "tags": [{"name": "a", "description": "things"}],
             "paths": {
               "/things/{id}": {"get": {"operationId": "getThing", "summary": "One thing", "tags": ["a"],
                 "security": [{"key": ["read"]}],
                 "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"},
                                 "example": "x1"}],
                 "responses": {
                   "200": {"description": "the thing", "content": {"application/json": {
                     "schema": {"$ref": "#/components/schemas/Thing"}, "example": {"id": "x1"}}}},
                   "404": {"$ref": "#/components/responses/NotFound"}}}}},
             "components": {
               "securitySchemes": {"key": {"type": "http", "scheme": "bearer"}},
               "responses": {"NotFound": {"description": "no such thing"}},
               "schemas": {
                 "Thing": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"},
                   "kind": {"type": "string", "enum": ["a", "b"]}},
                   "oneOf": [{"required": ["id"]}, {"required": ["kind"]}],
                   "allOf": [{"required": ["id"]}]}}}}
            """;

    @Test
    void aCleanDocumentHasNoFinding() throws Exception {
        assertThat(OpenApiLint.check(OpenApiContract.MAPPER.readTree(CLEAN))).isEmpty();
    }

    @Test
    void everyRuleFindsItsBreach() throws Exception {
        String broken = """
                {"openapi": "3.1.0",
                 "info": {"title": "t", "version": "1", "license": {"name": "MIT"},
                          "description": "<a href=\\"javascript:alert(1)\\">x</a>"},
                 "servers": [{"url": "https://example.com/api/{v}/"}],
                 "tags": [{"name": "a"}, {"name": "a", "description": "again"}],
                 "paths": {
                   "/things/": {"get": {"summary": "", "tags": ["b"],
                     "responses": {"200": {"description": "ok"}}}},
                   "/things/{id}": {"get": {"operationId": "same", "summary": "s", "tags": ["a"], "security": [],
                     "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"},
                                     "example": "not a number"},
                                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                                    {"name": "q", "in": "query", "schema": {"type": "string"}}],
                     "responses": {"404": {"$ref": "#/components/responses/Missing", "headers": {}}}}},
                   "/things/{name}": {"get": {"operationId": "same", "summary": "s", "tags": ["a"], "security": [],
                     "responses": {"200": {"description": "ok"}, "400": {"description": "bad"}}}},
                   "/{kind}/list": {"get": {"operationId": "bad id", "summary": "s", "tags": ["a"],
                     "security": [{"nokey": []}],
                     "parameters": [{"name": "kind", "in": "path", "required": true, "schema": {"type": "string"}}],
                     "responses": {"200": {"description": "ok", "content": {"application/json": {
                       "schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                       "examples": {"one": {"value": {"n": "x"}, "externalValue": "https://x"}}}}},
                       "400": {"description": "bad"}}}},
                   "/things/list?all": {}},
                 "components": {
                   "securitySchemes": {"unused": {"type": "http", "scheme": "bearer"}},
                   "schemas": {
                     "Unused": {"type": "string", "properties": {"x": {}}, "enum": ["a", "a", 1],
                       "minimum": 0, "exclusiveMinimum": 0, "examples": [5]},
                     "Conditional": {"type": "object", "properties": {"a": {}},
                       "if": {"required": ["a"]}, "then": {"required": ["b"]}},
                     "bad name": {"type": "object"}}}}
                """;
        Set<String> rules = new TreeSet<>();
        OpenApiLint.check(OpenApiContract.MAPPER.readTree(broken)).forEach(f -> rules.add(f.rule()));
        assertThat(rules).containsExactlyInAnyOrder(
                "info-license-strict", "no-unsafe-markdown",
                "no-server-trailing-slash", "no-server-example.com", "no-undefined-server-variable",
                "tag-description", "no-duplicated-tag-names", "operation-tag-defined",
                "no-path-trailing-slash", "path-not-include-query", "no-identical-paths", "no-ambiguous-paths",
                "path-parameters-defined", "operation-parameters-unique",
                "operation-operationId", "operation-operationId-unique", "operation-operationId-url-safe",
                "operation-summary", "operation-2xx-response", "operation-4xx-response",
                "security-defined", "no-unresolved-refs", "spec-ref-siblings", "no-unused-components",
                "spec-components-invalid-map-name",
                "no-required-schema-properties-undefined", "no-schema-type-mismatch", "no-enum-type-mismatch",
                "no-duplicated-enum-values", "no-mixed-number-range-constraints", "no-invalid-schema-examples",
                "no-invalid-parameter-examples", "no-invalid-media-type-examples",
                "no-example-value-and-externalValue");
    }

    @Test
    void aMissingLicenceAndEmptyServersAreFound() throws Exception {
        JsonNode doc = OpenApiContract.MAPPER.readTree(CLEAN.replace(
                ", \"license\": {\"name\": \"Apache-2.0\", \"identifier\": \"Apache-2.0\"}", "")
                .replace("[{\"url\": \"/\"}]", "[]"));
        Set<String> rules = new TreeSet<>();
        OpenApiLint.check(doc).forEach(f -> rules.add(f.rule()));
        assertThat(rules).containsExactly("info-license", "no-empty-servers");
    }
}
