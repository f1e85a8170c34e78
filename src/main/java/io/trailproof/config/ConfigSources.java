package io.trailproof.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The raw configuration: each key's value and where it came from, merged from (in order of
 * precedence) command-line flags, environment variables, a properties file and the defaults, plus the
 * {@code cluster.kafka.*} pass-through properties (file, then command line). A key's former name
 * ({@link ConfigKey#deprecatedName()}) still sets it, with a warning; its current name given in the
 * same place wins. Values are not checked here ({@link SettingsLoader} does).
 *
 * @param raw every key, with its value and source
 * @param kafka Kafka client properties, passed through unchecked
 */
record ConfigSources(Map<ConfigKey, Sourced> raw, Map<String, String> kafka) {

    /** A value and where it came from ("the default", a file, an environment variable, the command line). */
    record Sourced(String value, String source) {
    }

    static ConfigSources read(Map<String, String> flags, Map<String, String> environment, Path file,
                              List<String> warnings) throws ConfigException {
        Map<ConfigKey, Sourced> raw = new EnumMap<>(ConfigKey.class);
        for (ConfigKey key : ConfigKey.values()) {
            raw.put(key, new Sourced(key.defaultValue(), "the default"));
        }
        // cluster.kafka.* (file, then command line): Kafka client properties, passed through unchecked.
        Map<String, String> kafka = new TreeMap<>();
        if (file != null) {
            Map<String, String> entries = readFile(file);
            putAll(raw, entries, file.toString(), " in " + file + " (config/trailproof.properties lists every key)",
                    kafka, warnings);
        }
        for (ConfigKey key : ConfigKey.values()) {
            String value = environment.get(key.environmentVariable());
            Optional<String> old = key.deprecatedEnvironmentVariable();
            if (value != null) {
                raw.put(key, new Sourced(value.trim(), "environment variable " + key.environmentVariable()));
            } else if (old.isPresent() && environment.get(old.get()) != null) {
                raw.put(key, new Sourced(environment.get(old.get()).trim(), "environment variable " + old.get()));
                warnings.add(deprecation(old.get(), key.environmentVariable(), "environment variable " + old.get()));
            }
        }
        putAll(raw, flags, "the command line", "", kafka, warnings);
        return new ConfigSources(raw, kafka);
    }

    /**
     * Sets the keys named in {@code entries}, which come from one place: {@code cluster.kafka.*}
     * into {@code kafka}, a key's current name over its deprecated one, an unknown name refused.
     */
    private static void putAll(Map<ConfigKey, Sourced> raw, Map<String, String> entries, String source,
                               String unknownSuffix, Map<String, String> kafka, List<String> warnings)
            throws ConfigException {
        Map<ConfigKey, String> deprecated = new EnumMap<>(ConfigKey.class);
        for (Map.Entry<String, String> e : entries.entrySet()) {
            if (passThrough(e.getKey(), e.getValue(), kafka)) {
                continue;
            }
            Optional<ConfigKey> key = ConfigKey.byName(e.getKey());
            if (key.isPresent()) {
                raw.put(key.get(), new Sourced(e.getValue().trim(), source));
                continue;
            }
            ConfigKey renamed = ConfigKey.byDeprecatedName(e.getKey()).orElseThrow(() -> new ConfigException(
                    "unknown configuration key '" + e.getKey() + "'" + unknownSuffix));
            deprecated.put(renamed, e.getValue());
        }
        for (Map.Entry<ConfigKey, String> e : deprecated.entrySet()) {
            ConfigKey key = e.getKey();
            String old = key.deprecatedName().orElseThrow();
            if (!entries.containsKey(key.key())) {
                raw.put(key, new Sourced(e.getValue().trim(), source + " (as " + old + ")"));
            }
            warnings.add(deprecation(old, key.key(), source));
        }
    }

    private static String deprecation(String old, String current, String source) {
        return "configuration key '" + old + "' (" + source + ") is deprecated: it is now '" + current
                + "'; the old name is still read, rename it before a later version drops it";
    }

    private static boolean passThrough(String name, String value, Map<String, String> kafka) throws ConfigException {
        if (!name.startsWith(ConfigKey.KAFKA_PASS_THROUGH_PREFIX)) {
            return false;
        }
        String property = name.substring(ConfigKey.KAFKA_PASS_THROUGH_PREFIX.length());
        if (property.isEmpty()) {
            throw new ConfigException("configuration key '" + name + "' names no Kafka client property "
                    + "(cluster.kafka.<property>, such as cluster.kafka.security.protocol)");
        }
        kafka.put(property, value.trim());
        return true;
    }

    private static Map<String, String> readFile(Path file) throws ConfigException {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            out.put(name, props.getProperty(name));
        }
        return out;
    }

}
