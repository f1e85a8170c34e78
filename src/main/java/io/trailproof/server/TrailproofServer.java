package io.trailproof.server;

import io.trailproof.config.Settings;
import io.trailproof.http.HttpApi;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.store.DataDirLock;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
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

    private final DataDirLock lock;
    private final Ledger ledger;
    private final SearchIndex index;
    private final HttpApi http;
    private final ScheduledExecutorService scheduler;
    private boolean stopped;

    private TrailproofServer(DataDirLock lock, Ledger ledger, SearchIndex index, HttpApi http,
                             ScheduledExecutorService scheduler) {
        this.lock = lock;
        this.ledger = ledger;
        this.index = index;
        this.http = http;
        this.scheduler = scheduler;
    }

    /** Refuses an unsafe bind, takes the data directory, opens the ledger and starts serving. */
    public static TrailproofServer start(Settings settings, Clock clock) throws IOException, StartException {
        if (settings.apiKeys().isEmpty() && !settings.insecureNoAuth() && !isLoopback(settings.host())) {
            throw new StartException("refusing to listen on " + settings.host() + " without API keys: anyone who can "
                    + "reach it could write and read the audit trail. Configure auth.api-keys (or --api-keys), "
                    + "bind 127.0.0.1, or pass --insecure-no-auth if this network is trusted.");
        }
        DataDirLock lock = DataDirLock.acquire(settings.dataDir());
        Ledger ledger = null;
        SearchIndex index = null;
        try {
            ledger = Ledger.open(settings.dataDir(),
                    new Ledger.Options(settings.logSegmentBytes(), settings.checkpointIntervalEvents()),
                    clock, new SecureRandom());
            index = SearchIndex.open(settings.dataDir(), ledger, clock);
            HttpApi http = new HttpApi(settings.host(), settings.port(), ledger, index, settings.maxBodyBytes(),
                    settings.maxBatchEvents());
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "trailproof-verify");
                t.setDaemon(true);
                return t;
            });
            TrailproofServer server = new TrailproofServer(lock, ledger, index, http, scheduler);
            http.start();
            server.scheduleVerification(settings);
            return server;
        } catch (IOException | RuntimeException e) {
            if (index != null) {
                index.close();
            }
            if (ledger != null) {
                ledger.close();
            }
            lock.close();
            throw e;
        }
    }

    private void scheduleVerification(Settings settings) {
        Runnable verifyAll = () -> {
            try {
                long started = System.nanoTime();
                long valid = ledger.verifyAll();
                LOG.log(System.Logger.Level.INFO, "re-verified every chain: " + valid + " of " + ledger.agents().size()
                        + " valid (" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms)");
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
        scheduler.shutdownNow();
        try {
            index.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the search index failed (it is rebuilt from the log at the next start): " + e);
        }
        try {
            ledger.close();
        } finally {
            lock.close();
        }
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
