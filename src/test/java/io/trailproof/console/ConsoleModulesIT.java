package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Browser;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's JavaScript modules run in the real browser on their own, without the page's views:
 * the RFC 8785 form and event hash against the shared vectors, the RFC 9162 inclusion check against
 * real and spoilt proofs, and the small modules' contracts. One server and one browser for the class.
 */
class ConsoleModulesIT {

    @TempDir
    static Path dir;

    private static InProcessServer server;
    private static Api api;
    private static Browser browser;
    private static String ui;

    /** Twelve events of two agents, so that proofs have several levels. */
    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        api = server.api();
        ui = api.base() + "/ui/";
        for (int i = 0; i < 12; i++) {
            assertThat(api.post("/v1/events", "{\"agent_id\":\"" + (i % 2 == 0 ? "alice-agent" : "bob-agent")
                    + "\",\"action_name\":\"step " + i + "\"}").status()).isEqualTo(201);
        }
        browser = Browser.start(Files.createDirectories(dir.resolve("downloads")));
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        server.close();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void theCanonicalFormAndHashOfTheSharedVectorsAreComputedInTheBrowser() throws Exception {
        JsonNode vectors;
        try (var in = ConsoleModulesIT.class.getResourceAsStream("/vectors/event-hashes.json")) {
            vectors = Api.JSON.readTree(in).get("vectors");
        }
        browser.open(ui);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) browser.asyncScript("""
                const done = arguments[arguments.length - 1];
                Promise.all([import('/ui/js/canonical-json.js'), import('/ui/js/verify.js')]).then(async ([jcs, v]) => {
                  const out = [];
                  for (const vector of JSON.parse(arguments[0])) {
                    const parsed = JSON.parse(vector.input_json);
                    out.push({description: vector.description, canonical: jcs.canonicalize(parsed),
                              sha256: await v.eventHash(parsed)});
                  }
                  done(out);
                }).catch((e) => done([{error: String(e)}]));
                """, vectors.toString());
        assertThat(results).hasSize(vectors.size());
        for (int i = 0; i < vectors.size(); i++) {
            JsonNode v = vectors.get(i);
            assertThat(results.get(i).get("canonical")).as(v.get("description").asText()).isEqualTo(v.get("canonical").asText());
            assertThat(results.get(i).get("sha256")).as(v.get("description").asText()).isEqualTo(v.get("sha256").asText());
        }
    }

    /**
     * The small modules' contracts, checked in the page itself: address round trips and bad
     * addresses, query composition and escaping, SSE parsing across chunks, highlight fragments,
     * time parsing, histogram buckets and RFC 8785 edge cases. Returns the failures; none expected.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theConsoleModulesKeepTheirContracts() throws Exception {
        browser.open(ui);
        String script;
        try (var in = ConsoleModulesIT.class.getResourceAsStream("/console/module-contracts.js")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Object> failures = (List<Object>) browser.asyncScript(script);
        assertThat(failures).isEmpty();
    }

    @Test
    @SuppressWarnings("unchecked")
    void theInclusionCheckInTheBrowserRejectsAWrongProof() throws Exception {
        JsonNode event = api.get("/v1/search?limit=1&q=" + encode("agent_id:bob-agent AND sequence:3")).json().get("results")
                .get(0);
        JsonNode stored = api.get("/v1/events/" + event.get("id").asText()).json();
        JsonNode root = api.get("/v1/merkle/root").json();
        JsonNode proof = api.get("/v1/merkle/proof?event_id=" + event.get("id").asText() + "&tree_size="
                + root.get("tree_size").asLong()).json();
        browser.open(ui);
        String script = """
                const done = arguments[arguments.length - 1];
                import('/ui/js/verify.js').then(async (v) => {
                  const [event, root, proof] = [JSON.parse(arguments[0]), JSON.parse(arguments[1]), JSON.parse(arguments[2])];
                  const good = await v.verifyEvent(event, root, proof);
                  const flipped = {...proof, siblings: [...proof.siblings]};
                  flipped.siblings[0] = (flipped.siblings[0][0] === '0' ? '1' : '0') + flipped.siblings[0].slice(1);
                  const badSibling = await v.verifyEvent(event, root, flipped);
                  const otherRoot = await v.verifyEvent(event, {...root, root: '0'.repeat(64)}, proof);
                  const shortProof = await v.verifyEvent(event, root, {...proof, siblings: proof.siblings.slice(1)});
                  done([good.ok, badSibling.ok, otherRoot.ok, shortProof.ok,
                        badSibling.checks.find((c) => !c.ok).detail, shortProof.checks.find((c) => !c.ok).detail]);
                }).catch((e) => done([String(e)]));
                """;
        List<Object> r = (List<Object>) browser.asyncScript(script, stored.toString(), root.toString(), proof.toString());
        assertThat(r.subList(0, 4)).containsExactly((Object) true, false, false, false);
        assertThat((String) r.get(4)).startsWith("the proof leads to root");
        assertThat((String) r.get(5)).isEqualTo("the proof is shorter than the tree is deep");
    }
}
