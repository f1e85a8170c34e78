package io.trailproof.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.HeldWork;
import io.trailproof.capture.CaptureTracker;
import io.trailproof.capture.GapReporter;
import io.trailproof.checkpoint.CheckpointService;
import io.trailproof.cluster.AnswerSpec;
import io.trailproof.checkpoint.WitnessClient;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.cluster.TopicGuard;
import io.trailproof.config.Settings;
import io.trailproof.erasure.ErasureService;
import io.trailproof.erasure.RetentionSchedule;
import io.trailproof.http.HttpApi;
import io.trailproof.http.RecordedAnswers;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.ReplicaOutcome;
import io.trailproof.metrics.ServiceMetrics;
import io.trailproof.signin.ProviderUnusable;
import io.trailproof.signin.SignIn;
import io.trailproof.store.DataDirLock;
import io.trailproof.timestamp.LogTimestampStore;
import io.trailproof.timestamp.TimestampScheduler;
import io.trailproof.timestamp.TimestampService;
import io.trailproof.timestamp.TimestampStore;
import io.trailproof.timestamp.TrustAnchors;
import io.trailproof.timestamp.TsaClient;
import io.trailproof.timestamp.TsaUrlPolicy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The running service: owns the data directory lock, the ledger, the HTTP API and the background
 * work. The composition root; no rules live here.
 *
 * <p>{@link #start} opens the parts in a fixed order, each in a field as soon as it is open, so that
 * {@link #close} closes whatever a failed start had opened as it closes a running service.
 */
public final class TrailproofServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TrailproofServer.class.getName());
    /** First retry of a failed scheduled timestamp; doubles up to timestamp.interval. */
    private static final Duration TIMESTAMP_FIRST_RETRY = Duration.ofSeconds(10);
    /** The longest the loads left to after the start are held back when the start does not release them. */
    private static final Duration AFTER_START_HOLD_LIMIT = Duration.ofSeconds(10);

    private final Settings settings;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final DataDirLock lock;
    /**
     * The loads that grow with the log (src/site/operations.md#start-up), the ledger's and the search
     * index's, held until the listener is bound, so that they do not take the start's CPU.
     */
    private final HeldWork afterStart = new HeldWork(AFTER_START_HOLD_LIMIT);
    /** Sign-in of people; null when auth.oidc.issuer is not set. */
    private final SignIn signIn;
    // Null until opened, in this order.
    private TimestampStore timestampStore;
    private Ledger ledger;
    /** This node's part in a cluster (cluster mode only). */
    private ClusterNode cluster;
    private SearchIndex index;
    private Checkpointing checkpointing;
    /** Null when metrics.enabled is false. */
    private ServiceMetrics metrics;
    /** Set once listening. */
    private HttpApi http;
    private ChainVerification verification;
    /** Scheduled timestamps of a single node; in cluster mode the node leading the scheduled work runs its own. */
    private TimestampScheduler stamper;
    /** Retention passes (src/site/erasure.md#retention), only when retention.content-after is set. */
    private RetentionSchedule retention;
    /** GAP events for holes in capture streams (src/site/completeness.md#gaps). */
    private GapReporter gaps;
    private boolean stopped;

    private TrailproofServer(Settings settings, Clock clock, DataDirLock lock, SignIn signIn) {
        this.settings = settings;
        this.clock = clock;
        this.lock = lock;
        this.signIn = signIn;
    }

    /** Refuses an unsafe configuration, takes the data directory, opens the ledger and starts serving. */
    public static TrailproofServer start(Settings settings, Clock clock) throws IOException, StartException {
        prepareListenerBeside();
        // Checked before the data directory is touched: a refused start changes nothing.
        TimestampTrust trust = checkConfiguration(settings);
        SignIn signIn = signIn(settings, clock);
        TrailproofServer server = new TrailproofServer(settings, clock, DataDirLock.acquire(settings.dataDir()), signIn);
        try {
            server.openAndStart(trust);
            return server;
        } catch (IOException | RuntimeException | StartException e) {
            try {
                server.close();
            } catch (IOException | RuntimeException c) {
                e.addSuppressed(c);
            }
            throw e;
        }
    }

    /**
     * The HTTP stack's I/O library is initialized on a thread of its own while this one opens the
     * ledger and the index: it depends on neither, and the listener needs it only at the end of the
     * start (whose listener start reports a failure of it).
     */
    private static void prepareListenerBeside() {
        Thread preparing = new Thread(() -> {
            try {
                HttpApi.prepareListener();
            } catch (RuntimeException reportedByTheListenersStart) {
            }
        }, "trailproof-http-prepare");
        preparing.setDaemon(true);
        preparing.start();
    }

    /**
     * The start order: every part is opened and wired before any background work runs or anything is
     * served.
     */
    private void openAndStart(TimestampTrust trust) throws IOException, StartException {
        openLedger();
        // Before the cluster node: its apply loop keeps the replicated cosignatures.
        checkpointing = Checkpointing.open(settings, ledger, random);
        joinCluster();
        // After the cluster node: in cluster mode timestamps are published through the topic.
        TimestampService timestamps = timestamps(trust);
        index = SearchIndex.open(settings.dataDir(), ledger, clock, settings.hardening().indexRamBufferMb(), afterStart)
                .answeringPartiallyAfter(Duration.ofMillis(settings.hardening().indexCatchUpWaitMs()));
        // After the cluster node: in cluster mode the witnesses' cosignatures reach the other nodes through it.
        checkpointing.addWitnesses(clock, cluster);
        if (settings.observability().metricsEnabled()) {
            metrics = new ServiceMetrics();
            observe(timestamps);
        }
        ErasureService erasures = completeInterruptedErasures();
        HttpApi api = new HttpApi(settings, ledger, index, timestamps, checkpointing.service(),
                checkpointing.tiles(), metrics, cluster, clock, erasures, signIn);
        if (cluster != null) {
            leadScheduledWork(timestamps);
        }
        startBackgroundWorkAndServe(api, timestamps, erasures);
    }

    /** The timestamp store, then the ledger: this node's own log, or in cluster mode a replica of the topic. */
    private void openLedger() throws IOException {
        LedgerOptions options = new LedgerOptions(settings.logSegmentBytes(), settings.snapshotIntervalEvents(),
                settings.hardening().acceptTruncation(), settings.hardening().maxQueuedEvents(),
                settings.idempotency().retention(), settings.idempotency().maxKeys(),
                settings.redaction().redactor());
        timestampStore = LogTimestampStore.open(settings.dataDir().resolve("timestamps"));
        // Cluster mode: the topic is the source of order; this node's log is a replica of it.
        ledger = settings.cluster().kafka() ? Ledger.openReplica(settings.dataDir(), options, clock, afterStart)
                : Ledger.open(settings.dataDir(), options, clock, random, afterStart);
    }

    /** Cluster mode: checks the topic and starts this node's apply loop. */
    private void joinCluster() throws StartException {
        if (!settings.cluster().kafka()) {
            return;
        }
        try {
            cluster = ClusterNode.start(settings.cluster(), ledger, settings.redaction().redactor(),
                    new RecordedAnswers(), maxRecordBytes(settings), timestampStore::appendOnce,
                    checkpointing.cosignatures()::adopt);
        } catch (TopicGuard.TopicRefused e) {
            throw new StartException(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartException("interrupted while checking the Kafka topic");
        }
    }

    private TimestampService timestamps(TimestampTrust trust) {
        TimestampService timestamps = new TimestampService(ledger, timestampStore,
                new TsaClient(Duration.ofMillis(settings.timestampTimeoutMs())), trust.urls(), settings.defaultTsaUrl(),
                trust.anchors(), clock, random);
        if (cluster != null) {
            timestamps.publishThrough(cluster::publishTimestamp);   // stored on every node by its apply loop
        }
        return timestamps;
    }

    /**
     * An erasure a crash interrupted is finished before anything is served (src/site/erasure.md). One
     * service: erasures (requests and retention passes) run one at a time.
     */
    private ErasureService completeInterruptedErasures() throws IOException {
        ErasureService erasures = new ErasureService(ledger, index, settings.erasure().shareWhileIngesting());
        if (ledger.erasures().interrupted() >= 0) {
            // Finishing it reads the erased events' agents, whose positions load after the start, and
            // has the index's follower, also started after the start, replace their documents.
            afterStart.release();
        }
        erasures.completeInterrupted();
        if (cluster != null) {   // erasures go through the topic; this node's apply loop finishes them here
            erasures.replicateThrough(cluster::publishErasure, cluster::awaitTopicEnd);
            cluster.completeErasuresWith(erasures::completeReplicated);
        }
        ledger.erasures().probe(PausingProbe.fromSystemProperty());
        return erasures;
    }

    /**
     * Cluster mode: one node at a time stamps on schedule and asks the witnesses, the one Kafka's group
     * assigns the coordination partition.
     */
    private void leadScheduledWork(TimestampService timestamps) throws StartException {
        Duration interval = settings.timestampInterval();
        List<WitnessClient> asked = checkpointing.witnesses();
        if (interval.isZero() && asked.isEmpty()) {
            return;
        }
        AtomicReference<TimestampScheduler> leading = new AtomicReference<>();
        try {
            cluster.leadScheduledWork(() -> {
                if (!interval.isZero()) {
                    TimestampScheduler s = new TimestampScheduler(timestamps, ledger::size, interval,
                            TIMESTAMP_FIRST_RETRY, clock);
                    leading.set(s);
                    s.start();
                }
                asked.forEach(WitnessClient::resume);
            }, () -> {
                asked.forEach(WitnessClient::pause);
                TimestampScheduler s = leading.getAndSet(null);
                if (s != null) {
                    s.close();
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartException("interrupted while joining the cluster's scheduler group");
        }
    }

    /**
     * Checkpoint signing first (a fresh log gets its size-0 checkpoint), then the listener, then the
     * ledger's loads left to after the start, the chain re-verification, the scheduled timestamps and
     * the retention passes.
     */
    private void startBackgroundWorkAndServe(HttpApi api, TimestampService timestamps, ErasureService erasures)
            throws IOException {
        checkpointing.start();
        api.start();
        http = api;
        afterStart.release();
        verification = ChainVerification.start(settings, ledger, metrics, clock);
        if (!settings.timestampInterval().isZero() && cluster == null) {
            stamper = new TimestampScheduler(timestamps, ledger::size, settings.timestampInterval(),
                    TIMESTAMP_FIRST_RETRY, clock);
            stamper.start();
        }
        startGapReports();
        if (settings.erasure().contentAfter() != null) {
            retention = new RetentionSchedule(erasures, settings.erasure().contentAfter(), clock);
            if (cluster != null) {
                retention.startWhileLeading(cluster::leadScheduledWork);   // one pass for the cluster
            } else {
                retention.start();
            }
        }
    }

    /**
     * Follows the capture streams of the log (from its snapshot and the log after it) and records
     * their gaps; in cluster mode every node follows, and the node that runs the cluster's scheduled
     * work reports, through the topic like any write.
     */
    private void startGapReports() throws IOException {
        CaptureTracker tracker = CaptureTracker.open(settings.dataDir(), ledger);
        gaps = new GapReporter(tracker, this::appendServiceEvent, clock, settings.captureGapAfter());
        if (cluster != null) {
            gaps.startWhileLeading(cluster::leadScheduledWork);
        } else {
            gaps.start();
        }
    }

    /** Stores an event the service itself records, durably: in the ledger, or through the topic in cluster mode. */
    private void appendServiceEvent(ObjectNode event) throws IOException {
        if (cluster == null) {
            AppendOutcome o = ledger.append(List.of(event)).get(0);
            if (!o.ok()) {
                throw new IOException("the service's own event was refused: " + o.error());
            }
            return;
        }
        try {
            ReplicaOutcome outcome = cluster.submit(List.of(event), null, new AnswerSpec.Single())
                    .get(ClusterNode.ERASURE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (outcome instanceof ReplicaOutcome.Stored s && !s.outcomes().get(0).ok()) {
                throw new IOException("the service's own event was refused: " + s.outcomes().get(0).error());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the service's own event", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("writing the service's own event through the topic failed: " + e, e);
        }
    }

    /**
     * Wires the metrics (src/site/operations.md) to what the lower layers already keep, read at scrape time, and
     * to their outcome observers; none of it runs per event.
     */
    private void observe(TimestampService timestamps) {
        CheckpointService checkpoints = checkpointing.service();
        long sizeAtStart = ledger.size();
        metrics.counter("trailproof_events_ingested_total", "Events stored and acknowledged since this process started",
                () -> ledger.size() - sizeAtStart);
        metrics.counter("trailproof_searches_cancelled_total", "Searches stopped because their client closed the "
                + "connection before the answer", index::searchesCancelled);
        metrics.gauge("trailproof_tree_size", "Events in the Merkle tree (readable, durable)", ledger::size);
        metrics.gauge("trailproof_index_lag_events", "Events stored but not yet searchable",
                () -> Math.max(0, ledger.size() - index.status().indexed()));
        metrics.gauge("trailproof_log_writable", "1 while the ledger accepts writes, 0 after a storage failure stopped them",
                () -> ledger.failed() ? 0 : 1);
        metrics.gauge("trailproof_health_problems", "Problems GET /health lists now (0 when its status is ok)",
                () -> ledger.health().problems().size() + checkpoints.problems().size());
        metrics.gauge("trailproof_checkpoint_size", "Tree size of the latest signed checkpoint (-1 before the first)",
                () -> checkpoints.latest().map(c -> c.size()).orElse(-1L));
        ledger.observeForces(metrics::logForced);
        timestamps.onOutcome(metrics::timestamp);
        checkpointing.scheduler().onOutcome(metrics::checkpoint);
        for (WitnessClient w : checkpointing.witnesses()) {
            String name = w.name();
            metrics.witnessConfigured(name);
            w.onOutcome(ok -> metrics.witness(name, ok));
        }
    }

    public int port() {
        return http.port();
    }

    public Ledger ledger() {
        return ledger;
    }

    public SearchIndex searchIndex() {
        return index;
    }

    /** Requests the HTTP listener has taken in (their head read) and not yet answered: what a stop waits for. */
    public long requestsInFlight() {
        return http.requestsInFlight();
    }

    /**
     * Stops accepting, finishes requests in flight, forces and checkpoints the log, releases the directory.
     * After a failed start, closes what it had opened, in the same order.
     */
    @Override
    public synchronized void close() throws IOException {
        if (stopped) {
            return;
        }
        stopped = true;
        if (http != null) {
            try {
                http.stop(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (retention != null) {
            retention.close();
        }
        if (gaps != null) {
            try {
                gaps.close();   // writes the capture state's snapshot
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "writing the capture state failed (it is rebuilt from the log at the next start): " + e);
            }
        }
        if (verification != null) {
            verification.close();
        }
        if (stamper != null) {
            stamper.close();
        }
        if (checkpointing != null) {
            checkpointing.close();   // stops signing, then asking the witnesses
        }
        if (cluster != null) {
            cluster.close();   // stops applying before the index and the ledger close
        }
        try {
            if (index != null) {
                index.close();
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the search index failed (it is rebuilt from the log at the next start): " + e);
        }
        try {
            if (timestampStore != null) {
                timestampStore.close();
            }
        } finally {
            try {
                if (ledger != null) {
                    ledger.close();
                }
            } finally {
                lock.close();
            }
        }
    }

    /**
     * Refuses a configuration the service must not run with, before anything is opened, and reads the
     * timestamp trust configuration (its files may be wrong too).
     */
    private static TimestampTrust checkConfiguration(Settings settings) throws StartException {
        if (settings.apiKeys().isEmpty() && !settings.insecureNoAuth() && !isLoopback(settings.host())) {
            throw new StartException("refusing to listen on " + settings.host() + " without API keys: anyone who can "
                    + "reach it could write and read the audit trail. Configure auth.api-keys (or --api-keys), "
                    + "bind 127.0.0.1, or pass --insecure-no-auth if this network is trusted.");
        }
        TimestampTrust trust;
        try {
            trust = new TimestampTrust(TrustAnchors.jdkPlusOnFirstUse(settings.trustAnchors()),
                    new TsaUrlPolicy(settings.allowedTsaUrls(), settings.defaultTsaUrl()));
        } catch (IOException | IllegalArgumentException e) {
            throw new StartException("timestamp configuration: " + e.getMessage());
        }
        if (settings.apiKeys().isEmpty() && !isLoopback(settings.host())) {
            LOG.log(System.Logger.Level.WARNING, "listening on " + settings.host() + " without API keys "
                    + "(--insecure-no-auth): anyone who can reach this port can write and read the audit trail");
        }
        return trust;
    }

    /**
     * Discovers the OpenID Connect provider when sign-in is configured, before anything is opened: a
     * provider that cannot be used stops the start with a message naming auth.oidc.issuer.
     */
    private static SignIn signIn(Settings settings, Clock clock) throws StartException {
        if (settings.signIn().isEmpty()) {
            return null;
        }
        Settings.SignIn s = settings.signIn().get();
        try {
            return SignIn.start(s, clock, new SecureRandom());
        } catch (ProviderUnusable e) {
            throw new StartException("auth.oidc.issuer = " + s.issuer() + " cannot be used for sign-in: " + e.getMessage()
                    + ". Check the issuer URL (its /.well-known/openid-configuration must answer) and that this host "
                    + "can reach the provider");
        }
    }

    /**
     * The largest record a request can make: a body of limits.max-body-bytes, which redaction may
     * lengthen and the record's envelope grows; the topic and the producer must take it.
     */
    private static int maxRecordBytes(Settings settings) {
        return (int) Math.min(Integer.MAX_VALUE - 1024, settings.maxBodyBytes() * 2 + (1 << 20));
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The trust anchors and the allowed TSA URLs (src/site/timestamps.md#verification). */
    private record TimestampTrust(Supplier<List<X509Certificate>> anchors, TsaUrlPolicy urls) {
    }

    /** The service cannot start with this configuration; the message says why and what to do. */
    public static final class StartException extends Exception {
        public StartException(String message) {
            super(message);
        }
    }
}
