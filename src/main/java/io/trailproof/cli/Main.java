package io.trailproof.cli;

import io.trailproof.logging.ServiceLogging;

import java.io.PrintWriter;

/** The {@code trailproof} program: parses the command line and runs a command (src/site/cli.md). */
public final class Main {

    /** Exit code for bad usage (src/site/cli.md): 0 success or valid, 1 invalid or failed, 2 bad usage. */
    static final int BAD_USAGE = 2;

    private Main() {
    }

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            // One line per log record: time, level, source, message (and the stack trace, if any).
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        }
        // Until serve installs the service's logging: library and service INFO records stay out of a command's output.
        ServiceLogging.quietForCommands();
        int code = run(args);
        if (args.length > 0 && Commands.RUN_UNTIL_STOPPED.contains(args[0])) {
            // A service ends through Runtime.exit, so that shutdown hooks run: those of the JVM's
            // options (a flight recording's dump on exit, an agent's report) as an operator expects.
            // It has long since started its logging, so the exit's logger costs nothing more.
            System.exit(code);
        }
        // Not System.exit: Runtime.exit first asks for the JDK's logger "java.lang.Runtime", and the first
        // logger of a process makes the JDK look for a logging backend in every jar of the class path
        // (a tenth of a second or more, a large part of a short command's start). The program has no
        // shutdown hooks of its own (it handles the signals itself, see Shutdown) and every command has
        // closed what it wrote by now: once the standard streams are flushed, halting ends it alike.
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    /**
     * Runs one command without ending the JVM and returns its exit code (what {@link #main} exits
     * with); the backup benchmark measures the backup client this way, its JVM warm.
     */
    public static int run(String... args) {
        return run(new Commands(), new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /**
     * As {@link #run(String...)}, with the commands made by {@code commands} and the output and
     * error streams given: tests run a command in process this way, with their own standard input.
     * Bad usage prints {@code trailproof: MESSAGE} and {@code Try 'trailproof COMMAND --help'.} and
     * exits {@link #BAD_USAGE}; a command that fails unexpectedly exits 1 with its stack trace.
     */
    static int run(Commands commands, PrintWriter out, PrintWriter err, String... args) {
        String command = RootCommand.NAME;
        try {
            ParsedLine line = ArgumentParser.parse(commands.root(args), args);
            command = line.qualifiedName();
            if (line.request() == ParsedLine.Request.HELP) {
                out.print(HelpText.render(line.spec(), command));
                return 0;
            }
            if (line.request() == ParsedLine.Request.VERSION) {
                out.println(RootCommand.VERSION);
                return 0;
            }
            return line.command().run(line.arguments(), new Streams(out, err));
        } catch (UsageError e) {
            err.println("trailproof: " + e.getMessage());
            err.println("Try '" + (e.command() != null ? e.command() : command) + " --help'.");
            return BAD_USAGE;
        } catch (Exception e) {
            err.println("trailproof: " + command + " failed unexpectedly: " + e);
            e.printStackTrace(err);
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }
}
