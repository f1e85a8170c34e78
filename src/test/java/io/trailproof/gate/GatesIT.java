package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gates and approvals against the packaged server (src/site/gates.md): each rule type deciding allow,
 * deny or ask with the agent's stored history; approve, deny, expire, reuse and argument mismatch,
 * each leaving the events the trail promises; the approver named by the key's configured name; the
 * refusals that change nothing; and a kill -9 while decisions are being written, after which a retry
 * with the same Idempotency-Key finds the one decision, or none was stored and the retry stores it.
 * One server process for the class (restarted by the crash test, which runs last).
 */
@Order(RunOrder.LONG)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatesIT {

    private static final String INGEST = "gates-ingest-key";
    private static final String ALICE = "gates-alice-key";
    private static final String ADMIN = "gates-admin-key";
    private static final String READ = "gates-read-key";

    @TempDir
    static Path dir;
    static ServerProcess server;
    static Api api;

    @BeforeAll
    static void start() throws Exception {
        server = start(dir.resolve("data"));
    }

    private static ServerProcess start(Path data) throws Exception {
        ServerProcess s = ServerProcess.start(data, Map.of(
                "TRAILPROOF_AUTH_API_KEYS", INGEST + ":ingest,alice=" + ALICE + ":approve," + ADMIN + ":admin," + READ + ":read",
                "TRAILPROOF_GATE_ASK_TIMEOUT", "PT4S",
                // "Changes nothing" is checked with the tree size, which records of reads would grow.
                "TRAILPROOF_ACCESS_TRAIL_ENABLED", "false"));
        api = s.api();
        return s;
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Reply send(String method, String path, String key, String json, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.base() + path))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8))
                .header("Authorization", "Bearer " + key);
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return api.send(b);
    }

    private static Reply expect(int status, Reply r) {
        assertThat(r.status()).as(r.raw().request().method() + " " + r.raw().request().uri() + ": " + r.body())
                .isEqualTo(status);
        return r;
    }

    private static JsonNode decide(String json) throws Exception {
        return expect(201, send("POST", "/v1/decisions", INGEST, json)).json();
    }

    private static void event(String json) throws Exception {
        expect(201, send("POST", "/v1/events", INGEST, json));
    }

    private static List<JsonNode> chain(String agent) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        expect(200, send("GET", "/v1/events?order=asc&limit=1000&agent_id=" + agent, ADMIN, null)).json().forEach(out::add);
        return out;
    }

    private static List<JsonNode> violations(String agent) throws Exception {
        return chain(agent).stream().filter(e -> e.path("action_type").asText().equals("GATE_VIOLATION"))
                .map(e -> e.get("action_output")).toList();
    }

    private static void policy(String rules) throws Exception {
        expect(201, send("PUT", "/v1/admin/gate-policy", ADMIN, "{\"policies\":[{\"name\":\"ops\",\"rules\":[" + rules + "]}]}"));
    }

    // ------------------------------------------------------------------ rules

    @Test
    void eachRuleTypeDecidesFromTheProposalAndTheStoredHistory() throws Exception {
        int hour = Instant.now().atZone(ZoneOffset.UTC).getHour();
        policy("{\"name\":\"no-delete-after-refund\",\"type\":\"absence\",\"when\":\"refund\",\"deny\":\"delete_user\","
                + "\"scope\":\"session\",\"effect\":\"deny\",\"reason\":\"no deletion after a refund\"},"
                + "{\"name\":\"known-tools\",\"type\":\"boundary\",\"allow_actions\":[\"refund\",\"delete_user\",\"send_email\","
                + "\"transfer\",\"verify_identity\",\"lookup\"],\"effect\":\"deny\"},"
                + "{\"name\":\"two-mails-an-hour\",\"type\":\"rate\",\"per\":\"1h\",\"max\":2,\"label_filter\":{\"team\":\"mail\"},"
                + "\"effect\":\"ask\"},"
                + "{\"name\":\"next-hour-only\",\"type\":\"temporal\",\"hours\":[" + (hour + 1) % 24 + "," + (hour + 2) % 24 + "],"
                + "\"label_filter\":{\"window\":\"night\"},\"effect\":\"deny\"},"
                + "{\"name\":\"big-amounts\",\"type\":\"pattern\",\"for_field\":\"action_input.amount\","
                + "\"match_pattern\":\"^[0-9]{1,3}$\",\"effect\":\"ask\",\"reason\":\"1000 or more needs a person\"},"
                + "{\"name\":\"identity-first\",\"type\":\"requires\",\"for\":\"transfer\",\"requires\":\"verify_identity\","
                + "\"effect\":\"deny\"},"
                + "{\"name\":\"company-mail-only\",\"type\":\"match\",\"query\":\"action_name:send_email AND NOT input:\\\"example.com\\\"\","
                + "\"effect\":\"deny\"},"
                + "{\"name\":\"lookups\",\"type\":\"boundary\",\"allow_actions\":[\"refund\",\"delete_user\",\"send_email\","
                + "\"transfer\",\"verify_identity\"],\"effect\":\"allow\"}");
        String a = "rules-agent";
        // absence after when, per session
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"session_id\":\"s1\",\"action_name\":\"delete_user\"}").get("decision").asText())
                .isEqualTo("allow");
        event("{\"agent_id\":\"" + a + "\",\"session_id\":\"s1\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"refund\"}");
        JsonNode denied = decide("{\"agent_id\":\"" + a + "\",\"session_id\":\"s1\",\"action_name\":\"delete_user\"}");
        assertThat(denied.get("decision").asText()).isEqualTo("deny");
        assertThat(denied.get("rule").asText()).isEqualTo("no-delete-after-refund");
        assertThat(denied.get("reason").asText()).isEqualTo("no deletion after a refund");
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"session_id\":\"s2\",\"action_name\":\"delete_user\"}").get("decision").asText())
                .isEqualTo("allow");
        // boundary
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"format_disk\"}").get("rule").asText()).isEqualTo("known-tools");
        // an allow rule that fires is the decision when nothing stronger does
        JsonNode lookup = decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"lookup\"}");
        assertThat(lookup.get("decision").asText()).isEqualTo("allow");
        assertThat(lookup.get("rule").asText()).isEqualTo("lookups");
        // rate, counting the stored history with the rule's labels only
        String mail = "{\"agent_id\":\"" + a + "\",\"action_name\":\"send_email\",\"labels\":{\"team\":\"mail\"},"
                + "\"action_input\":{\"to\":\"x@example.com\"}}";
        assertThat(decide(mail).get("decision").asText()).isEqualTo("allow");
        event("{\"agent_id\":\"" + a + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"send_email\",\"labels\":{\"team\":\"mail\"}}");
        event("{\"agent_id\":\"" + a + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"send_email\"}");
        assertThat(decide(mail).get("decision").asText()).isEqualTo("allow");
        event("{\"agent_id\":\"" + a + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"send_email\",\"labels\":{\"team\":\"mail\"}}");
        JsonNode third = decide(mail);
        assertThat(third.get("decision").asText()).isEqualTo("ask");
        assertThat(third.get("rule").asText()).isEqualTo("two-mails-an-hour");
        assertThat(third.get("expires_at").isTextual()).isTrue();
        // temporal: the proposal's own timestamp, else the time it is decided
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"lookup\",\"labels\":{\"window\":\"night\"}}")
                .get("rule").asText()).isEqualTo("next-hour-only");
        String later = Instant.now().plus(Duration.ofHours(1)).toString();
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"lookup\",\"labels\":{\"window\":\"night\"},"
                + "\"timestamp\":\"" + later + "\"}").get("decision").asText()).isEqualTo("allow");
        // pattern
        JsonNode big = decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"refund\",\"action_input\":{\"amount\":5000}}");
        assertThat(big.get("decision").asText()).isEqualTo("ask");
        assertThat(big.get("reason").asText()).isEqualTo("1000 or more needs a person");
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"refund\",\"action_input\":{\"amount\":50}}")
                .get("decision").asText()).isEqualTo("allow");
        // requires
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"transfer\"}").get("rule").asText()).isEqualTo("identity-first");
        event("{\"agent_id\":\"" + a + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"verify_identity\"}");
        assertThat(decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"transfer\"}").get("decision").asText()).isEqualTo("allow");
        // match, against the proposal alone; deny wins over ask
        JsonNode outside = decide("{\"agent_id\":\"" + a + "\",\"action_name\":\"send_email\",\"labels\":{\"team\":\"mail\"},"
                + "\"action_input\":{\"to\":\"mallory@elsewhere.org\"}}");
        assertThat(outside.get("decision").asText()).isEqualTo("deny");
        assertThat(outside.get("rule").asText()).isEqualTo("company-mail-only");
        // every decision is an event of the agent's chain, naming the policy that made it
        String policyId = expect(200, send("GET", "/v1/admin/gate-policy", READ, null)).json().get("event_id").asText();
        JsonNode stored = expect(200, send("GET", "/v1/events/" + denied.get("decision_id").asText(), READ, null)).json();
        assertThat(stored.get("action_type").asText()).isEqualTo("DECISION");
        assertThat(stored.get("action_output").get("policy_event_id").asText()).isEqualTo(policyId);
        assertThat(stored.get("action_output").get("args_sha256").asText()).isEqualTo(denied.get("args_sha256").asText());
        assertThat(denied.get("event").get("hash").asText()).isEqualTo(stored.get("hash").asText());
        expect(200, send("GET", "/v1/verify?agent_id=" + a, READ, null));
        assertThat(send("GET", "/v1/verify?agent_id=" + a, READ, null).json().get("valid").asBoolean()).isTrue();
    }

    // ------------------------------------------------------------------ approvals and bindings

    @Test
    void approvalsBindOneCallWithExactlyTheseArgumentsAndEveryFailureIsRecorded() throws Exception {
        policy("{\"name\":\"pay-asks\",\"type\":\"match\",\"query\":\"action_name:pay\",\"effect\":\"ask\",\"reason\":\"payments need a person\"}");
        String a = "binding-agent";
        String pay = "{\"agent_id\":\"" + a + "\",\"session_id\":\"b1\",\"action_name\":\"pay\",\"action_input\":{\"amount\":900,\"to\":\"acme\"}}";
        JsonNode ask = decide(pay);
        String id = ask.get("decision_id").asText();
        assertThat(ask.get("decision").asText()).isEqualTo("ask");
        // a long poll that an approval ends
        CompletableFuture<Reply> poll = CompletableFuture.supplyAsync(() -> {
            try {
                return send("GET", "/v1/decisions/" + id + "?wait=PT30S", INGEST, null);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        JsonNode pending = expect(200, send("GET", "/v1/approvals?state=pending", ALICE, null)).json();
        assertThat(pending.findValuesAsText("decision_id")).contains(id);
        expect(403, send("GET", "/v1/approvals", READ, null));
        expect(403, send("POST", "/v1/approvals/" + id, READ, "{\"approve\":true}"));
        JsonNode approval = expect(201, send("POST", "/v1/approvals/" + id, ALICE,
                "{\"approve\":true,\"comment\":\"within budget\"}")).json();
        assertThat(approval.get("approver").asText()).isEqualTo("alice");
        assertThat(approval.get("state").asText()).isEqualTo("approved");
        JsonNode polled = poll.get().json();
        assertThat(polled.get("state").asText()).isEqualTo("approved");
        assertThat(polled.get("approver").asText()).isEqualTo("alice");
        expect(409, send("POST", "/v1/approvals/" + id, ALICE, "{\"approve\":true}"));
        // the approver is the key's name, never the key
        assertThat(chain(a).toString()).doesNotContain(ALICE);

        String call = "{\"agent_id\":\"" + a + "\",\"session_id\":\"b1\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"pay\","
                + "\"action_input\":{\"to\":\"acme\",\"amount\":900},\"decision_id\":\"" + id + "\"}";
        event(call);   // same arguments (member order does not matter: RFC 8785)
        event(call);   // used twice
        JsonNode deny = decide(pay);
        expect(201, send("POST", "/v1/approvals/" + deny.get("decision_id").asText(), ALICE, "{\"approve\":false}"));
        event(call.replace(id, deny.get("decision_id").asText()));                       // denied
        JsonNode third = decide(pay);
        expect(201, send("POST", "/v1/approvals/" + third.get("decision_id").asText(), ALICE, "{\"approve\":true}"));
        event(call.replace(id, third.get("decision_id").asText()).replace("900", "9000")); // arguments
        event(call.replace(id, "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00"));                 // unknown_decision
        JsonNode foreign = decide("{\"agent_id\":\"other-agent\",\"action_name\":\"lookup\"}");
        event(call.replace(id, foreign.get("decision_id").asText()));                    // other_agent
        Await.untilTrue("five GATE_VIOLATION events", Duration.ofSeconds(30), () -> violations(a).size() == 5);
        assertThat(violations(a)).extracting(v -> v.get("check").asText())
                .containsExactly("used", "denied", "arguments", "unknown_decision", "other_agent");
        List<JsonNode> events = chain(a);
        JsonNode firstCall = events.stream().filter(e -> e.path("decision_id").asText().equals(id)).findFirst().orElseThrow();
        JsonNode state = expect(200, send("GET", "/v1/decisions/" + id, INGEST, null)).json();
        assertThat(state.get("used_by").asText()).isEqualTo(firstCall.get("id").asText());
        // an allow cannot be answered
        expect(409, send("POST", "/v1/approvals/" + foreign.get("decision_id").asText(), ALICE, "{\"approve\":true}"));
        // the built-in policy reports the same, and a gated agent's call without a decision
        event("{\"agent_id\":\"" + a + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"pay\"}");
        JsonNode check = expect(200, send("POST", "/v1/policy/check", READ, "{\"policy\":\"gate_compliance\",\"agent_id\":\"" + a + "\"}"))
                .json().get("results").get(0);
        assertThat(check.get("violations").asInt()).isEqualTo(6);

        // verify-export checks the same bindings offline: the violations are recorded, so the package verifies
        String pack = expect(200, send("GET", "/v1/export?agent_id=" + a, READ, null)).body();
        Path file = dir.resolve("binding-agent.json");
        Files.writeString(file, pack);
        Cli.Run verified = Cli.run("verify-export", file.toString());
        assertThat(verified.exit()).as(verified.toString()).isEqualTo(0);
        assertThat(verified.out()).contains("3 calls decided: 0 allowed, 1 denied, 2 approved by alice, 0 expired, 5 violations");
        // one byte of the first bound call's decision_id changed: the package no longer verifies
        int at = pack.indexOf("\"decision_id\":\"" + id + "\"") + "\"decision_id\":\"".length() + 35;
        String flipped = pack.substring(0, at) + (pack.charAt(at) == '0' ? '1' : '0') + pack.substring(at + 1);
        Files.writeString(file, flipped);
        Cli.Run broken = Cli.run("verify-export", file.toString());
        assertThat(broken.exit()).as(broken.toString()).isEqualTo(1);
    }

    @Test
    void anUnansweredAskExpiresAndCannotBeApprovedAfterwards() throws Exception {
        policy("{\"name\":\"wire-asks\",\"type\":\"match\",\"query\":\"action_name:wire\",\"effect\":\"ask\"}");
        JsonNode ask = decide("{\"agent_id\":\"expiry-agent\",\"action_name\":\"wire\"}");
        String id = ask.get("decision_id").asText();
        // the long poll ends when the ask expires (gate.ask-timeout PT4S), not at its own wait
        long started = System.nanoTime();
        JsonNode polled = expect(200, send("GET", "/v1/decisions/" + id + "?wait=PT60S", INGEST, null)).json();
        assertThat(polled.get("state").asText()).isEqualTo("expired");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(40));
        expect(409, send("POST", "/v1/approvals/" + id, ALICE, "{\"approve\":true}"));
        assertThat(expect(200, send("GET", "/v1/approvals", ALICE, null)).json().findValuesAsText("decision_id")).doesNotContain(id);
        event("{\"agent_id\":\"expiry-agent\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"wire\",\"decision_id\":\"" + id + "\"}");
        Await.untilTrue("the expired call's violation", Duration.ofSeconds(30), () -> violations("expiry-agent").size() == 1);
        assertThat(violations("expiry-agent").get(0).get("check").asText()).isEqualTo("expired");
        assertThat(chain("expiry-agent")).extracting(e -> e.get("action_type").asText()).doesNotContain("APPROVAL");
    }

    @Test
    void theCommandLineRecordsThePolicyListsAsksAndAnswersThem() throws Exception {
        Path file = dir.resolve("gate.yaml");
        Files.writeString(file, """
                policies:
                  - name: refunds
                    rules:
                      - name: refunds-ask
                        type: match
                        query: 'action_name:refund'
                        effect: ask
                        reason: refunds need a person
                """);
        Cli.Run put = Cli.run("gate-policy", "put", file.toString(), "--server", api.base(), "--api-key", ADMIN);
        assertThat(put.exit()).as(put.toString()).isZero();
        Cli.Run get = Cli.run("gate-policy", "get", "--server", api.base(), "--api-key", READ);
        assertThat(get.out()).contains("refunds-ask", "refunds need a person");
        String one = decide("{\"agent_id\":\"cli-agent\",\"action_name\":\"refund\",\"action_input\":{\"order\":1}}")
                .get("decision_id").asText();
        String two = decide("{\"agent_id\":\"cli-agent\",\"action_name\":\"refund\",\"action_input\":{\"order\":2}}")
                .get("decision_id").asText();
        Cli.Run list = Cli.run("approvals", "list", "--server", api.base(), "--api-key", ALICE);
        assertThat(list.exit()).as(list.toString()).isZero();
        assertThat(list.out()).contains(one, two, "refunds need a person", "{\"order\":1}");
        Cli.Run approve = Cli.run("approvals", "approve", one, "--comment", "customer called", "--server", api.base(),
                "--api-key", ALICE);
        assertThat(approve.out()).as(approve.toString()).startsWith("approved " + one + " as alice");
        Cli.Run deny = Cli.run("approvals", "deny", two, "--server", api.base(), "--api-key", ALICE);
        assertThat(deny.out()).as(deny.toString()).startsWith("denied " + two + " as alice");
        Cli.Run again = Cli.run("approvals", "deny", two, "--server", api.base(), "--api-key", ALICE);
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("HTTP 409");
        assertThat(expect(200, send("GET", "/v1/decisions/" + two, INGEST, null)).json().get("state").asText())
                .isEqualTo("denied");
        Files.writeString(file, "policies: [{name: p, rules: [{name: r, type: match, effect: ask}]}]");
        Cli.Run bad = Cli.run("gate-policy", "put", file.toString(), "--server", api.base(), "--api-key", ADMIN);
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("policy 'p', rule 'r'", "'query'");
    }

    // ------------------------------------------------------------------ refusals

    @Test
    void badInputIsRefusedAndChangesNothing() throws Exception {
        policy("{\"name\":\"keep\",\"type\":\"boundary\",\"allow_actions\":[\"lookup\"],\"effect\":\"deny\"}");
        JsonNode before = expect(200, send("GET", "/v1/admin/gate-policy", READ, null)).json();
        long size = expect(200, send("GET", "/v1/merkle/root", READ, null)).json().get("tree_size").asLong();
        String bad = expect(400, send("PUT", "/v1/admin/gate-policy", ADMIN, "{\"policies\":[{\"name\":\"p\",\"rules\":"
                + "[{\"name\":\"r\",\"type\":\"rate\",\"per\":\"1h\",\"max\":2,\"effect\":\"maybe\"}]}]}")).json().get("error").asText();
        assertThat(bad).contains("policy 'p'").contains("rule 'r'").contains("'effect'");
        String query = expect(400, send("PUT", "/v1/admin/gate-policy", ADMIN, "{\"policies\":[{\"name\":\"p\",\"rules\":"
                + "[{\"name\":\"q\",\"type\":\"match\",\"query\":\"input:(\",\"effect\":\"deny\"}]}]}")).json().get("error").asText();
        assertThat(query).contains("policy 'p'").contains("rule 'q'").contains("'query'");
        expect(400, send("PUT", "/v1/admin/gate-policy", ADMIN, "{\"policies\":[{\"name\":\"p\",\"rules\":"
                + "[{\"name\":\"s\",\"type\":\"sequence\",\"when\":\"a\",\"expect\":\"b\",\"effect\":\"deny\"}]}]}"));
        expect(403, send("PUT", "/v1/admin/gate-policy", INGEST, "{\"policies\":[]}"));
        assertThat(expect(200, send("GET", "/v1/admin/gate-policy", READ, null)).json()).isEqualTo(before);
        // clients cannot forge the service's events nor write as its agents
        expect(400, send("POST", "/v1/events", INGEST, "{\"agent_id\":\"x\",\"action_type\":\"APPROVAL\"}"));
        expect(400, send("POST", "/v1/events", INGEST, "{\"agent_id\":\"x\",\"action_type\":\"DECISION\"}"));
        expect(400, send("POST", "/v1/events", INGEST, "{\"agent_id\":\"trailproof.policies\"}"));
        expect(400, send("POST", "/v1/decisions", INGEST, "{\"agent_id\":\"x\",\"decision_id\":\"019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00\"}"));
        expect(400, send("POST", "/v1/decisions", INGEST, "{\"agent_id\":\"x\",\"action_name\":7}"));
        expect(400, send("POST", "/v1/decisions", INGEST, "[]"));
        expect(400, send("GET", "/v1/decisions/not-an-id", INGEST, null));
        expect(400, send("GET", "/v1/decisions/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00?wait=forever", INGEST, null));
        expect(400, send("POST", "/v1/approvals/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", ALICE, "{\"approve\":true,\"x\":1}"));
        expect(400, send("POST", "/v1/approvals/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", ALICE, "{}"));
        expect(403, send("POST", "/v1/decisions", READ, "{\"agent_id\":\"x\"}"));
        // approve includes read
        expect(200, send("GET", "/v1/events?limit=1", ALICE, null));
        assertThat(expect(200, send("GET", "/v1/merkle/root", READ, null)).json().get("tree_size").asLong()).isEqualTo(size);
    }

    @Test
    void aDecisionForAnUnknownAgentStartsItsChainAndARetryWithTheSameKeyIsReplayed() throws Exception {
        Reply first = expect(201, send("POST", "/v1/decisions", INGEST, "{\"agent_id\":\"fresh-agent\",\"action_name\":\"lookup\"}",
                "Idempotency-Key", "same-decision"));
        Reply again = expect(201, send("POST", "/v1/decisions", INGEST, "{\"agent_id\":\"fresh-agent\",\"action_name\":\"lookup\"}",
                "Idempotency-Key", "same-decision"));
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(first.header("Location")).isEqualTo("/v1/decisions/" + first.json().get("decision_id").asText());
        List<JsonNode> chain = chain("fresh-agent");
        assertThat(chain).hasSize(1);
        assertThat(chain.get(0).get("sequence").asLong()).isEqualTo(1);
        expect(422, send("POST", "/v1/decisions", INGEST, "{\"agent_id\":\"fresh-agent\",\"action_name\":\"other\"}",
                "Idempotency-Key", "same-decision"));
    }

    // ------------------------------------------------------------------ crash

    /** Last: it kills the server and leaves the restarted one. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aKillWhileDecisionsAreWrittenLeavesEachDurableAndReplayedOrAbsentAndStoredOnRetry() throws Exception {
        for (int round = 0; round < 2; round++) {
            String agent = "crash-agent-" + round;
            int n = 24;
            List<CompletableFuture<Reply>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String body = "{\"agent_id\":\"" + agent + "\",\"action_name\":\"pay\",\"action_input\":{\"n\":" + i + "}}";
                String key = "crash-" + round + "-" + i;
                sent.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return send("POST", "/v1/decisions", INGEST, body, "Idempotency-Key", key);
                    } catch (Exception e) {
                        return null; // the connection died with the server: the outcome is unknown
                    }
                }));
            }
            // kill -9 once some answers came back, while the others are in flight
            Await.until("a first decision answered", Duration.ofSeconds(30), () -> sent.stream().anyMatch(CompletableFuture::isDone));
            server.kill();
            List<Reply> before = new ArrayList<>();
            for (CompletableFuture<Reply> f : sent) {
                before.add(f.get());
            }
            server = start(dir.resolve("data"));
            for (int i = 0; i < n; i++) {
                String body = "{\"agent_id\":\"" + agent + "\",\"action_name\":\"pay\",\"action_input\":{\"n\":" + i + "}}";
                Reply retry = expect(201, send("POST", "/v1/decisions", INGEST, body, "Idempotency-Key", "crash-" + round + "-" + i));
                Reply first = before.get(i);
                if (first != null && first.status() == 201) {
                    // acknowledged before the kill: durable, and the retry gets that very answer
                    assertThat(retry.header("Idempotent-Replayed")).as("key " + i).isEqualTo("true");
                    assertThat(retry.body()).as("key " + i).isEqualTo(first.body());
                }
                String id = retry.json().get("decision_id").asText();
                assertThat(expect(200, send("GET", "/v1/decisions/" + id, INGEST, null)).json().get("decision_id").asText())
                        .isEqualTo(id);
            }
            // one decision per key, never two: what the kill took back was stored once by its retry
            List<JsonNode> decisions = chain(agent).stream().filter(e -> e.path("action_type").asText().equals("DECISION")).toList();
            assertThat(decisions).extracting(e -> e.get("action_input").get("n").asInt())
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, n).boxed().toList());
            assertThat(send("GET", "/v1/verify?agent_id=" + agent, READ, null).json().get("valid").asBoolean()).isTrue();
        }
    }
}
