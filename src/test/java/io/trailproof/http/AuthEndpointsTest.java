package io.trailproof.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a sign-in returns: a console address of this service only, never another site (no open redirect). */
class AuthEndpointsTest {

    @Test
    void consoleAddressesAreKept() {
        assertThat(AuthEndpoints.returnTo("/ui/?q=wire_transfer&agent_id=agent-007"))
                .isEqualTo("/ui/?q=wire_transfer&agent_id=agent-007");
        assertThat(AuthEndpoints.returnTo("/ui/?view=approvals")).isEqualTo("/ui/?view=approvals");
    }

    @Test
    void anythingElseReturnsToTheConsolesStart() {
        for (String bad : new String[] {null, "", "https://evil.example/", "//evil.example/ui/", "/ui//evil.example",
                "/\\evil.example", "/ui/\\@evil.example", "javascript:alert(1)", "/v1/export?agent_id=x",
                "/ui/\r\nSet-Cookie: x=y", "/ui/ x", "/ui/" + "a".repeat(3000)}) {
            assertThat(AuthEndpoints.returnTo(bad)).as(String.valueOf(bad)).isEqualTo("/ui/");
        }
    }
}
