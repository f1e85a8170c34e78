package io.trailproof.cli;

/**
 * Bad usage of a command (exit 2, src/site/cli.md): an unknown option or command, a missing or
 * malformed value, options that cannot be combined. Its message is for the user, who is then
 * pointed at the help of {@link #command()}, the command the mistake was made in.
 */
final class UsageError extends Exception {

    private final String command;

    /** A mistake found by a command itself; the command that runs it is named when it is reported. */
    UsageError(String message) {
        this(message, null);
    }

    UsageError(String message, String command) {
        super(message, null, false, false);
        this.command = command;
    }

    /** The command's whole name ({@code trailproof policy check}), or null when it is the one being run. */
    String command() {
        return command;
    }
}
