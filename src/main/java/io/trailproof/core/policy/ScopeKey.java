package io.trailproof.core.policy;

/**
 * The scope an event belongs to for a rule: its agent, or its agent and session ({@code session}
 * null: the agent's events without {@code session_id}, which form one session).
 */
record ScopeKey(String agent, String session, boolean sessionScope) {

    static ScopeKey of(PolicyEvent e, Scope scope) {
        return scope == Scope.AGENT ? new ScopeKey(e.agentId(), null, false)
                : new ScopeKey(e.agentId(), e.sessionId(), true);
    }

    /** "agent a1", "session s1 of agent a1", "the events without session_id of agent a1". */
    String describe() {
        if (!sessionScope) {
            return "agent " + agent;
        }
        return session == null ? "the events without session_id of agent " + agent
                : "session " + session + " of agent " + agent;
    }
}
