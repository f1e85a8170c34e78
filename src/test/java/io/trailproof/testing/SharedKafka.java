package io.trailproof.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One in-process Kafka cluster for every test class of the test JVM that asks for it: a
 * {@link KafkaTestCluster} parameter of a test or {@code @BeforeAll} method of a class extended with
 * this. Started by the first class that asks (the others wait for it), closed when the whole test
 * run ends (it is kept in the root context's store), so the run pays one start and hosts one
 * cluster's four nodes, not one per class.
 *
 * <p>Classes that run side by side share it safely: each names its topics with
 * {@link KafkaTestCluster#newTopic}, so no test sees another's records, scheduler group or retention,
 * and the shared cluster refuses to stop a broker or to be closed by a test
 * (src/site/testing.md#kafka-for-the-cluster-tests).
 */
public final class SharedKafka implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafka.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaTestCluster.class;
    }

    @Override
    public KafkaTestCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(Running.class, key -> Running.start(), Running.class).cluster;
    }

    /** The shared cluster as the root store holds it: the store closes it at the end of the run. */
    private record Running(KafkaTestCluster cluster) implements AutoCloseable {

        static Running start() {
            try {
                return new Running(KafkaTestCluster.startShared());
            } catch (Exception e) {
                throw new ParameterResolutionException("the shared Kafka cluster did not start", e);
            }
        }

        @Override
        public void close() throws Exception {
            cluster.closeShared();
        }
    }
}
