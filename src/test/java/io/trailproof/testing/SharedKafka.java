package io.trailproof.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One in-process Kafka cluster for the test classes of the test JVM that ask for it: a
 * {@link KafkaTestCluster} parameter of a test or {@code @BeforeAll} method of a class extended with
 * this. Started when a class first asks for it (a class asking meanwhile waits for it) and closed
 * when the last class that asked ends, so classes that run side by side share one start and one
 * cluster's four nodes, and no cluster idles through the rest of the run; a class that asks after it
 * was closed starts it again.
 *
 * <p>Classes share it safely: each names its topics with {@link KafkaTestCluster#newTopic}, so no
 * test sees another's records, scheduler group or retention, and the shared cluster refuses to stop
 * a broker or to be closed by a test (src/site/testing.md#kafka-for-the-cluster-tests).
 */
public final class SharedKafka implements ParameterResolver, AfterAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafka.class);
    private static final Object LOCK = new Object();
    /** The running cluster, or null; guarded by {@link #LOCK}. */
    private static KafkaTestCluster cluster;
    /** The classes running that asked for it; guarded by {@link #LOCK}. */
    private static int users;

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaTestCluster.class;
    }

    /** The shared cluster, started if none runs; the class asking uses it until it ends. */
    @Override
    public KafkaTestCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store classStore = classContext(context).getStore(NAMESPACE);
        synchronized (LOCK) {
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

    /** When the last class that asked for the cluster ends, closes it. */
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (context.getStore(NAMESPACE).remove(SharedKafka.class) == null) {
            return;   // this class never asked for it
        }
        synchronized (LOCK) {
            if (--users == 0) {
                KafkaTestCluster closing = cluster;
                cluster = null;
                closing.closeShared();
                System.out.println("shared Kafka cluster closed: no class running uses it");
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
