package io.trailproof.cli;

import io.trailproof.logging.ServiceLogging;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;

/** The {@code trailproof} program: parses the command line and runs a subcommand (src/site/cli.md). */
@Command(name = "trailproof", mixinStandardHelpOptions = true, version = "trailproof 0.1.0",
        description = "Tamper-evident audit trail for AI agents.")
public final class Main implements Runnable {

    /** The subcommands, in the order the help lists them. */
    static final List<Class<?>> COMMANDS = List.of(ServeCommand.class, IngestCommand.class, SearchCommand.class,
            TailCommand.class, IndexCommand.class, TimestampCommand.class, ExportCommand.class, VerifyCommand.class,
            VerifyExportCommand.class, PolicyCommand.class, ProofCommand.class, VerifyProofCommand.class,
            BackupCommand.class, RestoreCommand.class, ClusterCommand.class, McpProxyCommand.class,
            LlmGatewayCommand.class, EraseCommand.class, ApprovalsCommand.class, GatePolicyCommand.class,
            StartCacheCommand.class);

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
        return run(commandLine(CommandLine.defaultFactory(), args), args);
    }

    /** The whole command line, every subcommand in it: for the help, and for tests that look at all of them. */
    static CommandLine commandLine() {
        return commandLine(CommandLine.defaultFactory());
    }

    /**
     * The command line for {@code args}: when the first argument names a subcommand, only that one is
     * in it, so that running a command does not build picocli's model of the twenty others (by
     * reflection, about half of a command's start-up CPU); otherwise (the help, the version, a name
     * that is no command) every subcommand is, so that the help lists them and a mistyped name is told
     * what there is.
     */
    static CommandLine commandLine(CommandLine.IFactory factory, String... args) {
        CommandLine cli = new CommandLine(new Main(), factory);
        List<Class<?>> wanted = COMMANDS;
        if (args.length > 0) {
            for (Class<?> command : COMMANDS) {
                if (command.getAnnotation(Command.class).name().equals(args[0])) {
                    wanted = List.of(command);
                    break;
                }
            }
        }
        for (Class<?> command : wanted) {
            try {
                cli.addSubcommand(factory.create(command));
            } catch (Exception e) {
                throw new CommandLine.InitializationException("cannot create the command " + command.getSimpleName(), e);
            }
        }
        return cli;
    }

    /**
     * As {@link #run(String...)}, with the commands made by {@code factory} and the output and error
     * streams given: tests run a command in process this way, with their own standard input.
     */
    static int run(CommandLine.IFactory factory, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = commandLine(factory, args);
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
        CommandLine proxy = cli.getSubcommands().get(McpProxyCommand.NAME);
        if (proxy != null) {
            proxy.setStopAtPositional(true);
        }
        return cli.execute(args);
    }

    @Override
    public void run() {
        commandLine().usage(System.err);
    }
}
