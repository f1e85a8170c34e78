package io.trailproof.cli;

/**
 * A {@code trailproof} command: it declares its options and parameters ({@link #spec}), and runs with
 * their values once the command line has been parsed and checked against them. A command with
 * subcommands runs only when none was named.
 */
interface CliCommand {

    /** What this command takes; built anew by each call, cheaply. */
    CommandSpec spec();

    /**
     * Runs the command and returns its exit code (src/site/cli.md: 0 success or valid, 1 invalid or
     * failed, 2 bad usage). A {@link UsageError} thrown here is reported as bad usage of this command.
     *
     * @param args the values of the options and parameters its {@link #spec} declares
     * @param io   where the command writes what it has to say
     */
    int run(Arguments args, Streams io) throws Exception;
}
