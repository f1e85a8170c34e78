package io.trailproof.ledger;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.store.EventLog;
import io.trailproof.store.PackedPositions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Loads the positions of the snapshotted events after the start: the one part of restoring the
 * agents that grows with the log (the {@link PositionJournal}, about 1.75 bytes per event). The
 * start restores every agent from the {@link HeadSnapshot} alone ({@link AgentTable#restoreFromSnapshot});
 * this replays the journal up to the snapshot on a thread of its own, checks it against the snapshot
 * (each agent introduced at its ordinal, with as many events as the snapshot counts) and hands each
 * agent its positions. Until then {@code GET /health} lists {@code "agent positions"} under
 * {@code loading}, and only readers of those positions wait ({@link AgentState}).
 *
 * <p>A journal that fails its check (damaged, or of another log) is derived data: the positions are
 * then taken from the log itself, still after the start, with a WARNING. A log whose agents disagree
 * with the snapshot's counts is a problem on {@code /health}; the positions follow the log.
 */
final class PositionLoader {

    private static final System.Logger LOG = System.getLogger(PositionLoader.class.getName());

    private final Path journal;
    private final long journalBytes;
    private final long snapshotSize;
    private final EventLog log;
    private final List<HeadSnapshot.Head> heads;
    private final List<AgentState> agents;
    private final LedgerHealth health;

    private PositionLoader(Path journal, HeadSnapshot snapshot, EventLog log, List<AgentState> agents,
                           LedgerHealth health) {
        this.journal = journal;
        this.journalBytes = snapshot.journalBytes();
        this.snapshotSize = snapshot.logSize();
        this.log = log;
        this.heads = snapshot.heads();
        this.agents = agents;
        this.health = health;
    }

    /**
     * Starts the load on {@code executor}; {@code agents} are those restored from {@code snapshot},
     * by ordinal (before any event after it was added).
     */
    static void start(Executor executor, Path journal, HeadSnapshot snapshot, EventLog log, List<AgentState> agents,
                      PositionLoad load, LedgerHealth health) {
        PositionLoader loader = new PositionLoader(journal, snapshot, log, agents, health);
        executor.execute(() -> {
            long started = System.nanoTime();
            try {
                loader.load();
                load.loaded();
                LOG.log(System.Logger.Level.DEBUG, "loaded the positions of " + loader.snapshotSize + " events of "
                        + agents.size() + " agents in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            } catch (IOException | RuntimeException e) {
                IOException cause = e instanceof IOException io ? io : new IOException(e.toString(), e);
                health.report("the agents' positions could not be loaded after the start (" + e
                        + "); verification and exports of chains fail until the service is restarted");
                load.failed(cause);
            }
        });
    }

    private void load() throws IOException {
        PackedPositions[] positions;
        try {
            positions = fromJournal();
        } catch (PositionJournal.JournalException e) {
            LOG.log(System.Logger.Level.WARNING, "the position journal does not match the chain-head snapshot ("
                    + e.getMessage() + "); taking the agents' positions from the log");
            positions = fromLog();
        }
        for (int i = 0; i < agents.size(); i++) {
            if (heads.get(i).positions() == null) {
                agents.get(i).loadPositions(positions[i]);
            }
        }
    }

    /** Each agent's positions (null for those the snapshot holds) from the journal, checked against the snapshot. */
    private PackedPositions[] fromJournal() throws IOException {
        int n = heads.size();
        PackedPositions[] positions = new PackedPositions[n];
        int[] filled = new int[n];
        for (int i = 0; i < n; i++) {
            if (heads.get(i).positions() == null) {
                positions[i] = new PackedPositions();
            }
        }
        int[] introduced = {0};
        PositionJournal.replay(journal, journalBytes, snapshotSize, new PositionJournal.Replay() {
            @Override
            public void newAgent(int ordinal, String agentId) throws PositionJournal.JournalException {
                if (ordinal >= n || !heads.get(ordinal).agentId().equals(agentId)) {
                    throw new PositionJournal.JournalException("the journal introduces agent " + agentId + " at "
                            + ordinal + ", the snapshot " + (ordinal < n ? heads.get(ordinal).agentId() : "no agent"));
                }
                introduced[0] = ordinal + 1;
            }

            @Override
            public void events(long from, int[] ordinals) throws PositionJournal.JournalException {
                for (int k = 0; k < ordinals.length; k++) {
                    int o = ordinals[k];
                    if (filled[o] == heads.get(o).eventCount()) {
                        throw new PositionJournal.JournalException("agent " + heads.get(o).agentId()
                                + " has more events in the journal than the " + heads.get(o).eventCount()
                                + " of the snapshot");
                    }
                    if (positions[o] != null) {
                        positions[o].add(from + k);
                    }
                    filled[o]++;
                }
            }

            @Override
            public int agentCount() {
                return introduced[0];
            }
        });
        for (int i = 0; i < n; i++) {
            if (filled[i] != heads.get(i).eventCount()) {
                throw new PositionJournal.JournalException("agent " + heads.get(i).agentId() + " has " + filled[i]
                        + " events in the journal and " + heads.get(i).eventCount() + " in the snapshot");
            }
        }
        return positions;
    }

    /** Each agent's positions below the snapshot's size, read from the log (the journal failed its check). */
    private PackedPositions[] fromLog() throws IOException {
        int n = heads.size();
        Map<String, Integer> ordinals = new HashMap<>();
        for (int i = 0; i < n; i++) {
            ordinals.put(heads.get(i).agentId(), i);
        }
        PackedPositions[] positions = new PackedPositions[n];
        int[] filled = new int[n];
        for (int i = 0; i < n; i++) {
            positions[i] = new PackedPositions();
        }
        long[] strangers = {0};
        log.scan(0, snapshotSize, (index, payload) -> {
            String agentId;
            try {
                agentId = StoredEvent.parse(payload).agentId();
            } catch (Exception e) {
                throw new IOException("the event at log index " + index + " is not a readable stored event ("
                        + e.getMessage() + "): the log has been altered; restore it from a backup", e);
            }
            Integer o = ordinals.get(agentId);
            if (o == null) {
                strangers[0]++;
                return;
            }
            positions[o].add(index);
            filled[o]++;
        });
        StringBuilder disagree = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (filled[i] != heads.get(i).eventCount() && disagree.length() < 400) {
                disagree.append(disagree.isEmpty() ? "" : ", ").append(heads.get(i).agentId()).append(": ")
                        .append(filled[i]).append(" in the log, ").append(heads.get(i).eventCount()).append(" in the snapshot");
            }
        }
        if (strangers[0] > 0 || !disagree.isEmpty()) {
            health.report("the chain-head snapshot does not match the log below " + snapshotSize + " events ("
                    + (strangers[0] > 0 ? strangers[0] + " events of agents it does not name" : "") + (strangers[0] > 0
                    && !disagree.isEmpty() ? "; " : "") + disagree + "); the agents' positions follow the log");
        }
        return positions;
    }
}
