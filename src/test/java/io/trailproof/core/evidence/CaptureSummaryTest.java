package io.trailproof.core.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The capture line of verify-export (src/site/evidence-format.md#capture). */
class CaptureSummaryTest {

    private static String line(String events) throws Exception {
        CaptureSummary summary = new CaptureSummary();
        for (JsonNode e : new ObjectMapper().readTree("[" + events + "]")) {
            summary.add(e);
        }
        return summary.line();
    }

    private static String ev(String capture, int seq) {
        return "{\"capture_id\":\"" + capture + "\",\"capture_seq\":" + seq + "}";
    }

    @Test
    void aPackageWithoutHolesIsCompleteBySequence() throws Exception {
        assertThat(line("")).isEqualTo("capture: complete by sequence");
        assertThat(line(ev("c", 4) + "," + ev("c", 5) + "," + ev("d", 1))).isEqualTo("capture: complete by sequence");
    }

    @Test
    void recordedGapsComeFirstThenHolesNoGapRecords() throws Exception {
        String gap = "{\"action_type\":\"GAP\",\"action_output\":{\"capture_id\":\"c\",\"missing\":[[2,3]]}}";
        assertThat(line(ev("c", 1) + "," + ev("c", 4) + "," + gap + "," + ev("d", 1) + "," + ev("d", 3)))
                .isEqualTo("capture: 2 gaps (c seq 2-3, d seq 2-2)");
        assertThat(line(ev("c", 1) + "," + ev("c", 4) + "," + gap + "," + ev("c", 2) + "," + ev("c", 3)))
                .isEqualTo("capture: 1 gap (c seq 2-3 filled later)");
    }

    @Test
    void aClientEventThatCarriesACaptureIdIsNoGapRecord() throws Exception {
        String notAGap = "{\"action_type\":\"GAP\",\"capture_id\":\"x\",\"capture_seq\":1,\"action_output\":{\"capture_id\":\"c\",\"missing\":[[1,9]]}}";
        assertThat(line(notAGap)).isEqualTo("capture: complete by sequence");
    }
}
