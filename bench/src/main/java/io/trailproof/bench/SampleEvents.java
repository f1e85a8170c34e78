package io.trailproof.bench;

/** The event used by every benchmark: about 500 bytes of JSON, the size the performance targets name. */
final class SampleEvents {

    private SampleEvents() {
    }

    static String event(long i, String agent) {
        return "{\"agent_id\":\"" + agent + "\",\"session_id\":\"s-" + (i % 97) + "\",\"action_type\":\"TOOL_CALL\","
                + "\"action_name\":\"search_database\",\"action_status\":\"success\",\"duration_ms\":" + (i % 1000)
                + ",\"action_input\":{\"query\":\"quarterly revenue by region " + i + "\",\"filters\":{\"year\":2026,"
                + "\"regions\":[\"EU\",\"US\"]}},\"action_output\":{\"rows\":" + (i % 50) + ",\"ok\":true,"
                + "\"summary\":\"revenue grew in the EU and fell in the US\"},"
                + "\"labels\":{\"env\":\"prod\",\"team\":\"finance\"},"
                + "\"metadata\":{\"model\":\"m-1\",\"temperature\":0.7,\"trace\":\"" + Long.toHexString(i * 0x9E3779B97F4A7C15L)
                + "\"}}";
    }
}
