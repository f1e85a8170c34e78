package io.trailproof.cli;

import io.trailproof.backup.BackupManifest;
import io.trailproof.backup.Restore;
import io.trailproof.backup.RestoreRefused;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code trailproof restore FILE.tar --data-dir DIR}: offline, no server (src/site/operations.md). Unpacks a
 * backup into an absent or empty directory after checking every digest and that the log gives the
 * manifest's root at its tree size ({@link Restore}); a refused restore leaves the directory absent
 * or empty. Exit 0 restored, 1 the archive was refused, 2 bad usage (including a target that is not
 * absent or empty).
 */
final class RestoreCommand implements CliCommand {

    static final ParameterSpec ARCHIVE = ParameterSpec.required(ValueType.PATH, "FILE.tar",
            "The backup, as `trailproof backup` wrote it.");
    Path archive;

    static final OptionSpec DATA_DIR = OptionSpec.value(ValueType.PATH, "DIR", "The data directory to "
            + "create; must be absent or empty.",
            "--data-dir").required();
    Path dataDir;

    static final OptionSpec JSON = OptionSpec.flag("Print the outcome as JSON.",
            "--json");
    boolean json;

    @Override
    public CommandSpec spec() {
        return new CommandSpec("restore", "Restore a backup into an absent or empty data directory, "
                + "checking it first (offline).")
                .parameter(ARCHIVE).option(DATA_DIR).option(JSON);
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        archive = args.path(ARCHIVE);
        dataDir = args.path(DATA_DIR);
        json = args.flag(JSON);
        long size;
        try {
            size = Files.size(archive);
        } catch (NoSuchFileException e) {
            System.err.println("trailproof: no such file: " + archive);
            return Main.BAD_USAGE;
        }
        ProgressBar bar = ProgressBar.onStderr("KiB", size / 1024);
        BackupManifest m;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(archive), 256 << 10)) {
            m = Restore.run(in, dataDir, done -> bar.update(done / 1024));
        } catch (RestoreRefused e) {
            System.err.println();
            System.err.println("trailproof: restore refused: " + e.getMessage());
            return e.targetProblem() ? Main.BAD_USAGE : 1;
        } catch (IOException e) {
            System.err.println();
            System.err.println("trailproof: the restore failed (" + e + "); " + dataDir + " was left absent or empty");
            return 1;
        }
        bar.finish(size / 1024);
        if (json) {
            System.out.println(ServerClient.JSON.createObjectNode().put("data_dir", dataDir.toString())
                    .put("tree_size", m.treeSize()).put("root", m.root()).put("files", m.files().size())
                    .put("created_at", m.createdAt().toString()));
        } else {
            System.out.println("restored tree size " + m.treeSize() + " (root " + m.root() + ", backup of "
                    + m.createdAt() + ") into " + dataDir + ": every digest and the root checked");
            System.out.println("start it with: trailproof serve --data-dir " + dataDir
                    + " (the search index is rebuilt from the log at the first start)");
        }
        return 0;
    }
}
