package io.trailproof.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.undertow.util.HeaderMap;
import io.undertow.util.HeaderValues;
import io.undertow.util.HttpString;
import org.junit.jupiter.api.Test;

class IdempotencyKeyHeaderTest {

    @Test
    void acceptsPrintableAsciiOptionallyQuoted() throws ApiException {
        assertThat(IdempotencyKeyHeader.parse("abc")).isEqualTo("abc");
        assertThat(IdempotencyKeyHeader.parse("\"abc\"")).isEqualTo("abc");
        assertThat(IdempotencyKeyHeader.parse("!")).isEqualTo("!");
        assertThat(IdempotencyKeyHeader.parse("~")).isEqualTo("~");
        assertThat(IdempotencyKeyHeader.parse("a\"b")).isEqualTo("a\"b");
        assertThat(IdempotencyKeyHeader.parse("x".repeat(255))).hasSize(255);
        assertThat(IdempotencyKeyHeader.parse("\"" + "x".repeat(255) + "\"")).hasSize(255);
        assertThat(IdempotencyKeyHeader.parse("ingest:9f86d081884c7d65:lines-1-1000")).isEqualTo("ingest:9f86d081884c7d65:lines-1-1000");
    }

    @Test
    void refusesEverythingElseWithAMessageNamingTheRule() {
        for (String bad : new String[] {"", "\"\"", "a b", "x".repeat(256), "\"" + "x".repeat(256) + "\"", "tab\there",
                "caf\u00e9", "\"open", "\"", "del\u007f", "nl\n"}) {
            assertThatThrownBy(() -> IdempotencyKeyHeader.parse(bad)).as(bad)
                    .isInstanceOf(ApiException.class)
                    .hasMessageContaining("Idempotency-Key header must be 1 to 255 characters")
                    .satisfies(e -> assertThat(((ApiException) e).status()).isEqualTo(400));
        }
    }

    @Test
    void absentHeaderIsNoKeyAndARepeatedOneIsRefused() throws ApiException {
        assertThat(IdempotencyKeyHeader.parse((HeaderValues) null)).isNull();
        HeaderMap headers = new HeaderMap();
        headers.add(new HttpString("Idempotency-Key"), "a");
        headers.add(new HttpString("Idempotency-Key"), "b");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(headers.get("Idempotency-Key")))
                .hasMessageContaining("once");
    }
}
