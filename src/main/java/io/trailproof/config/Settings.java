package io.trailproof.config;

import io.trailproof.core.redaction.RedactionRule;
import io.trailproof.core.redaction.Redactor;
import io.trailproof.core.retention.RetentionPeriod;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The service's validated configuration: every value typed and checked (see {@link SettingsLoader}). */
public record Settings(
        String host,
        int port,
        Path dataDir,
        List<ApiKey> apiKeys,
        boolean insecureNoAuth,
        long maxBodyBytes,
        int maxBatchEvents,
        URI defaultTsaUrl,
        List<String> allowedTsaUrls,
        List<Path> trustAnchors,
        int timestampTimeoutMs,
        Duration verifyInterval,
        long logSegmentBytes,
        long snapshotIntervalEvents,
        Duration timestampInterval,
        int idleTimeoutMs,
        int headerTimeoutMs,
        int bodyTimeoutMs,
        Hardening hardening,
        Streams streams,
        Idempotency idempotency,
        Redaction redaction,
        Checkpoints checkpoints,
        Observability observability,
        Cluster cluster,
        Erasure erasure,
        /** {@code capture.gap-after}: how long a hole in a capture stream may stay open before a GAP records it (src/site/completeness.md#gaps). */
        Duration captureGapAfter,
        Gate gate,
        FrontDoor frontDoor,
        /**
         * {@code access-trail.enabled}: every read of trail content is recorded as an ACCESS event of
         * agent {@code trailproof.access} (src/site/sign-in.md#the-trail-of-who-looked); {@code auto}
         * resolves to true when API keys are configured.
         */
        boolean accessTrail,
        /** Sign-in of people through OpenID Connect; empty when {@code auth.oidc.issuer} is not set. */
        Optional<SignIn> signIn) {

    /**
     * Sign-in of people through an OpenID Connect provider (src/site/sign-in.md#signing-in-people).
     *
     * @param issuer {@code auth.oidc.issuer}: the provider's issuer URL, where discovery starts
     * @param clientId {@code auth.oidc.client-id}
     * @param clientSecret {@code auth.oidc.client-secret}: empty for a public client (PKCE alone)
     * @param redirectUri {@code auth.oidc.redirect-uri}: this service's {@code /auth/callback} as the browser reaches it
     * @param scopes {@code auth.oidc.scopes}: the scopes asked for, {@code openid} among them
     * @param rolesClaim {@code auth.oidc.roles-claim}: the ID token claim whose values the role map reads
     * @param roleMap {@code auth.oidc.role-map}: claim value to the roles it gives
     * @param strict {@code auth.oidc.strict}: a person without a mapped role is refused (else gets read)
     * @param idleTimeout {@code auth.session.idle-timeout}
     * @param maxAge {@code auth.session.max-age}
     * @param publicUrl {@code server.public-url}: the service's external https address behind a TLS proxy
     */
    public record SignIn(URI issuer, String clientId, Optional<String> clientSecret, URI redirectUri,
                         List<String> scopes, String rolesClaim, Map<String, Set<ApiKey.Role>> roleMap,
                         boolean strict, Duration idleTimeout, Duration maxAge, Optional<URI> publicUrl) {

        public SignIn {
            scopes = List.copyOf(scopes);
            roleMap = Map.copyOf(roleMap);
        }

        @Override
        public String toString() {
            return "SignIn[issuer=" + issuer + ", clientId=" + clientId + ", clientSecret="
                    + (clientSecret.isPresent() ? "(set)" : "(none)") + ", redirectUri=" + redirectUri + "]";
        }
    }

    /**
     * Gates and approvals (src/site/gates.md).
     *
     * @param defaultEffect {@code gate.default}: {@code allow}, {@code ask} or {@code deny}, the decision when no rule fires
     * @param askTimeout {@code gate.ask-timeout}: how long an {@code ask} waits for a person before it expires
     * @param approvalValidFor {@code gate.approval-valid-for}: how long an approval may be used
     * @param policyFile {@code gate.policy-file}: a policy document recorded at start when it differs from the active one
     */
    public record Gate(String defaultEffect, Duration askTimeout, Duration approvalValidFor, Optional<Path> policyFile) {
        public static Gate defaults() {
            return new Gate("allow", Duration.ofMinutes(15), Duration.ofMinutes(10), Optional.empty());
        }
    }

    /**
     * Who may talk to the HTTP listener, and how much of it one address may hold
     * (src/site/security.md#the-front-door).
     *
     * @param hostNames {@code server.host-names}: names and addresses, lower case, answered besides the
     *     loopback names and the bind address; any other {@code Host} is a 421
     * @param maxConnectionsPerAddress {@code server.max-connections-per-address}: connections one client
     *     address may hold at once; a further one is closed as soon as it is accepted
     */
    public record FrontDoor(List<String> hostNames, int maxConnectionsPerAddress) {
        public FrontDoor {
            hostNames = List.copyOf(hostNames);
        }

        public static FrontDoor defaults() {
            return new FrontDoor(List.of(), 256);
        }
    }

    /**
     * Retention of event content (src/site/erasure.md#retention) and the pace of erasures
     * (src/site/erasure.md#pacing).
     *
     * @param contentAfter {@code retention.content-after}: content of events recorded longer ago than
     *     this is erased (once a day and at start); null when off
     * @param allowShort {@code retention.allow-short}: a period below six months was allowed
     * @param shareWhileIngesting {@code erasure.share-while-ingesting}: share of the time, in (0, 1], an
     *     erasure's log rewrite and index purge take while events are being ingested
     */
    public record Erasure(RetentionPeriod contentAfter, boolean allowShort, double shareWhileIngesting) {
    }

    /**
     * Metrics and logs (src/site/operations.md).
     *
     * @param metricsEnabled {@code metrics.enabled}: record metrics and serve {@code GET /metrics}; false
     *     records nothing (the benchmark's baseline) and answers 404 there
     * @param jsonLogs {@code log.format=json}: every line the service prints is one JSON object
     * @param accessLog {@code log.access}: one log line per request
     */
    public record Observability(boolean metricsEnabled, boolean jsonLogs, boolean accessLog) {
        public static Observability defaults() {
            return new Observability(true, false, false);
        }
    }

    /**
     * Cluster mode on Apache Kafka.
     *
     * @param kafka {@code true} for {@code cluster.mode=kafka}; false for the embedded single node
     * @param bootstrapServers {@code host:port} list of the Kafka cluster
     * @param topic the one-partition topic that orders every write
     * @param nodeId this node's name, unique in the cluster
     * @param replicationFactor the topic's replication factor when this node creates it
     * @param writeTimeout how long a write waits for Kafka and the local apply before "outcome unknown"
     * @param readWait how long a read with {@code min_tree_size} waits for this node to apply that size
     * @param allowUnsafeTopic accept a topic with replication below 3 or min ISR below 2 (a trial)
     * @param kafkaProperties {@code cluster.kafka.*} keys with the prefix removed: Kafka client properties
     * @param topicRetention the topic's retention ({@code cluster.topic-retention}, at least
     *     {@link #MIN_TOPIC_RETENTION}), or null for infinite retention
     */
    public record Cluster(boolean kafka, String bootstrapServers, String topic, String nodeId, int replicationFactor,
                          Duration writeTimeout, Duration readWait, boolean allowUnsafeTopic,
                          Map<String, String> kafkaProperties, Duration topicRetention) {
        /** The shortest {@code cluster.topic-retention}: a week to notice a node that fell behind and restore it. */
        public static final Duration MIN_TOPIC_RETENTION = Duration.ofDays(7);

        public Cluster {
            kafkaProperties = Map.copyOf(kafkaProperties);
        }

        public static Cluster embedded() {
            return new Cluster(false, "", "trailproof-log", "", 3, Duration.ofSeconds(10), Duration.ofSeconds(10), false,
                    Map.of(), null);
        }
    }

    /**
     * Redaction before hashing (src/site/redaction.md).
     *
     * @param enabled    whether events are redacted at all
     * @param extraRules the rules file's rules, run after the built-in ones
     */
    public record Redaction(boolean enabled, List<RedactionRule> extraRules) {
        public Redaction {
            extraRules = List.copyOf(extraRules);
        }

        public static Redaction defaults() {
            return new Redaction(false, List.of());
        }

        /** The redactor to apply, or null when redaction is off. */
        public Redactor redactor() {
            return enabled ? Redactor.withBuiltIns(extraRules) : null;
        }
    }

    /**
     * Signed checkpoints, tiles and witnesses (src/site/checkpoints.md).
     *
     * @param origin {@code checkpoint.origin}; empty: the key's name, or a random one at the first start
     * @param signingKey {@code checkpoint.signing-key}; empty: the key kept in the data directory
     * @param interval at most this often a new checkpoint is signed, when the tree grew
     * @param publicAccess the checkpoint, tiles and key need no API key
     * @param witnesses each {@code <witness vkey>@<add-checkpoint URL>}, checked when loaded
     */
    public record Checkpoints(Optional<String> origin, Optional<Path> signingKey, Duration interval,
                              boolean publicAccess, List<Witness> witnesses) {
        public Checkpoints {
            witnesses = List.copyOf(witnesses);
        }

        public static Checkpoints defaults() {
            return new Checkpoints(Optional.empty(), Optional.empty(), Duration.ofSeconds(1), true, List.of());
        }
    }

    /** One configured witness: its cosignature verifier key (type 0x04) and its add-checkpoint URL. */
    public record Witness(String vkey, URI addCheckpointUrl) {
    }

    /**
     * The live stream's limits (src/site/live-stream.md).
     *
     * @param maxSubscribers streams open at once
     * @param maxBufferedEvents matching events queued for one stream before it ends with an overflow
     * @param heartbeat quiet time before an SSE keep-alive comment; the WebSocket ping interval
     */
    public record Streams(int maxSubscribers, int maxBufferedEvents, Duration heartbeat) {
        public static Streams defaults() {
            return new Streams(1000, 10_000, Duration.ofSeconds(15));
        }
    }

    /**
     * {@code Idempotency-Key} (src/site/ingestion.md#idempotency).
     *
     * @param retention how long a recorded answer is replayed
     * @param maxKeys keys remembered at most; the oldest are forgotten beyond it
     */
    public record Idempotency(Duration retention, int maxKeys) {
        public static Idempotency defaults() {
            return new Idempotency(Duration.ofHours(24), 1_000_000);
        }
    }

    /**
     * Limits and recovery choices that keep the ledger's promises under load and after damage.
     *
     * @param acceptTruncation start even when acknowledged events are missing from the log (an operator's
     *     explicit choice after reading the refusal; the loss is then reported on /health)
     * @param maxConnections connections served at once; more are refused
     * @param maxQueuedEvents single events waiting for the sequencer; more are answered 503
     * @param indexRamBufferMb Lucene's RAM buffer in MiB, 0 = sized from the heap
     * @param maxInFlightBytes request bytes being parsed and sealed at once, 0 = sized from the heap
     * @param maxInFlightBytesPerAddress what one client address may hold of them, 0 = 3/4 of them
     * @param verifyCpuShare share of one core the periodic re-verification of every chain may take, in (0, 1]
     * @param indexCatchUpWaitMs how long a list or search waits for the index to catch up before it is
     *     answered from what is indexed (with {@code X-Index-Behind})
     */
    public record Hardening(boolean acceptTruncation, int maxConnections, int maxQueuedEvents, int indexRamBufferMb,
                            long maxInFlightBytes, long maxInFlightBytesPerAddress, double verifyCpuShare,
                            int indexCatchUpWaitMs) {
        public static Hardening defaults() {
            return new Hardening(false, 1024, 65536, 0, 0, 0, 0.25, 5000);
        }
    }

    public Settings {
        apiKeys = List.copyOf(apiKeys);
        allowedTsaUrls = List.copyOf(allowedTsaUrls);
        trustAnchors = List.copyOf(trustAnchors);
    }

    public Settings withPort(int newPort) {
        return new Settings(host, newPort, dataDir, apiKeys, insecureNoAuth, maxBodyBytes, maxBatchEvents,
                defaultTsaUrl, allowedTsaUrls, trustAnchors, timestampTimeoutMs, verifyInterval, logSegmentBytes,
                snapshotIntervalEvents, timestampInterval, idleTimeoutMs, headerTimeoutMs, bodyTimeoutMs, hardening,
                streams, idempotency, redaction, checkpoints, observability, cluster, erasure, captureGapAfter, gate,
                frontDoor, accessTrail, signIn);
    }
}
