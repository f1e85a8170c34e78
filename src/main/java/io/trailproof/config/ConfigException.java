package io.trailproof.config;

/** A configuration key is unknown or its value is unusable; the message names the key and the source. */
public final class ConfigException extends Exception {
    public ConfigException(String message) {
        super(message);
    }
}
