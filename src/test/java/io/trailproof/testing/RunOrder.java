package io.trailproof.testing;

/**
 * Where a test class starts among the others of its run (src/site/testing.md#class-order): the
 * value of JUnit's {@code @Order} on the class, which the test plugins sort by (classes without one
 * come after). On two cores the integration tests keep both busy until the last classes run; a long
 * class that starts last runs on alone while the other workers are idle, so the classes that run longest
 * start first, the longest of them before the others.
 */
public final class RunOrder {

    /** For a class that runs for 35 seconds or more beside others: it starts first. */
    public static final int LONGEST = 1;

    /** For a class that runs for 20 to 35 seconds beside others: it starts next. */
    public static final int LONG = 2;

    private RunOrder() {
    }
}
