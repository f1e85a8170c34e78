package io.trailproof.cli;

import io.trailproof.config.ConfigException;
import io.trailproof.config.Settings;
import io.trailproof.config.SettingsLoader;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code trailproof serve}'s command line (src/site/configuration.md): every key can be set there. */
class ServeCommandTest {

    private static Map<String, String> flags(String... args) throws UsageError {
        String[] line = new String[args.length + 1];
        line[0] = "serve";
        System.arraycopy(args, 0, line, 1, args.length);
        ParsedLine parsed = ArgumentParser.parse(new Commands().root(line), line);
        ServeCommand serve = (ServeCommand) parsed.command();
        serve.read(parsed.arguments());
        return serve.flags();
    }

    @Test
    void setGivesAnyKeyIncludingKafkaClientPropertiesAndTheNamedFlagsWin() throws Exception {
        Settings s = SettingsLoader.load(flags("--set", "verify.interval=PT10M", "--set",
                "cluster.kafka.security.protocol=SSL", "--port", "7009", "--set", "server.port=7008"), Map.of(), null, false);
        assertThat(s.verifyInterval()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.cluster().kafkaProperties()).containsEntry("security.protocol", "SSL");
        assertThat(s.port()).isEqualTo(7009);
        assertThatThrownBy(() -> SettingsLoader.load(flags("--set", "verify.intervall=PT1M"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("verify.intervall");
    }
}
