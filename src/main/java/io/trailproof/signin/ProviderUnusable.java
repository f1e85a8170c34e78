package io.trailproof.signin;

/** The configured provider cannot be used (unreachable, or its discovery document is wrong): the start stops. */
public final class ProviderUnusable extends Exception {

    ProviderUnusable(String message, Throwable cause) {
        super(message, cause);
    }
}
