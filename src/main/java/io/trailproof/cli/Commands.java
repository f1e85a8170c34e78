package io.trailproof.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code trailproof} commands: their names in the order the help lists them, and each one made
 * by name. A command line that names a command makes only that one (its class and its spec), so
 * that running one does not load the twenty others; the help and a name that is no command make
 * them all. Tests make a command of their own by overriding {@link #create}.
 */
class Commands {

    /** Every command, in the order the help lists them. */
    static final List<String> NAMES = List.of("serve", "ingest", "search", "tail", "index", "timestamp", "export",
            "verify", "verify-export", "policy", "proof", "verify-proof", "backup", "restore", "cluster",
            McpProxyCommand.NAME, "llm-gateway", "erase", "approvals", "gate-policy", "start-cache");

    /**
     * The commands that run a service until they are stopped: their JVM ends through
     * {@code Runtime.exit}, shutdown hooks and all, where a short command's halts ({@link Main#main}).
     */
    static final Set<String> RUN_UNTIL_STOPPED = Set.of("serve", "llm-gateway", McpProxyCommand.NAME);

    /** The command called {@code name}, new; null when there is none. */
    CliCommand create(String name) {
        switch (name) {
            case "serve": return new ServeCommand();
            case "ingest": return new IngestCommand();
            case "search": return new SearchCommand();
            case "tail": return new TailCommand();
            case "index": return new IndexCommand();
            case "timestamp": return new TimestampCommand();
            case "export": return new ExportCommand();
            case "verify": return new VerifyCommand();
            case "verify-export": return new VerifyExportCommand();
            case "policy": return new PolicyCommand();
            case "proof": return new ProofCommand();
            case "verify-proof": return new VerifyProofCommand();
            case "backup": return new BackupCommand();
            case "restore": return new RestoreCommand();
            case "cluster": return new ClusterCommand();
            case McpProxyCommand.NAME: return new McpProxyCommand();
            case "llm-gateway": return new LlmGatewayCommand();
            case "erase": return new EraseCommand();
            case "approvals": return new ApprovalsCommand();
            case "gate-policy": return new GatePolicyCommand();
            case "start-cache": return new StartCacheCommand();
            default: return null;
        }
    }

    /**
     * The {@code trailproof} command for {@code args}: with only the command the first argument
     * names, when it names one; with every command otherwise (the help, the version, a mistyped
     * name, which is then told what there is).
     */
    RootCommand root(String... args) {
        List<CliCommand> commands = new ArrayList<>();
        CliCommand named = args.length > 0 && NAMES.contains(args[0]) ? create(args[0]) : null;
        if (named != null) {
            commands.add(named);
        } else {
            for (String name : NAMES) {
                commands.add(create(name));
            }
        }
        return new RootCommand(commands);
    }
}
