package io.trailproof.logging;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka client's SLF4J records end in java.util.logging, where the service's formatter writes them
 * (src/site/operations.md#logs): the binding on the class path is the JDK one, not SLF4J's no-operation
 * fallback (which prints its three-line notice and drops everything).
 */
class Slf4jRoutingTest {

    @Test
    void slf4jRecordsReachJavaUtilLoggingWithTheirLoggerAndLevel() {
        assertThat(LoggerFactory.getILoggerFactory().getClass().getName()).isEqualTo("org.slf4j.impl.JDK14LoggerFactory");
        Logger target = Logger.getLogger("org.apache.kafka.clients.routing-test");
        List<LogRecord> seen = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                seen.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        target.addHandler(capture);
        target.setUseParentHandlers(false);
        try {
            LoggerFactory.getLogger("org.apache.kafka.clients.routing-test").warn("broker {} unreachable", 3);
        } finally {
            target.removeHandler(capture);
        }
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).getLevel()).isEqualTo(Level.WARNING);
        assertThat(seen.get(0).getLoggerName()).isEqualTo("org.apache.kafka.clients.routing-test");
        assertThat(seen.get(0).getMessage()).isEqualTo("broker 3 unreachable");
    }
}
