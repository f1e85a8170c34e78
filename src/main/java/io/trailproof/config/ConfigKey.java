package io.trailproof.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Every configuration key the service knows (src/site/configuration.md). {@code config/trailproof.properties}
 * documents each one; a test keeps the two in step. Anything not listed here is an unknown key and
 * stops the start.
 */
public enum ConfigKey {
    SERVER_HOST("server.host", "127.0.0.1"),
    SERVER_PORT("server.port", "7600"),
    DATA_DIR("data.dir", "~/.trailproof"),
    SERVER_IDLE_TIMEOUT_MS("server.idle-timeout-ms", "30000"),
    SERVER_HEADER_TIMEOUT_MS("server.header-timeout-ms", "10000"),
    SERVER_BODY_TIMEOUT_MS("server.body-timeout-ms", "60000"),
    AUTH_API_KEYS("auth.api-keys", ""),
    LIMITS_MAX_BODY_BYTES("limits.max-body-bytes", "16777216"),
    LIMITS_MAX_BATCH_EVENTS("limits.max-batch-events", "10000"),
    TIMESTAMP_DEFAULT_TSA_URL("timestamp.default-tsa-url", "http://timestamp.digicert.com"),
    TIMESTAMP_ALLOWED_TSA_URLS("timestamp.allowed-tsa-urls", ""),
    TIMESTAMP_TRUST_ANCHORS("timestamp.trust-anchors", ""),
    TIMESTAMP_TIMEOUT_MS("timestamp.timeout-ms", "10000"),
    TIMESTAMP_INTERVAL("timestamp.interval", "off"),
    VERIFY_INTERVAL("verify.interval", "PT1H"),
    VERIFY_CPU_SHARE("verify.cpu-share", "0.25"),
    LOG_SEGMENT_BYTES("log.segment-bytes", "67108864"),
    // Chain-head snapshots of the ledger's recovery (src/site/storage.md#chain-head-snapshot)
    RECOVERY_SNAPSHOT_INTERVAL_EVENTS("recovery.snapshot-interval-events", "100000", "checkpoint.interval-events"),
    STORAGE_ACCEPT_TRUNCATION("storage.accept-truncation", "false"),
    SERVER_MAX_CONNECTIONS("server.max-connections", "1024"),
    // The front door (src/site/security.md#the-front-door)
    SERVER_HOST_NAMES("server.host-names", ""),
    SERVER_MAX_CONNECTIONS_PER_ADDRESS("server.max-connections-per-address", "256"),
    INGEST_MAX_QUEUED_EVENTS("ingest.max-queued-events", "65536"),
    INDEX_RAM_BUFFER_MB("index.ram-buffer-mb", "auto"),
    INDEX_CATCH_UP_WAIT_MS("index.catch-up-wait-ms", "5000"),
    LIMITS_MAX_IN_FLIGHT_BYTES("limits.max-in-flight-bytes", "auto"),
    LIMITS_MAX_IN_FLIGHT_BYTES_PER_ADDRESS("limits.max-in-flight-bytes-per-address", "auto"),
    STREAM_MAX_SUBSCRIBERS("stream.max-subscribers", "1000"),
    STREAM_MAX_BUFFERED_EVENTS("stream.max-buffered-events", "10000"),
    STREAM_HEARTBEAT("stream.heartbeat", "PT15S"),
    IDEMPOTENCY_RETENTION("idempotency.retention", "PT24H"),
    IDEMPOTENCY_MAX_KEYS("idempotency.max-keys", "1000000"),
    REDACTION_ENABLED("redaction.enabled", "false"),
    REDACTION_RULES("redaction.rules", ""),
    // Retention of event content and the pace of erasures (src/site/erasure.md)
    RETENTION_CONTENT_AFTER("retention.content-after", "off"),
    RETENTION_ALLOW_SHORT("retention.allow-short", "false"),
    ERASURE_SHARE_WHILE_INGESTING("erasure.share-while-ingesting", "0.25"),
    // Capture gaps (src/site/completeness.md)
    CAPTURE_GAP_AFTER("capture.gap-after", "PT5M"),
    // Signed checkpoints, tiles and witnesses (src/site/checkpoints.md)
    CHECKPOINT_ORIGIN("checkpoint.origin", ""),
    CHECKPOINT_SIGNING_KEY("checkpoint.signing-key", ""),
    CHECKPOINT_INTERVAL("checkpoint.interval", "PT1S"),
    CHECKPOINT_PUBLIC("checkpoint.public", "true"),
    CHECKPOINT_WITNESSES("checkpoint.witnesses", ""),
    // Metrics and logs (src/site/operations.md)
    METRICS_ENABLED("metrics.enabled", "true"),
    LOG_FORMAT("log.format", "text"),
    LOG_ACCESS("log.access", "false"),
    // Cluster mode on Apache Kafka; cluster.kafka.* keys pass through to the Kafka clients
    CLUSTER_MODE("cluster.mode", "embedded"),
    CLUSTER_BOOTSTRAP_SERVERS("cluster.bootstrap-servers", ""),
    CLUSTER_TOPIC("cluster.topic", "trailproof-log"),
    CLUSTER_NODE_ID("cluster.node-id", ""),
    CLUSTER_REPLICATION_FACTOR("cluster.replication-factor", "3"),
    CLUSTER_WRITE_TIMEOUT("cluster.write-timeout", "PT10S"),
    CLUSTER_READ_WAIT("cluster.read-wait", "PT10S"),
    CLUSTER_ALLOW_UNSAFE_TOPIC("cluster.allow-unsafe-topic", "false"),
    CLUSTER_TOPIC_RETENTION("cluster.topic-retention", "off"),
    // Gates and approvals (src/site/gates.md)
    GATE_DEFAULT("gate.default", "allow"),
    GATE_ASK_TIMEOUT("gate.ask-timeout", "PT15M"),
    GATE_APPROVAL_VALID_FOR("gate.approval-valid-for", "PT10M"),
    GATE_POLICY_FILE("gate.policy-file", ""),
    // The trail of who looked (src/site/sign-in.md#the-trail-of-who-looked)
    ACCESS_TRAIL_ENABLED("access-trail.enabled", "auto"),
    // Sign-in of people through OpenID Connect (src/site/sign-in.md#signing-in-people)
    AUTH_OIDC_ISSUER("auth.oidc.issuer", ""),
    AUTH_OIDC_CLIENT_ID("auth.oidc.client-id", ""),
    AUTH_OIDC_CLIENT_SECRET("auth.oidc.client-secret", ""),
    AUTH_OIDC_REDIRECT_URI("auth.oidc.redirect-uri", ""),
    AUTH_OIDC_SCOPES("auth.oidc.scopes", "openid,email,profile"),
    AUTH_OIDC_ROLES_CLAIM("auth.oidc.roles-claim", "groups"),
    AUTH_OIDC_ROLE_MAP("auth.oidc.role-map", ""),
    AUTH_OIDC_STRICT("auth.oidc.strict", "true"),
    AUTH_SESSION_IDLE_TIMEOUT("auth.session.idle-timeout", "PT30M"),
    AUTH_SESSION_MAX_AGE("auth.session.max-age", "PT12H"),
    SERVER_PUBLIC_URL("server.public-url", "");

    /** Keys under this prefix are Kafka client properties passed through as they are ({@code cluster.kafka.ssl.truststore.location}). */
    public static final String KAFKA_PASS_THROUGH_PREFIX = "cluster.kafka.";

    private final String key;
    private final String defaultValue;
    private final String deprecatedName;

    ConfigKey(String key, String defaultValue) {
        this(key, defaultValue, null);
    }

    /**
     * @param deprecatedName the key's former name, still read (with a warning) so that an existing
     *     configuration keeps starting; null when it never had another
     */
    ConfigKey(String key, String defaultValue, String deprecatedName) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.deprecatedName = deprecatedName;
    }

    public String key() {
        return key;
    }

    public String defaultValue() {
        return defaultValue;
    }

    /** The key's former name, still accepted with a warning, if it had one. */
    public Optional<String> deprecatedName() {
        return Optional.ofNullable(deprecatedName);
    }

    /** The environment variable of the former name, if the key had one. */
    public Optional<String> deprecatedEnvironmentVariable() {
        return deprecatedName().map(ConfigKey::variableOf);
    }

    /** The environment variable that sets this key: TRAILPROOF_ + key upper-cased, '.' and '-' as '_'. */
    public String environmentVariable() {
        return variableOf(key);
    }

    private static String variableOf(String name) {
        return "TRAILPROOF_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The key of this name (its current name only). */
    public static Optional<ConfigKey> byName(String name) {
        return Arrays.stream(values()).filter(k -> k.key.equals(name)).findFirst();
    }

    /** The key whose former name this is. */
    public static Optional<ConfigKey> byDeprecatedName(String name) {
        return Arrays.stream(values()).filter(k -> name.equals(k.deprecatedName)).findFirst();
    }
}
