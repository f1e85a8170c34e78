package io.trailproof.cli;

import io.trailproof.logging.ServiceLogging;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/** The {@code trailproof} program: parses the command line and runs a subcommand (src/site/cli.md). */
@Command(name = "trailproof", mixinStandardHelpOptions = true, version = "trailproof 0.1.0",
        description = "Tamper-evident audit trail for AI agents.",
        subcommands = {ServeCommand.class, IngestCommand.class, SearchCommand.class, TailCommand.class, IndexCommand.class,
                TimestampCommand.class, ExportCommand.class, VerifyCommand.class, VerifyExportCommand.class,
                PolicyCommand.class, ProofCommand.class, VerifyProofCommand.class,
                BackupCommand.class, RestoreCommand.class, ClusterCommand.class, McpProxyCommand.class,
                LlmGatewayCommand.class, EraseCommand.class, ApprovalsCommand.class, GatePolicyCommand.class,
                StartCacheCommand.class})
public final class Main implements Runnable {

    /** Exit code for bad usage (src/site/cli.md): 0 success or valid, 1 invalid or failed, 2 bad usage. */
    static final int BAD_USAGE = 2;

    public static void main(String[] args) {
        LauncherStderr.adopt();
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            // One line per log record: time, level, source, message (and the stack trace, if any).
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        }
        // Until serve installs the service's logging: library and service INFO records stay out of a command's output.
        ServiceLogging.quietForCommands();
        System.exit(run(args));
    }

    /**
     * Runs one command without ending the JVM and returns its exit code (what {@link #main} exits
     * with); the backup benchmark measures the backup client this way, its JVM warm.
     */
    public static int run(String... args) {
        return run(new CommandLine(new Main()), args);
    }

    /**
     * As {@link #run(String...)}, with the commands made by {@code factory} and the output and error
     * streams given: tests run a command in process this way, with their own standard input.
     */
    static int run(CommandLine.IFactory factory, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new Main(), factory);
        cli.setOut(out);
        cli.setErr(err);
        return run(cli, args);
    }

    private static int run(CommandLine cli, String... args) {
        cli.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("trailproof: " + ex.getMessage());
            ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName()
                    + " --help'.");
            return BAD_USAGE;
        });
        // Everything after the server command is the command's own: `mcp-proxy npx -y pkg` works without `--` too.
        cli.getSubcommands().get(McpProxyCommand.NAME).setStopAtPositional(true);
        return cli.execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }
}
