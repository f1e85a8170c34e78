package io.trailproof.server;

import io.trailproof.store.StepProbe;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * For crash tests of erasures (src/site/erasure.md#crash-safety-of-an-erasure): the system property
 * {@value #PROPERTY} = {@code STEP} or {@code STEP:N} makes the erasure that reaches that step (for
 * the N-th time in this process, default 1) log {@code erasure paused at STEP:N} and wait for ever,
 * so the test kills the process in exactly that state. Unset in any real deployment; the service
 * then uses {@link StepProbe#NONE}.
 */
final class PausingProbe implements StepProbe {

    static final String PROPERTY = "trailproof.testing.pause-erasure-at";
    private static final System.Logger LOG = System.getLogger(PausingProbe.class.getName());

    private final String step;
    private final int nth;
    private int seen;

    private PausingProbe(String step, int nth) {
        this.step = step;
        this.nth = nth;
    }

    /** The probe the system property asks for, or {@link StepProbe#NONE}. */
    static StepProbe fromSystemProperty() {
        String spec = System.getProperty(PROPERTY);
        if (spec == null || spec.isBlank()) {
            return StepProbe.NONE;
        }
        int colon = spec.indexOf(':');
        return colon < 0 ? new PausingProbe(spec.trim(), 1)
                : new PausingProbe(spec.substring(0, colon).trim(), Integer.parseInt(spec.substring(colon + 1).trim()));
    }

    @Override
    public synchronized void reached(String at) throws IOException {
        if (!at.equals(step) || ++seen != nth) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "erasure paused at " + step + ":" + nth + " (" + PROPERTY + ")");
        try {
            while (true) {
                Thread.sleep(60_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("paused erasure interrupted");
        }
    }
}
