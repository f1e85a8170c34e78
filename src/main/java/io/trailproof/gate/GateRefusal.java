package io.trailproof.gate;

/** A request the gate cannot do: an unknown decision, or one that is no longer waiting for an answer. */
public final class GateRefusal extends Exception {

    public enum Kind { UNKNOWN, NOT_PENDING }

    private final Kind kind;

    GateRefusal(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
