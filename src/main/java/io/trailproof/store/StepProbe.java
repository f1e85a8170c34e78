package io.trailproof.store;

import java.io.IOException;

/**
 * Told each time a multi-step storage operation passes a point where a crash leaves a distinct
 * state on disk (the steps of an erasure, src/site/erasure.md#crash-safety-of-an-erasure). The
 * service passes {@link #NONE}; crash tests pass one that stops the process at a chosen step, so
 * every such state is reached by a real kill. It must not change what the operation does.
 */
@FunctionalInterface
public interface StepProbe {

    /** Does nothing. */
    StepProbe NONE = step -> { };

    /** The operation has reached {@code step} (a short stable name, e.g. {@code segment-renamed}). */
    void reached(String step) throws IOException;
}
