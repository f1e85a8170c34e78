package io.trailproof.logging;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.LogManager;

/**
 * The java.util.logging configuration of the command-line tools ({@link ServiceLogging#quietForCommands}):
 * the JDK's default (one console handler on standard error, the simple format) with the root at
 * WARNING instead of INFO, and Lucene's vectorization at SEVERE ({@link ServiceLogging#QUIET_LIBRARIES}).
 * java.util.logging makes one when it starts, as the class its
 * {@code java.util.logging.config.class} property names, and reads its configuration from it.
 */
public final class CommandLogConfiguration {

    private static final String CONFIGURATION = """
            handlers = java.util.logging.ConsoleHandler
            .level = WARNING
            java.util.logging.ConsoleHandler.level = INFO
            java.util.logging.ConsoleHandler.formatter = java.util.logging.SimpleFormatter
            org.apache.lucene.internal.vectorization.level = SEVERE
            """;

    /** Called by java.util.logging as it starts; the contract of {@code java.util.logging.config.class}. */
    public CommandLogConfiguration() throws IOException {
        LogManager.getLogManager().readConfiguration(
                new ByteArrayInputStream(CONFIGURATION.getBytes(StandardCharsets.ISO_8859_1)));
    }
}
