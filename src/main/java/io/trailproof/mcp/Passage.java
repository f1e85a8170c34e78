package io.trailproof.mcp;

/** One direction of the session, run on a thread of its own: {@link Pump}, or {@link GatedInput} under {@code --gate}. */
interface Passage extends Runnable {

    /**
     * Ends the passage: what it has read and framed so far is queued for the recorder, and nothing it
     * reads from now on is passed on. More calls do nothing.
     */
    void stop();
}
