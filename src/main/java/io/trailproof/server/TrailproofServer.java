package io.trailproof.server;

import io.trailproof.checkpoint.CheckpointKeys;
import io.trailproof.checkpoint.ClusterCosignatures;
import io.trailproof.checkpoint.CheckpointScheduler;
import io.trailproof.checkpoint.CheckpointService;
import io.trailproof.checkpoint.LedgerTree;
import io.trailproof.checkpoint.Tiles;
import io.trailproof.checkpoint.WitnessClient;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.erasure.ErasureService;
import io.trailproof.erasure.RetentionSchedule;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.config.Settings;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.http.HttpApi;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.ledger.Pacer;
import io.trailproof.metrics.ServiceMetrics;
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
import java.time.Duration;
import java.util.List;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The running service: owns the data directory lock, the ledger, the HTTP API and the background
 * re-verification. The composition root; no rules live here.
 */
public final class TrailproofServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TrailproofServer.class.getName());
    /** First retry of a failed scheduled timestamp; doubles up to timestamp.interval. */
    private static final Duration TIMESTAMP_FIRST_RETRY = Duration.ofSeconds(10);

    private final DataDirLock lock;
    private final Ledger ledger;
    private final SearchIndex index;
    private final HttpApi http;
    private final ScheduledExecutorService scheduler;
    private final TimestampStore timestampStore;
    private final TimestampScheduler stamper;
    private final CheckpointScheduler checkpointing;
    private final List<WitnessClient> witnesses;
    /** Null when metrics.enabled is false. */
    private final ServiceMetrics metrics;
    /** This node's part in a cluster (cluster mode), or null. */
    private final io.trailproof.cluster.ClusterNode cluster;
    private boolean stopped;
    /** Retention passes (src/site/erasure.md#retention), or null when retention.content-after is off. */
    private RetentionSchedule retention;

    private TrailproofServer(DataDirLock lock, Ledger ledger, SearchIndex index, HttpApi http,
                             ScheduledExecutorService scheduler, TimestampStore timestampStore,
                             TimestampScheduler stamper, CheckpointScheduler checkpointing,
                             List<WitnessClient> witnesses, ServiceMetrics metrics,
                             io.trailproof.cluster.ClusterNode cluster) {
        this.metrics = metrics;
        this.cluster = cluster;
        this.checkpointing = checkpointing;
        this.witnesses = List.copyOf(witnesses);
        this.lock = lock;
        this.ledger = ledger;
        this.index = index;
        this.http = http;
        this.scheduler = scheduler;
        this.timestampStore = timestampStore;
        this.stamper = stamper;
    }

    /** Refuses an unsafe bind, takes the data directory, opens the ledger and starts serving. */
    public static TrailproofServer start(Settings settings, Clock clock) throws IOException, StartException {
        if (settings.apiKeys().isEmpty() && !settings.insecureNoAuth() && !isLoopback(settings.host())) {
            throw new StartException("refusing to listen on " + settings.host() + " without API keys: anyone who can "
                    + "reach it could write and read the audit trail. Configure auth.api-keys (or --api-keys), "
                    + "bind 127.0.0.1, or pass --insecure-no-auth if this network is trusted.");
        }
        List<X509Certificate> anchors;
        TsaUrlPolicy tsaUrls;
        try {
            anchors = TrustAnchors.jdkPlus(settings.trustAnchors());
            tsaUrls = new TsaUrlPolicy(settings.allowedTsaUrls());
        } catch (IOException | IllegalArgumentException e) {
            throw new StartException("timestamp configuration: " + e.getMessage());
        }
        if (settings.apiKeys().isEmpty() && !isLoopback(settings.host())) {
            LOG.log(System.Logger.Level.WARNING, "listening on " + settings.host() + " without API keys "
                    + "(--insecure-no-auth): anyone who can reach this port can write and read the audit trail");
        }
        DataDirLock lock = DataDirLock.acquire(settings.dataDir());
        Ledger ledger = null;
        TimestampStore timestampStore = null;
        SearchIndex index = null;
        CheckpointScheduler checkpointing = null;
        List<WitnessClient> witnesses = new java.util.ArrayList<>();
        io.trailproof.cluster.ClusterNode cluster = null;
        try {
            SecureRandom random = new SecureRandom();
            LedgerOptions options = new LedgerOptions(settings.logSegmentBytes(), settings.checkpointIntervalEvents(),
                    settings.hardening().acceptTruncation(), settings.hardening().maxQueuedEvents(),
                    settings.idempotency().retention(), settings.idempotency().maxKeys(),
                    settings.redaction().redactor());
            timestampStore = LogTimestampStore.open(settings.dataDir().resolve("timestamps"));
            // Cluster mode: the topic is the source of order; this node's log is a replica of it.
            ledger = settings.cluster().kafka() ? Ledger.openReplica(settings.dataDir(), options, clock)
                    : Ledger.open(settings.dataDir(), options, clock, random);
            // The checkpoints before the cluster node: its apply loop keeps the replicated cosignatures.
            Settings.Checkpoints cps = settings.checkpoints();
            NoteSigner signer;
            List<io.trailproof.core.note.NoteVerifier> witnessKeys = new java.util.ArrayList<>();
            try {
                signer = CheckpointKeys.loadOrCreate(settings.dataDir(), cps.signingKey(), cps.origin(), random);
                for (Settings.Witness w : cps.witnesses()) {
                    witnessKeys.add(VerifierKey.parse(w.vkey()));
                }
            } catch (IllegalArgumentException e) {
                throw new StartException(e.getMessage());
            } catch (TlogRejection e) {
                throw new StartException("checkpoint.witnesses: " + e.getMessage());
            }
            LedgerTree tree = new LedgerTree(ledger);
            CheckpointService checkpoints = CheckpointService.open(settings.dataDir(), signer, tree);
            if (settings.cluster().kafka()) {
                try {
                    cluster = io.trailproof.cluster.ClusterNode.start(settings.cluster(), ledger,
                            settings.redaction().redactor(), new io.trailproof.http.RecordedAnswers(),
                            maxRecordBytes(settings), timestampStore::appendOnce,
                            new ClusterCosignatures(checkpoints, witnessKeys)::adopt);
                } catch (io.trailproof.cluster.TopicGuard.TopicRefused e) {
                    throw new StartException(e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StartException("interrupted while checking the Kafka topic");
                }
            }
            TimestampService timestamps = new TimestampService(ledger, timestampStore,
                    new TsaClient(Duration.ofMillis(settings.timestampTimeoutMs())), tsaUrls, settings.defaultTsaUrl(),
                    anchors, clock, random);
            if (cluster != null) {
                timestamps.publishThrough(cluster::publishTimestamp);   // stored on every node by its apply loop
            }
            index = SearchIndex.open(settings.dataDir(), ledger, clock, settings.hardening().indexRamBufferMb());
            for (int i = 0; i < cps.witnesses().size(); i++) {
                WitnessClient client = new WitnessClient(witnessKeys.get(i), cps.witnesses().get(i).addCheckpointUrl(),
                        checkpoints, tree, clock, settings.dataDir());
                if (cluster != null) {
                    // asked by the node running the scheduled work only; its cosignatures reach every node
                    io.trailproof.cluster.ClusterNode node = cluster;
                    client.joinCluster((cp, sig) -> node.publishCosignature(cp.checkpoint(), sig));
                }
                witnesses.add(client);
                checkpoints.onSigned(c -> client.checkpointSigned());
                checkpoints.addProblemSource(client::problem);
            }
            checkpointing = new CheckpointScheduler(checkpoints, cps.interval());
            ServiceMetrics metrics = settings.observability().metricsEnabled() ? new ServiceMetrics() : null;
            if (metrics != null) {
                observe(metrics, ledger, index, timestamps, checkpoints, checkpointing, witnesses);
            }
            // An erasure a crash interrupted is finished before anything is served (src/site/erasure.md).
            // One service: erasures (requests and retention passes) run one at a time.
            ErasureService erasures = new ErasureService(ledger, index);
            erasures.completeInterrupted();
            if (cluster != null) {   // erasures go through the topic; this node's apply loop finishes them here
                erasures.replicateThrough(cluster::publishErasure, cluster::awaitTopicEnd);
                cluster.completeErasuresWith(erasures::completeReplicated);
            }
            ledger.probeErasures(PausingProbe.fromSystemProperty());
            HttpApi http = new HttpApi(settings, ledger, index, timestamps, checkpoints, new Tiles(tree, checkpoints),
                    metrics, cluster, clock, erasures);
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "trailproof-verify");
                t.setDaemon(true);
                return t;
            });
            if (cluster != null && (!settings.timestampInterval().isZero() || !witnesses.isEmpty())) {
                // One node at a time stamps on schedule and asks the witnesses: the one Kafka's group assigns
                // the coordination partition.
                java.util.concurrent.atomic.AtomicReference<TimestampScheduler> leading = new java.util.concurrent.atomic.AtomicReference<>();
                java.util.function.LongSupplier treeSize = ledger::size;
                try {
                    List<WitnessClient> asked = List.copyOf(witnesses);
                    cluster.leadScheduledWork(() -> {
                        if (!settings.timestampInterval().isZero()) {
                            TimestampScheduler s = new TimestampScheduler(timestamps, treeSize,
                                    settings.timestampInterval(), TIMESTAMP_FIRST_RETRY, clock);
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
            TimestampScheduler stamper = settings.timestampInterval().isZero() || cluster != null ? null
                    : new TimestampScheduler(timestamps, ledger::size, settings.timestampInterval(),
                            TIMESTAMP_FIRST_RETRY, clock);
            TrailproofServer server = new TrailproofServer(lock, ledger, index, http, scheduler, timestampStore,
                    stamper, checkpointing, witnesses, metrics, cluster);
            checkpointing.start();
            // The latest checkpoint may lack a cosignature from before a restart: ask once now.
            witnesses.forEach(WitnessClient::checkpointSigned);
            http.start();
            server.scheduleVerification(settings, clock);
            if (stamper != null) {
                stamper.start();
            }
            if (settings.retention().contentAfter() != null) {
                server.retention = new RetentionSchedule(erasures, settings.retention().contentAfter(), clock);
                if (cluster != null) {
                    server.retention.startWhileLeading(cluster::leadScheduledWork);   // one pass for the cluster
                } else {
                    server.retention.start();
                }
            }
            return server;
        } catch (IOException | RuntimeException | StartException e) {
            if (checkpointing != null) {
                checkpointing.close();
            }
            witnesses.forEach(WitnessClient::close);
            if (cluster != null) {
                cluster.close();
            }
            if (index != null) {
                index.close();
            }
            if (timestampStore != null) {
                timestampStore.close();
            }
            if (ledger != null) {
                ledger.close();
            }
            lock.close();
            throw e;
        }
    }

    /**
     * Wires the metrics (src/site/operations.md) to what the lower layers already keep, read at scrape time, and
     * to their outcome observers; none of it runs per event.
     */
    private static void observe(ServiceMetrics metrics, Ledger ledger, SearchIndex index, TimestampService timestamps,
                                CheckpointService checkpoints, CheckpointScheduler checkpointing,
                                List<WitnessClient> witnesses) {
        long sizeAtStart = ledger.size();
        metrics.counter("trailproof_events_ingested_total", "Events stored and acknowledged since this process started",
                () -> ledger.size() - sizeAtStart);
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
        checkpointing.onOutcome(metrics::checkpoint);
        for (WitnessClient w : witnesses) {
            String name = w.name();
            metrics.witnessConfigured(name);
            w.onOutcome(ok -> metrics.witness(name, ok));
        }
    }

    private void scheduleVerification(Settings settings, Clock clock) {
        Runnable verifyAll = () -> {
            try {
                long started = System.nanoTime();
                long valid = ledger.verifyAll(new Pacer(settings.hardening().verifyCpuShare(), System::nanoTime,
                        nanos -> TimeUnit.NANOSECONDS.sleep(nanos)));
                long agents = ledger.agents().size();
                if (metrics != null) {
                    metrics.verified(Math.max(0, agents - valid), clock.millis());
                }
                LOG.log(System.Logger.Level.INFO, "re-verified every chain: " + valid + " of " + agents
                        + " valid (" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms)");
            } catch (java.io.InterruptedIOException e) {
                // the service is stopping: the next start verifies again
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "chain re-verification failed: " + e);
            }
        };
        long interval = settings.verifyInterval().toMillis();
        if (interval > 0) {
            scheduler.scheduleWithFixedDelay(verifyAll, 0, interval, TimeUnit.MILLISECONDS);
        } else {
            scheduler.execute(verifyAll);
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

    /** Stops accepting, finishes requests in flight, forces and checkpoints the log, releases the directory. */
    @Override
    public synchronized void close() throws IOException {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            http.stop(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (retention != null) {
            retention.close();
        }
        scheduler.shutdownNow();
        if (stamper != null) {
            stamper.close();
        }
        checkpointing.close();
        witnesses.forEach(WitnessClient::close);
        if (cluster != null) {
            cluster.close();   // stops applying before the index and the ledger close
        }
        try {
            index.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the search index failed (it is rebuilt from the log at the next start): " + e);
        }
        try {
            timestampStore.close();
        } finally {
            try {
                ledger.close();
            } finally {
                lock.close();
            }
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

    /** The service cannot start with this configuration; the message says why and what to do. */
    public static final class StartException extends Exception {
        public StartException(String message) {
            super(message);
        }
    }
}
