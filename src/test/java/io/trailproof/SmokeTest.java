package io.trailproof;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
class SmokeTest { @Test void runs() { assertThat(Runtime.version().feature()).isGreaterThanOrEqualTo(21); } }
