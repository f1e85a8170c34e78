package io.trailproof.cluster;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.ErasureOrder;
import io.trailproof.ledger.LogRanges;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The erasure record of the topic (src/site/erasure.md#cluster-mode): what it carries comes back whole; a broken one stops the apply. */
class ErasureWriteTest {

    @Test
    void roundTripsWithTheIndexesAsAscendingRanges() throws Exception {
        ObjectNode selector = JsonNodeFactory.instance.objectNode().put("agent_id", "subject");
        ErasureOrder order = new ErasureOrder(LogRanges.of(new long[] {9, 3, 4, 5, 12, 4}), List.of("action_input", "metadata"),
                "gdpr art. 17", "key-1a2b3c4d", selector, true);
        byte[] value = new ErasureWrite("n1", "r1", order).encode();
        assertThat(new String(value, StandardCharsets.UTF_8)).contains("\"answer\":\"erasure\"")
                .contains("\"log_indexes\":[[3,5],[9,9],[12,12]]");
        ErasureWrite back = ErasureWrite.decode(WriteRecord.parse(value));
        assertThat(ErasureWrite.is(WriteRecord.parse(value))).isTrue();
        assertThat(back.nodeId()).isEqualTo("n1");
        assertThat(back.requestId()).isEqualTo("r1");
        assertThat(back.order().candidates().toArray()).containsExactly(3, 4, 5, 9, 12);
        assertThat(back.order().fields()).containsExactly("action_input", "metadata");
        assertThat(back.order().reason()).isEqualTo("gdpr art. 17");
        assertThat(back.order().keyName()).isEqualTo("key-1a2b3c4d");
        assertThat(back.order().selector()).isEqualTo(selector);
        assertThat(back.order().listIds()).isTrue();
        ErasureWrite retention = ErasureWrite.decode(WriteRecord.parse(new ErasureWrite("n2", "r2", new ErasureOrder(
                LogRanges.EMPTY, List.of("action_input"), "retention", null, selector, false)).encode()));
        assertThat(retention.order().keyName()).isNull();
        assertThat(retention.order().candidates().isEmpty()).isTrue();
        assertThat(retention.order().listIds()).isFalse();
    }

    @Test
    void aBrokenErasureRecordIsRefusedNotGuessed() {
        String head = "{\"v\":1,\"node\":\"n\",\"request\":\"r\",\"answer\":\"erasure\",\"erasure\":";
        for (String bad : new String[] {
                "{\"log_indexes\":[[5,3]],\"fields\":[],\"reason\":\"r\",\"selector\":{},\"list_ids\":true}",
                "{\"log_indexes\":[[3,5],[4,6]],\"fields\":[],\"reason\":\"r\",\"selector\":{},\"list_ids\":true}",
                "{\"log_indexes\":[[1]],\"fields\":[],\"reason\":\"r\",\"selector\":{},\"list_ids\":true}",
                "{\"log_indexes\":[],\"fields\":[1],\"reason\":\"r\",\"selector\":{},\"list_ids\":true}",
                "{\"log_indexes\":[],\"fields\":[],\"selector\":{},\"list_ids\":true}",
                "{\"log_indexes\":[],\"fields\":[],\"reason\":\"r\",\"selector\":{}}",
                "null"}) {
            assertThatThrownBy(() -> ErasureWrite.decode(WriteRecord.parse((head + bad + "}").getBytes(StandardCharsets.UTF_8))))
                    .as(bad).isInstanceOf(IOException.class);
        }
    }
}
