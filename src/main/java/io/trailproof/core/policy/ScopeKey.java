package io.trailproof.core.policy;

import java.util.Objects;

/**
 * The scope an event belongs to for a rule: its agent, or its agent and session ({@code session}
 * null: the agent's events without {@code session_id}, which form one session). The hash is computed
 * once, as every rule of the scope looks the key up for every event.
 */
final class ScopeKey {

    private final String agent;
    private final String session;
    private final boolean sessionScope;
    private final int hash;

    private ScopeKey(String agent, String session, boolean sessionScope) {
        this.agent = agent;
        this.session = session;
        this.sessionScope = sessionScope;
        this.hash = (agent.hashCode() * 31 + Objects.hashCode(session)) * 2 + (sessionScope ? 1 : 0);
    }

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

    @Override
    public boolean equals(Object o) {
        return o instanceof ScopeKey k && k.hash == hash && k.sessionScope == sessionScope && k.agent.equals(agent)
                && Objects.equals(k.session, session);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * The keys of the event being visited, made once for every rule that asks (each rule of a scope
     * asks for every event). One per engine; not thread-safe.
     */
    static final class Cache {
        private PolicyEvent event;
        private ScopeKey agentKey;
        private ScopeKey sessionKey;

        ScopeKey of(PolicyEvent e, Scope scope) {
            if (e != event) {
                event = e;
                agentKey = null;
                sessionKey = null;
            }
            if (scope == Scope.AGENT) {
                return agentKey != null ? agentKey : (agentKey = ScopeKey.of(e, scope));
            }
            return sessionKey != null ? sessionKey : (sessionKey = ScopeKey.of(e, scope));
        }
    }
}
