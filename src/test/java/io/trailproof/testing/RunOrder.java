package io.trailproof.testing;

/**
 * Where a test class starts among the others of its run (src/site/testing.md#class-order): the
 * value of JUnit's {@code @Order} on the class, which the test plugins sort by (classes without one
 * come after). On two cores the integration tests keep both busy until the last classes run; a long
 * class that starts last runs on alone while the other workers are idle, so the classes that run for
 * 20 seconds or more start first.
 */
public final class RunOrder {

    /** For a class that runs for 20 seconds or more beside others. */
    public static final int LONG = 1;

    private RunOrder() {
    }
}
