package io.trailproof.config;

import static io.trailproof.config.ConfigValues.autoOrLong;
import static io.trailproof.config.ConfigValues.bad;
import static io.trailproof.config.ConfigValues.bool;
import static io.trailproof.config.ConfigValues.duration;
import static io.trailproof.config.ConfigValues.httpUrl;
import static io.trailproof.config.ConfigValues.list;
import static io.trailproof.config.ConfigValues.longIn;
import static io.trailproof.config.ConfigValues.nonEmpty;
import static io.trailproof.config.ConfigValues.path;
import static io.trailproof.config.ConfigValues.share;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import io.trailproof.config.ConfigSources.Sourced;
import io.trailproof.core.note.CosignatureVerifier;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.core.redaction.RedactionRulesFile;
import io.trailproof.core.retention.RetentionPeriod;
import java.io.UncheckedIOException;


/**
 * Builds {@link Settings} from, in order of precedence: command-line flags, environment variables,
 * a properties file, the defaults (src/site/configuration.md). An unknown key in the file or among the flags, or a
 * value that does not parse, is a {@link ConfigException} naming the key and where it came from.
 */
public final class SettingsLoader {

    /** The largest {@code limits.max-batch-events} accepted. */
    public static final int MAX_BATCH_EVENTS = 1_000_000;

    private static final System.Logger LOG = System.getLogger(SettingsLoader.class.getName());

    private SettingsLoader() {
    }

    /**
     * @param flags        key to value, from the command line (keys as in the properties file)
     * @param environment  the process environment (only {@code TRAILPROOF_<KEY>} variables of known keys are read)
     * @param file         a properties file, or null
     * @param insecureNoAuth whether {@code --insecure-no-auth} was given
     */
    public static Settings load(Map<String, String> flags, Map<String, String> environment, Path file,
                                boolean insecureNoAuth) throws ConfigException {
        List<String> warnings = new ArrayList<>();
        Settings settings = load(flags, environment, file, insecureNoAuth, warnings);
        for (String w : warnings) {
            LOG.log(System.Logger.Level.WARNING, w);
        }
        return settings;
    }

    /**
     * As {@link #load(Map, Map, Path, boolean)}, with the warnings (a deprecated key name used)
     * added to {@code warnings} instead of logged, for a caller that sets up logging afterwards.
     * A deprecated name sets its key unless the current name is given in the same place.
     */
    public static Settings load(Map<String, String> flags, Map<String, String> environment, Path file,
                                boolean insecureNoAuth, List<String> warnings) throws ConfigException {
        ConfigSources sources = ConfigSources.read(flags, environment, file, warnings);
        return build(sources.raw(), insecureNoAuth, sources.kafka());
    }

    private static Settings build(Map<ConfigKey, Sourced> raw, boolean insecureNoAuth, Map<String, String> kafka)
            throws ConfigException {
        String host = nonEmpty(raw, ConfigKey.SERVER_HOST);
        int port = (int) longIn(raw, ConfigKey.SERVER_PORT, 0, 65535);
        Path dataDir = path(nonEmpty(raw, ConfigKey.DATA_DIR));
        List<ApiKey> keys = ApiKeyEntries.parse(raw.get(ConfigKey.AUTH_API_KEYS));
        Optional<Settings.SignIn> signIn = SignInSettings.read(raw, host);
        long maxBody = longIn(raw, ConfigKey.LIMITS_MAX_BODY_BYTES, 1024, Integer.MAX_VALUE);
        int maxBatch = (int) longIn(raw, ConfigKey.LIMITS_MAX_BATCH_EVENTS, 1, MAX_BATCH_EVENTS);
        URI tsa = httpUrl(raw, ConfigKey.TIMESTAMP_DEFAULT_TSA_URL);
        List<String> allowed = list(raw.get(ConfigKey.TIMESTAMP_ALLOWED_TSA_URLS).value());
        for (String prefix : allowed) {
            if (!prefix.startsWith("http://") && !prefix.startsWith("https://")) {
                throw bad(ConfigKey.TIMESTAMP_ALLOWED_TSA_URLS, raw, "each entry must start with http:// or https://");
            }
        }
        List<Path> anchors = new ArrayList<>();
        for (String p : list(raw.get(ConfigKey.TIMESTAMP_TRUST_ANCHORS).value())) {
            anchors.add(path(p));
        }
        int timeout = (int) longIn(raw, ConfigKey.TIMESTAMP_TIMEOUT_MS, 1, 600_000);
        Duration verifyInterval = duration(raw, ConfigKey.VERIFY_INTERVAL);
        long segmentBytes = longIn(raw, ConfigKey.LOG_SEGMENT_BYTES, 4096, 1L << 40);
        long snapshotEvery = longIn(raw, ConfigKey.RECOVERY_SNAPSHOT_INTERVAL_EVENTS, 1, Long.MAX_VALUE);
        Duration timestampInterval = duration(raw, ConfigKey.TIMESTAMP_INTERVAL);
        int idleTimeout = (int) longIn(raw, ConfigKey.SERVER_IDLE_TIMEOUT_MS, 100, 3_600_000);
        int headerTimeout = (int) longIn(raw, ConfigKey.SERVER_HEADER_TIMEOUT_MS, 100, 3_600_000);
        int bodyTimeout = (int) longIn(raw, ConfigKey.SERVER_BODY_TIMEOUT_MS, 100, 3_600_000);
        Settings.Hardening hardening = new Settings.Hardening(
                bool(raw, ConfigKey.STORAGE_ACCEPT_TRUNCATION),
                (int) longIn(raw, ConfigKey.SERVER_MAX_CONNECTIONS, 1, 1_000_000),
                (int) longIn(raw, ConfigKey.INGEST_MAX_QUEUED_EVENTS, 1, 10_000_000),
                (int) autoOrLong(raw, ConfigKey.INDEX_RAM_BUFFER_MB, 1, 65_536),
                autoOrLong(raw, ConfigKey.LIMITS_MAX_IN_FLIGHT_BYTES, 1 << 20, 1L << 40),
                autoOrLong(raw, ConfigKey.LIMITS_MAX_IN_FLIGHT_BYTES_PER_ADDRESS, 1 << 16, 1L << 40),
                share(raw, ConfigKey.VERIFY_CPU_SHARE),
                (int) longIn(raw, ConfigKey.INDEX_CATCH_UP_WAIT_MS, 0, 600_000));
        Duration retention = duration(raw, ConfigKey.IDEMPOTENCY_RETENTION);
        if (retention.isZero() || retention.toMillis() < 1) {
            throw bad(ConfigKey.IDEMPOTENCY_RETENTION, raw, "must be a positive ISO 8601 duration such as PT24H");
        }
        Settings.Idempotency idempotency = new Settings.Idempotency(retention,
                (int) longIn(raw, ConfigKey.IDEMPOTENCY_MAX_KEYS, 1, 100_000_000));
        return new Settings(host, port, dataDir, keys, insecureNoAuth, maxBody, maxBatch, tsa, allowed, anchors,
                timeout, verifyInterval, segmentBytes, snapshotEvery, timestampInterval, idleTimeout, headerTimeout,
                bodyTimeout, hardening, streams(raw), idempotency, redaction(raw),
                checkpoints(raw), observability(raw), cluster(raw, kafka), erasure(raw), captureGapAfter(raw), gate(raw),
                frontDoor(raw), accessTrail(raw, !keys.isEmpty() || signIn.isPresent()), signIn);
    }

    /**
     * {@code server.host-names} (each a DNS name or an IP address, without scheme, port or path) and
     * {@code server.max-connections-per-address} (src/site/security.md#the-front-door).
     */
    private static Settings.FrontDoor frontDoor(Map<ConfigKey, Sourced> raw) throws ConfigException {
        List<String> names = new ArrayList<>();
        for (String name : list(raw.get(ConfigKey.SERVER_HOST_NAMES).value())) {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.startsWith("[") && n.endsWith("]")) {
                n = n.substring(1, n.length() - 1);
            }
            if (!n.matches("[a-z0-9.:_-]+") || n.startsWith(".") || n.startsWith("-")
                    || (n.contains(":") && !n.matches("[0-9a-f:.]+"))) {
                throw bad(ConfigKey.SERVER_HOST_NAMES, raw, "each entry must be a host name or an IP address without "
                        + "scheme, port or path, such as trail.example.com or 192.0.2.7 (got '" + name + "')");
            }
            names.add(n.endsWith(".") ? n.substring(0, n.length() - 1) : n);
        }
        return new Settings.FrontDoor(names,
                (int) longIn(raw, ConfigKey.SERVER_MAX_CONNECTIONS_PER_ADDRESS, 1, 1_000_000));
    }

    /** {@code capture.gap-after} (src/site/completeness.md#gaps): a positive ISO 8601 duration. */
    private static Duration captureGapAfter(Map<ConfigKey, Sourced> raw) throws ConfigException {
        Duration d = duration(raw, ConfigKey.CAPTURE_GAP_AFTER);
        if (d.isNegative() || d.toMillis() < 1) {
            throw bad(ConfigKey.CAPTURE_GAP_AFTER, raw, "must be a positive ISO 8601 duration such as PT5M");
        }
        return d;
    }

    /**
     * {@code access-trail.enabled} (src/site/sign-in.md#the-trail-of-who-looked): {@code true}, {@code false},
     * or {@code auto}, on when anyone must identify themselves (API keys or sign-in configured).
     */
    private static boolean accessTrail(Map<ConfigKey, Sourced> raw, boolean keysConfigured) throws ConfigException {
        if (raw.get(ConfigKey.ACCESS_TRAIL_ENABLED).value().equalsIgnoreCase("auto")) {
            return keysConfigured;
        }
        try {
            return bool(raw, ConfigKey.ACCESS_TRAIL_ENABLED);
        } catch (ConfigException e) {
            throw bad(ConfigKey.ACCESS_TRAIL_ENABLED, raw, "must be true, false or auto");
        }
    }

    /** {@code gate.*} (src/site/gates.md): the default decision, how long an ask waits, how long an approval holds. */
    private static Settings.Gate gate(Map<ConfigKey, Sourced> raw) throws ConfigException {
        String effect = raw.get(ConfigKey.GATE_DEFAULT).value().trim().toLowerCase(Locale.ROOT);
        if (!effect.equals("allow") && !effect.equals("ask") && !effect.equals("deny")) {
            throw bad(ConfigKey.GATE_DEFAULT, raw, "must be allow, ask or deny");
        }
        Duration ask = duration(raw, ConfigKey.GATE_ASK_TIMEOUT);
        Duration valid = duration(raw, ConfigKey.GATE_APPROVAL_VALID_FOR);
        if (ask.toMillis() < 1) {
            throw bad(ConfigKey.GATE_ASK_TIMEOUT, raw, "must be a positive ISO 8601 duration such as PT15M");
        }
        if (valid.toMillis() < 1) {
            throw bad(ConfigKey.GATE_APPROVAL_VALID_FOR, raw, "must be a positive ISO 8601 duration such as PT10M");
        }
        String file = raw.get(ConfigKey.GATE_POLICY_FILE).value().trim();
        return new Settings.Gate(effect, ask, valid, file.isEmpty() ? Optional.empty() : Optional.of(path(file)));
    }

    /**
     * {@code retention.content-after} and {@code retention.allow-short} (src/site/erasure.md#retention):
     * a period below six months is refused unless allowed explicitly (AI regulation asks that logs be
     * kept at least six months); {@code erasure.share-while-ingesting} (src/site/erasure.md#pacing).
     */
    private static Settings.Erasure erasure(Map<ConfigKey, Sourced> raw) throws ConfigException {
        boolean allowShort = bool(raw, ConfigKey.RETENTION_ALLOW_SHORT);
        double share = share(raw, ConfigKey.ERASURE_SHARE_WHILE_INGESTING);
        String v = raw.get(ConfigKey.RETENTION_CONTENT_AFTER).value().trim();
        if (v.isEmpty() || v.equalsIgnoreCase("off") || v.equalsIgnoreCase("none")) {
            return new Settings.Erasure(null, allowShort, share);
        }
        RetentionPeriod period;
        try {
            period = RetentionPeriod.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(ConfigKey.RETENTION_CONTENT_AFTER, raw, "must be 'off' or a positive ISO 8601 duration such as "
                    + "P1Y or P6M");
        }
        if (!period.atLeastSixMonths() && !allowShort) {
            throw bad(ConfigKey.RETENTION_CONTENT_AFTER, raw, "is shorter than "
                    + RetentionPeriod.SHORTEST + ": audit logs of AI systems must be kept "
                    + "at least six months (EU AI Act art. 19, 26). Set " + ConfigKey.RETENTION_ALLOW_SHORT.key()
                    + "=true to erase content earlier anyway");
        }
        return new Settings.Erasure(period, allowShort, share);
    }

    /** {@code metrics.enabled}, {@code log.format}, {@code log.access} (src/site/operations.md). */
    private static Settings.Observability observability(Map<ConfigKey, Sourced> raw) throws ConfigException {
        String format = raw.get(ConfigKey.LOG_FORMAT).value();
        if (!format.equals("text") && !format.equals("json")) {
            throw bad(ConfigKey.LOG_FORMAT, raw, "must be text or json");
        }
        return new Settings.Observability(bool(raw, ConfigKey.METRICS_ENABLED), format.equals("json"),
                bool(raw, ConfigKey.LOG_ACCESS));
    }

    /** {@code cluster.*}: checked even in the embedded mode, so a typo never waits for the switch. */
    private static Settings.Cluster cluster(Map<ConfigKey, Sourced> raw, Map<String, String> kafka) throws ConfigException {
        String mode = raw.get(ConfigKey.CLUSTER_MODE).value().toLowerCase(Locale.ROOT);
        if (!mode.equals("embedded") && !mode.equals("kafka")) {
            throw bad(ConfigKey.CLUSTER_MODE, raw, "must be embedded or kafka");
        }
        boolean on = mode.equals("kafka");
        String servers = raw.get(ConfigKey.CLUSTER_BOOTSTRAP_SERVERS).value();
        String topic = raw.get(ConfigKey.CLUSTER_TOPIC).value();
        String nodeId = raw.get(ConfigKey.CLUSTER_NODE_ID).value();
        if (!topic.matches("[A-Za-z0-9._-]{1,249}")) {
            throw bad(ConfigKey.CLUSTER_TOPIC, raw, "must be a Kafka topic name: 1 to 249 of A-Z a-z 0-9 . _ -");
        }
        if (!nodeId.isEmpty() && !nodeId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw bad(ConfigKey.CLUSTER_NODE_ID, raw, "must be 1 to 64 of A-Z a-z 0-9 . _ -");
        }
        if (on && servers.isEmpty()) {
            throw bad(ConfigKey.CLUSTER_BOOTSTRAP_SERVERS, raw, "must name the Kafka brokers (host:port,...) "
                    + "when cluster.mode=kafka");
        }
        if (on && nodeId.isEmpty()) {
            throw bad(ConfigKey.CLUSTER_NODE_ID, raw, "must name this node (unique in the cluster) when cluster.mode=kafka");
        }
        int replication = (int) longIn(raw, ConfigKey.CLUSTER_REPLICATION_FACTOR, 1, 32);
        Duration writeTimeout = duration(raw, ConfigKey.CLUSTER_WRITE_TIMEOUT);
        if (writeTimeout.toMillis() < 100) {
            throw bad(ConfigKey.CLUSTER_WRITE_TIMEOUT, raw, "must be at least 100 milliseconds, such as PT10S");
        }
        Duration readWait = duration(raw, ConfigKey.CLUSTER_READ_WAIT);
        Duration topicRetention = duration(raw, ConfigKey.CLUSTER_TOPIC_RETENTION);
        if (topicRetention.isZero()) {
            topicRetention = null;   // off: infinite retention
        } else if (topicRetention.compareTo(Settings.Cluster.MIN_TOPIC_RETENTION) < 0) {
            throw bad(ConfigKey.CLUSTER_TOPIC_RETENTION, raw, "must be 'off' or at least P7D (7 days): a node that "
                    + "falls behind the topic's start can only rejoin from a peer's backup, so the topic must keep "
                    + "records long enough to notice and restore it (src/site/cluster.md#topic-retention)");
        }
        return new Settings.Cluster(on, servers, topic, nodeId, replication, writeTimeout, readWait,
                bool(raw, ConfigKey.CLUSTER_ALLOW_UNSAFE_TOPIC), kafka, topicRetention);
    }

    /**
     * {@code redaction.*}: the rules file is read and checked here, so that a bad one stops the start
     * with the line that is wrong (src/site/redaction.md), also when redaction is off (it would fail when enabled).
     */
    private static Settings.Redaction redaction(Map<ConfigKey, Sourced> raw) throws ConfigException {
        boolean enabled = bool(raw, ConfigKey.REDACTION_ENABLED);
        String file = raw.get(ConfigKey.REDACTION_RULES).value();
        if (file.isEmpty()) {
            return new Settings.Redaction(enabled, List.of());
        }
        Path rulesFile = path(file);
        String text;
        try {
            text = Files.readString(rulesFile, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            throw bad(ConfigKey.REDACTION_RULES, raw, "cannot be read: " + e.getMessage());
        }
        try {
            return new Settings.Redaction(enabled,
                    RedactionRulesFile.parse(text, rulesFile.toString()));
        } catch (RedactionRulesFile.BadRulesException e) {
            throw bad(ConfigKey.REDACTION_RULES, raw, "holds a bad rule: " + e.getMessage());
        }
    }

    private static Settings.Checkpoints checkpoints(Map<ConfigKey, Sourced> raw) throws ConfigException {
        String origin = raw.get(ConfigKey.CHECKPOINT_ORIGIN).value();
        if (!origin.isEmpty() && !SignedNote.isValidName(origin)) {
            throw bad(ConfigKey.CHECKPOINT_ORIGIN, raw, "must be non-empty, without spaces or '+', such as "
                    + "example.com/audit (it is also the signing key's name)");
        }
        String key = raw.get(ConfigKey.CHECKPOINT_SIGNING_KEY).value();
        Duration interval = duration(raw, ConfigKey.CHECKPOINT_INTERVAL);
        if (interval.toMillis() < 1) {
            throw bad(ConfigKey.CHECKPOINT_INTERVAL, raw, "must be a positive ISO 8601 duration such as PT1S");
        }
        List<Settings.Witness> witnesses = new ArrayList<>();
        for (String entry : list(raw.get(ConfigKey.CHECKPOINT_WITNESSES).value())) {
            witnesses.add(witness(entry, raw));
        }
        return new Settings.Checkpoints(origin.isEmpty() ? Optional.empty() : Optional.of(origin),
                key.isEmpty() ? Optional.empty() : Optional.of(path(key)), interval,
                bool(raw, ConfigKey.CHECKPOINT_PUBLIC), witnesses);
    }

    // <vkey>@<URL>: the vkey (name+id+base64) holds no '@' before the URL's scheme.
    private static Settings.Witness witness(String entry, Map<ConfigKey, Sourced> raw) throws ConfigException {
        int at = entry.indexOf("@http");
        String why = "entries are <witness vkey>@<add-checkpoint URL>";
        if (at < 0) {
            throw bad(ConfigKey.CHECKPOINT_WITNESSES, raw, why);
        }
        String vkey = entry.substring(0, at);
        try {
            if (!(VerifierKey.parse(vkey) instanceof CosignatureVerifier)) {
                throw bad(ConfigKey.CHECKPOINT_WITNESSES, raw, "the witness key " + vkey
                        + " is not a cosignature v1 key (signature type 0x04)");
            }
            URI url = new URI(entry.substring(at + 1));
            if (url.getHost() == null) {
                throw bad(ConfigKey.CHECKPOINT_WITNESSES, raw, why);
            }
            return new Settings.Witness(vkey, url);
        } catch (TlogRejection e) {
            throw bad(ConfigKey.CHECKPOINT_WITNESSES, raw, e.getMessage());
        } catch (URISyntaxException e) {
            throw bad(ConfigKey.CHECKPOINT_WITNESSES, raw, why);
        }
    }

    private static Settings.Streams streams(Map<ConfigKey, Sourced> raw) throws ConfigException {
        Duration heartbeat = duration(raw, ConfigKey.STREAM_HEARTBEAT);
        if (heartbeat.isZero() || heartbeat.toMillis() < 10) {
            throw bad(ConfigKey.STREAM_HEARTBEAT, raw, "must be at least 10 milliseconds, such as PT15S");
        }
        return new Settings.Streams((int) longIn(raw, ConfigKey.STREAM_MAX_SUBSCRIBERS, 1, 1_000_000),
                (int) longIn(raw, ConfigKey.STREAM_MAX_BUFFERED_EVENTS, 1, 10_000_000), heartbeat);
    }
}
