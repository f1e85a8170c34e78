package io.trailproof.cli;

import io.trailproof.index.OfflineIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.store.DataDirInUseException;
import io.trailproof.store.DataDirLock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;

/**
 * {@code trailproof index rebuild|check --data-dir DIR}: offline index administration, run by the
 * scripts in {@code index-tools/}. Both refuse to run while a server holds the data directory.
 */
final class IndexCommand implements CliCommand {

    @Override
    public CommandSpec spec() {
        return new CommandSpec("index", "Offline administration of the search index (see index-tools/README.md).")
                .subcommand(new Rebuild()).subcommand(new Check());
    }

    /** Without a subcommand: the help, on the error stream. */
    @Override
    public int run(Arguments args, Streams io) {
        io.err().print(HelpText.render(spec(), "trailproof index"));
        return 0;
    }

    /** Options and the open-the-data-directory step both subcommands share. */
    abstract static class Offline implements CliCommand {

        static final OptionSpec DATA_DIR = OptionSpec.value(ValueType.PATH, "DIR", "The data directory of a "
                + "stopped server.",
                "--data-dir").required();
        Path dataDir;

        /** Its spec: {@code name} and {@code summary}, with the data directory option. */
        static CommandSpec offlineCommand(String name, String summary) {
            return new CommandSpec(name, summary).option(DATA_DIR);
        }

        @Override
        public int run(Arguments args, Streams io) throws Exception {
            dataDir = args.path(DATA_DIR);
            if (!Files.isDirectory(dataDir.resolve("log"))) {
                System.err.println("trailproof: " + dataDir + " is not a trailproof data directory (it has no log/)");
                return Main.BAD_USAGE;
            }
            try (DataDirLock lock = DataDirLock.acquire(dataDir);
                 Ledger ledger = Ledger.open(dataDir, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom())) {
                return work(ledger);
            } catch (DataDirInUseException e) {
                System.err.println("trailproof: " + e.getMessage()
                        + "; stop the server first, or use POST /v1/admin/index/rebuild on the running one");
                return 1;
            } catch (Exception e) {
                System.err.println("trailproof: " + e.getMessage());
                return 1;
            }
        }

        abstract int work(Ledger ledger) throws Exception;
    }

    static final class Rebuild extends Offline {
        @Override
        public CommandSpec spec() {
            return offlineCommand("rebuild", "Build a fresh index from the log in a new directory, then "
                    + "swap it in atomically.");
        }

        @Override
        int work(Ledger ledger) throws Exception {
            long total = ledger.size();
            ProgressBar bar = ProgressBar.onStderr("events", total);
            long started = System.nanoTime();
            long indexed = OfflineIndex.rebuild(dataDir, ledger, bar::update);
            bar.finish(indexed);
            System.out.printf("rebuilt the search index: %,d events in %.1f s%n", indexed,
                    (System.nanoTime() - started) / 1e9);
            return 0;
        }
    }

    static final class Check extends Offline {
        @Override
        public CommandSpec spec() {
            return offlineCommand("check", "Compare the index with the log; exit 1 on any difference, "
                    + "listing the first ones.");
        }

        @Override
        int work(Ledger ledger) throws Exception {
            OfflineIndex.CheckReport report = OfflineIndex.check(dataDir, ledger);
            if (report.ok()) {
                System.out.printf("index and log agree: %,d events, every log index present exactly once, "
                        + "counts per agent equal%n", report.logSize());
                return 0;
            }
            System.out.printf("index and log DIFFER: %,d difference(s) (log %,d events, index commit %,d)%n",
                    report.differenceCount(), report.logSize(), report.indexSize());
            for (String d : report.differences()) {
                System.out.println("  " + d);
            }
            if (report.differenceCount() > report.differences().size()) {
                System.out.printf("  ... and %,d more%n", report.differenceCount() - report.differences().size());
            }
            System.out.println("run index-tools/rebuild-index to rebuild the index from the log");
            return 1;
        }
    }
}
