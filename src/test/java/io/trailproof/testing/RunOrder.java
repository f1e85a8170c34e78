package io.trailproof.testing;

/**
 * Where an integration test class starts among the others of its run (src/site/testing.md#class-order):
 * the value of JUnit's {@code @Order} on the class, which Failsafe's run sorts by (classes without one
 * come after, in their own order). On two cores the integration tests keep both busy until the last
 * classes run; a long class that starts last runs on alone while the other workers are idle, so the
 * classes that run longest start first, the longest of them before the others.
 */
public final class RunOrder {

    /** For a class that runs for 35 seconds or more beside others: it starts first. */
    public static final int LONGEST = 1;

    /**
     * For a class that uses the shared Kafka cluster ({@link SharedKafka}), long or not: these start one
     * after another, so that one of them is always running and the cluster starts once, not once for
     * each class that finds it closed.
     */
    public static final int SHARED_KAFKA = 2;

    /** For a class that runs for 20 to 35 seconds beside others: it starts after those. */
    public static final int LONG = 3;

    /**
     * For a class that spends most of its time waiting (for time-outs, on idle connections) rather than
     * computing: it starts with the long ones, so that its waits overlap their work instead of ending
     * the run alone (a class of 15 s did, in one run for 12 s).
     */
    public static final int MOSTLY_WAITING = LONG;

    private RunOrder() {
    }
}
