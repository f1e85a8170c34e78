package io.trailproof.signin;

import io.trailproof.config.ApiKey.Role;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Roles from a claim: a string or a list, a dotted path into an object, unmapped values ignored. */
class RoleMapTest {

    private final Map<String, Set<Role>> map = Map.of("trail-readers", Set.of(Role.READ),
            "trail-approvers", Set.of(Role.APPROVE), "ops", Set.of(Role.ADMIN, Role.READ));

    @Test
    void everyMappedValueOfAListAddsItsRoles() {
        RoleMap roles = new RoleMap("groups", map);
        assertThat(roles.roles(Map.of("groups", List.of("staff", "trail-readers", "trail-approvers"))))
                .containsExactlyInAnyOrder(Role.READ, Role.APPROVE);
        assertThat(roles.roles(Map.of("groups", "ops"))).containsExactlyInAnyOrder(Role.ADMIN, Role.READ);
    }

    @Test
    void aMissingClaimOrUnmappedValuesGiveNoRole() {
        RoleMap roles = new RoleMap("groups", map);
        assertThat(roles.roles(Map.of())).isEmpty();
        assertThat(roles.roles(Map.of("groups", List.of("marketing")))).isEmpty();
        assertThat(roles.roles(Map.of("groups", 42))).isEmpty();
        assertThat(roles.roles(Map.of("groups", List.of(1, Map.of("a", "b"))))).isEmpty();
        assertThat(roles.roles(Map.of("roles", List.of("ops")))).isEmpty();
    }

    @Test
    void aDottedClaimReachesIntoAnObject() {
        RoleMap roles = new RoleMap("realm_access.roles", map);
        assertThat(roles.roles(Map.of("realm_access", Map.of("roles", List.of("trail-approvers")))))
                .containsExactly(Role.APPROVE);
        assertThat(roles.roles(Map.of("realm_access", "trail-approvers"))).isEmpty();
    }
}
