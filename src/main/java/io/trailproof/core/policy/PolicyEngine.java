package io.trailproof.core.policy;

import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.gate.GateFields;
import io.trailproof.core.merkle.SubtreeHashes;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs policies over a trail in one pass: the caller feeds every stored event in log order to
 * {@link #accept} and then calls {@link #finish} once. Pure: it is given events, it reads nothing.
 * Memory depends on the scopes (agents, sessions) and the pending state the rules keep (calls not
 * answered yet, say), never on the number of events; each rule keeps at most
 * {@value ExampleList#LIMIT} examples.
 *
 * <p>The narrowing of a check: only events of {@code agentId} (when given) are looked at, and only
 * those whose {@code timestamp} is in {@code [since, until)} (either bound may be null), except by
 * {@code chain_integrity}, which verifies the whole chains of the agents looked at. Each rule then
 * sees only the events that carry every label of its {@code label_filter}. {@link #prepare} is
 * thread-safe; {@link #accept} and {@link #finish} are not (one thread, events in log order).
 */
public final class PolicyEngine {

    private record Running(String policy, RuleCheck check) {
    }

    private final List<Running> checks = new ArrayList<>();
    private final ScopeKey.Cache keys = new ScopeKey.Cache();
    private final PolicyEventReader reader;
    private final String agentId;
    private final long sinceMicros;
    private final long untilMicros;
    private ChainIntegrityCheck chainCheck;
    private long eventsChecked;
    private boolean finished;

    /**
     * @param tree the tree's node hashes, for the leaf check of {@code chain_integrity}; null skips
     *             that one check (for callers that have events but no tree)
     */
    public PolicyEngine(List<Policy> policies, String agentId, Instant since, Instant until, SubtreeHashes tree) {
        this.agentId = agentId;
        this.sinceMicros = since == null ? Long.MIN_VALUE : micros(since);
        this.untilMicros = until == null ? Long.MAX_VALUE : micros(until);
        Set<String> roots = new HashSet<>();
        for (Policy p : policies) {
            for (Rule r : p.rules()) {
                if (r.definition() instanceof RuleDefinition.Match) {
                    continue; // decides proposals only (src/site/gates.md)
                }
                RuleCheck check = create(r, tree);
                check.keys = keys;
                if (check instanceof PatternCheck pc) {
                    roots.add(pc.root());
                } else if (check instanceof GateComplianceCheck) {
                    roots.add(GateFields.DECISION_ID);
                } else if (check instanceof ChainIntegrityCheck cc) {
                    chainCheck = cc;
                }
                checks.add(new Running(p.name(), check));
            }
        }
        this.reader = new PolicyEventReader(roots);
    }

    /**
     * Only the policy named {@code name} of {@code policies} (all of them when {@code name} is null).
     *
     * @throws PolicyRejection when no policy has that name
     */
    public static List<Policy> select(List<Policy> policies, String name) throws PolicyRejection {
        if (name == null) {
            return policies;
        }
        for (Policy p : policies) {
            if (p.name().equals(name)) {
                return List.of(p);
            }
        }
        List<String> names = policies.stream().map(Policy::name).toList();
        throw new PolicyRejection("no policy is named '" + PolicyParser.shorten(name) + "'; the policies are "
                + PolicyParser.shorten(String.join(", ", names)));
    }

    /**
     * What one stored event yields before any rule sees it: its facts, and for {@code chain_integrity}
     * whether its bytes hash to its {@code hash}; or why it is not a readable event.
     */
    public record Prepared(long position, PolicyEvent event, IntactEvent intact, String unreadable) {
    }

    /**
     * The costly half of {@link #accept(long, byte[])}: parses the stored event at {@code position}
     * (its log index) and, when {@code chain_integrity} runs, checks its hash in the same parse.
     * Thread-safe and free of the rules' state, so a caller may prepare many events on other threads,
     * in any order, and then {@link #accept(Prepared) accept} them in log order.
     */
    public Prepared prepare(long position, byte[] payload) {
        try {
            if (chainCheck != null) {
                // One parse for both: the chain's hash check and the fields the rules read.
                PolicyEventReader.Read read = reader.readIntact(payload);
                return new Prepared(position, read.event(), read.intact(), null);
            }
            return new Prepared(position, reader.read(payload), null, null);
        } catch (RuntimeException unreadable) {
            return new Prepared(position, null, null, String.valueOf(unreadable.getMessage()));
        }
    }

    /**
     * Looks at the stored event at {@code position} (its log index). A payload that is not a stored
     * event at all counts against {@code chain_integrity} when that runs (the chain cannot verify),
     * and is otherwise skipped, as no rule can say anything of it.
     */
    public void accept(long position, byte[] payload) {
        accept(prepare(position, payload));
    }

    /** The rules' half of {@link #accept(long, byte[])}: events must come in log order, on one thread at a time. */
    public void accept(Prepared prepared) {
        if (finished) {
            throw new IllegalStateException("the check has finished");
        }
        long position = prepared.position();
        if (prepared.event() == null) {
            if (chainCheck != null) {
                chainCheck.violation(new EventRef(position, null, null, 0, 0), "the stored event at log_index "
                        + position + " is not a readable event: " + prepared.unreadable());
            }
            return;
        }
        PolicyEvent e = prepared.event();
        IntactEvent intact = prepared.intact();
        if (agentId != null && !agentId.equals(e.agentId())) {
            return;
        }
        boolean inWindow = e.timestampMicros() >= sinceMicros && e.timestampMicros() < untilMicros;
        boolean looked = false;
        for (Running r : checks) {
            RuleCheck check = r.check();
            if (!inWindow && !check.wholeChains()) {
                continue;
            }
            if (!check.rule.labelFilter().isEmpty() && !e.hasLabels(check.rule.labelFilter())) {
                continue;
            }
            if (check == chainCheck) {
                chainCheck.accept(e, intact, position);
            } else {
                check.accept(e);
            }
            looked = true;
        }
        if (looked) {
            eventsChecked++;
        }
    }

    /** Ends the pass: the rules that judge at the end (pending calls, missing names, ...) judge. */
    public PolicyReport finish() {
        if (finished) {
            throw new IllegalStateException("the check has finished");
        }
        finished = true;
        List<RuleResult> results = new ArrayList<>();
        for (Running r : checks) {
            r.check().finish();
            results.add(r.check().result(r.policy()));
        }
        return PolicyReport.of(results, eventsChecked);
    }

    private static RuleCheck create(Rule rule, SubtreeHashes tree) {
        return switch (rule.definition()) {
            case RuleDefinition.Sequence d -> new SequenceCheck(rule, d);
            case RuleDefinition.Absence d -> new AbsenceCheck(rule, d);
            case RuleDefinition.Boundary d -> new BoundaryCheck(rule, d);
            case RuleDefinition.Presence d -> new PresenceCheck(rule, d);
            case RuleDefinition.Rate d -> new RateCheck(rule, d);
            case RuleDefinition.PatternRule d -> new PatternCheck(rule, d);
            case RuleDefinition.Temporal d -> new TemporalCheck(rule, d);
            case RuleDefinition.Requires d -> new RequiresCheck(rule, d);
            case RuleDefinition.Match d -> throw new IllegalArgumentException("a match rule decides proposals only");
            case RuleDefinition.Builtin b -> switch (b.kind()) {
                case CHAIN_INTEGRITY -> new ChainIntegrityCheck(rule, tree);
                case EVENT_COMPLETENESS -> new EventCompletenessCheck(rule);
                case SESSION_HEALTH -> new SessionHealthCheck(rule);
                case ERROR_RATE -> new ErrorRateCheck(rule);
                case DURATION_OUTLIERS -> new DurationOutliersCheck(rule);
                case GATE_COMPLIANCE -> new GateComplianceCheck(rule);
            };
        };
    }

    private static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }
}
