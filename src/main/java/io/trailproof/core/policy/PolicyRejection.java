package io.trailproof.core.policy;

/**
 * A policy document that cannot be run: its message is one sentence naming the policy, the rule and
 * the key at fault, for a person to act on (the HTTP API answers it as a 400, the CLI exits 2).
 */
public final class PolicyRejection extends Exception {

    public PolicyRejection(String message) {
        super(message);
    }
}
