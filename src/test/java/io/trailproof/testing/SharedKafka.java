package io.trailproof.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One in-process Kafka cluster for the test classes of the test JVM that ask for it: a
 * {@link KafkaTestCluster} parameter of a test or {@code @BeforeAll} method of a class extended with
 * this. Started when a class first asks for it (a class asking meanwhile waits for it) and closed
 * {@link #LINGER} after the last class that asked ends, unless another class asks meanwhile: classes
 * that run side by side or one after another ({@link RunOrder#SHARED_KAFKA}) share one start and one
 * cluster's four nodes, and no cluster idles through the rest of the run; a class that asks after it
 * was closed starts it again. One still open when the test JVM exits is closed then.
 *
 * <p>Classes share it safely: each names its topics with {@link KafkaTestCluster#newTopic}, so no
 * test sees another's records, scheduler group or retention, and the shared cluster refuses to stop
 * a broker or to be closed by a test (src/site/testing.md#kafka-for-the-cluster-tests).
 */
public final class SharedKafka implements ParameterResolver, AfterAllCallback {

    /**
     * How long the cluster stays up after the last class using it ended: long enough for the next class
     * of the same worker to ask for it (milliseconds later), short against a start of some seconds.
     */
    static final Duration LINGER = Duration.ofSeconds(10);

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafka.class);
    private static final Object LOCK = new Object();
    private static final ScheduledExecutorService CLOSER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "shared-kafka-closer");
        t.setDaemon(true);
        return t;
    });
    /** The running cluster, or null; guarded by {@link #LOCK}. */
    private static KafkaTestCluster cluster;
    /** The classes running that asked for it; guarded by {@link #LOCK}. */
    private static int users;
    /** The close that waits out {@link #LINGER}, or null; guarded by {@link #LOCK}. */
    private static ScheduledFuture<?> closing;
    /** Whether the exit hook that closes a cluster still open is registered; guarded by {@link #LOCK}. */
    private static boolean hooked;

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaTestCluster.class;
    }

    /** The shared cluster, started if none runs; the class asking uses it until it ends. */
    @Override
    public KafkaTestCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store classStore = classContext(context).getStore(NAMESPACE);
        synchronized (LOCK) {
            if (closing != null) {
                closing.cancel(false);   // a close already running finds a user and leaves the cluster up
                closing = null;
            }
            if (!hooked) {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> close(true), "shared-kafka-exit"));
                hooked = true;
            }
            if (cluster == null) {
                try {
                    long t0 = System.nanoTime();
                    cluster = KafkaTestCluster.startShared();
                    System.out.println("shared Kafka cluster started in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
                } catch (Exception e) {
                    throw new ParameterResolutionException("the shared Kafka cluster did not start", e);
                }
            }
            if (classStore.get(SharedKafka.class) == null) {
                classStore.put(SharedKafka.class, Boolean.TRUE);   // this class is a user until it ends
                users++;
            }
            return cluster;
        }
    }

    /** When the last class that asked for the cluster ends, closes it {@link #LINGER} later if none asked since. */
    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getStore(NAMESPACE).remove(SharedKafka.class) == null) {
            return;   // this class never asked for it
        }
        synchronized (LOCK) {
            if (--users == 0) {
                closing = CLOSER.schedule(() -> close(false), LINGER.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Closes the cluster if no class uses it (or, at {@code exit}, in any case). */
    private static void close(boolean exit) {
        synchronized (LOCK) {
            if (cluster == null || users > 0 && !exit) {
                return;
            }
            KafkaTestCluster open = cluster;
            cluster = null;
            closing = null;
            try {
                open.closeShared();
                System.out.println(exit ? "shared Kafka cluster closed as the test JVM exits"
                        : "shared Kafka cluster closed: no class has used it for " + LINGER.toSeconds() + " s");
            } catch (Exception e) {
                System.out.println("shared Kafka cluster: close failed: " + e);
            }
        }
    }

    /** The context of the test class: {@code context} itself for a {@code @BeforeAll} method, its parent for a test. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }
}
