package io.trailproof.testing;

import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real Kafka cluster (KRaft) of three nodes, each both broker and controller, each in <b>its own
 * JVM</b>, started from the {@code kafka_2.13} classes of the test class path. Unlike the in-process
 * {@link KafkaTestCluster}, a node here can be killed with SIGKILL ({@link #kill}): no shutdown code
 * runs, its sockets are reset by the kernel, and the surviving two nodes (a controller quorum and
 * {@code min.insync.replicas}) must notice on their own. Killing the partition leader may also kill the
 * active controller: the harder, realistic case.
 *
 * <p>Each node's output goes to {@code <dir>/node-N/kafka.log}; a start that fails throws with the
 * tail of every log. Nodes are killed by {@link #close()}, by a shutdown hook if the test JVM exits
 * without closing, and by themselves when the test JVM dies (they watch its pipe on their stdin).
 */
public final class KafkaProcessCluster implements AutoCloseable {

    /** Where the Maven build copies the brokers' SLF4J provider (see pom.xml, kafka-broker-logging). */
    public static final String LOGGING_LIB_PROPERTY = "trailproof.kafka-broker-lib";

    private static final int NODES = 3;

    /**
     * Starts that may be tried again, with fresh ports: the ports are chosen by binding port 0 and
     * closing, so another process (a test running beside, any outgoing connection) can take one
     * before its node binds it.
     */
    private static final int START_ATTEMPTS = 3;
    private static final String PORT_TAKEN = "Address already in use";
    /** Exit status of a JVM ended by SIGKILL: 128 + 9. */
    private static final int SIGKILL_EXIT = 137;

    private final Path dir;
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final Map<Integer, Integer> brokerPorts = new TreeMap<>();
    private final Thread killOnExit;
    private Admin admin;

    private KafkaProcessCluster(Path dir) {
        this.dir = dir;
        this.killOnExit = new Thread(this::killAll, "kill-kafka-processes");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Formats and starts three combined KRaft nodes (ids 1..3) under {@code dir} and waits (at most
     * {@code timeoutSeconds}) until all three brokers are registered and unfenced.
     */
    public static KafkaProcessCluster start(Path dir, int timeoutSeconds) throws Exception {
        for (int attempt = 1; ; attempt++) {
            // Each attempt in a directory of its own: a node that failed leaves its formatted log behind.
            KafkaProcessCluster cluster = new KafkaProcessCluster(dir.resolve("attempt-" + attempt));
            try {
                cluster.formatAndStart();
                cluster.awaitBrokers(timeoutSeconds);
                return cluster;
            } catch (Throwable e) {
                boolean portTaken = cluster.aNodeLost(PORT_TAKEN);
                String logs = cluster.logTails(40);
                cluster.close();
                if (portTaken && attempt < START_ATTEMPTS) {
                    continue;   // another process bound a chosen port between its choice and the node's bind
                }
                throw new IllegalStateException("the Kafka cluster did not start: " + e + "\n" + logs, e);
            }
        }
    }

    /** Whether a node that exited says {@code text} in its log. */
    private boolean aNodeLost(String text) {
        for (Map.Entry<Integer, Process> p : processes.entrySet()) {
            try {
                Path log = logOf(p.getKey());
                if (!p.getValue().isAlive() && Files.exists(log) && Files.readString(log).contains(text)) {
                    return true;
                }
            } catch (IOException | UncheckedIOException unreadable) {
                // an unreadable log says nothing
            }
        }
        return false;
    }

    private void formatAndStart() throws Exception {
        int[] ports = freePorts(2 * NODES);
        StringBuilder voters = new StringBuilder();
        for (int id = 1; id <= NODES; id++) {
            brokerPorts.put(id, ports[2 * (id - 1)]);
            voters.append(id == 1 ? "" : ",").append(id).append("@127.0.0.1:").append(ports[2 * (id - 1) + 1]);
        }
        String clusterId = Uuid.randomUuid().toString();
        List<Path> configs = new ArrayList<>();
        for (int id = 1; id <= NODES; id++) {
            Path home = Files.createDirectories(dir.resolve("node-" + id));
            Path config = home.resolve("server.properties");
            Files.writeString(config, serverProperties(id, brokerPorts.get(id), ports[2 * (id - 1) + 1], voters.toString(),
                    home.resolve("data")));
            format(clusterId, config);
            configs.add(config);
        }
        String classPath = childClassPath();
        for (int id = 1; id <= NODES; id++) {
            Path home = dir.resolve("node-" + id);
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    // Small and cheap: three of these share two cores with the build and the nodes under test.
                    "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
                    "-Djava.awt.headless=true",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                    "-Dorg.slf4j.simpleLogger.showDateTime=true",
                    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                    // the full configuration dump of every client and the server: hundreds of lines, no signal
                    "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.common.config.AbstractConfig=warn",
                    "-cp", classPath,
                    NodeMain.class.getName(), configs.get(id - 1).toString()));
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(home.resolve("kafka.log").toFile())
                    .start();
            processes.put(id, p);
        }
    }

    private static String serverProperties(int id, int brokerPort, int controllerPort, String voters, Path data) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(id));
        p.put("controller.quorum.voters", voters);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", data.toString());
        p.put("auto.create.topics.enable", "false");
        p.put("offsets.topic.replication.factor", "3");
        p.put("offsets.topic.num.partitions", "3");
        p.put("transaction.state.log.replication.factor", "3");
        p.put("transaction.state.log.min.isr", "2");
        p.put("transaction.state.log.num.partitions", "3");
        p.put("share.coordinator.state.topic.replication.factor", "3");
        p.put("share.coordinator.state.topic.num.partitions", "3");
        p.put("group.initial.rebalance.delay.ms", "0");
        // As KafkaTestCluster: a dead broker is fenced, and drops out of the ISR, within seconds (the
        // defaults are 9 s and 30 s), so a failover test takes seconds.
        p.put("replica.lag.time.max.ms", "3000");
        p.put("broker.session.timeout.ms", "3000");
        p.put("broker.heartbeat.interval.ms", "500");
        // Few threads: three nodes share two cores with everything else.
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        p.put("num.replica.fetchers", "1");
        p.put("log.cleaner.threads", "1");
        // The cleaner's dedupe buffer is 128 MB by default, half of a node's heap here (a node died of
        // OutOfMemoryError as its cleaner started); the compacted topics here are tiny.
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 << 20));
        p.put("num.recovery.threads.per.data.dir", "1");
        return p.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n", "", "\n"));
    }

    /** {@code kafka-storage.sh format}, run in this JVM (it only writes the node's meta files). */
    private static void format(String clusterId, Path config) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status;
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            status = StorageTool.execute(new String[]{"format", "-t", clusterId, "-c", config.toString()}, print);
        }
        if (status != 0) {
            throw new IllegalStateException("formatting " + config + " failed (" + status + "): " + out.toString(StandardCharsets.UTF_8));
        }
    }

    /** The test class path (Kafka and its dependencies), plus the SLF4J provider the build copied for the brokers. */
    private static String childClassPath() throws IOException {
        // Without the service's own SLF4J binding (slf4j-jdk14): the brokers use the one copied for them.
        String classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("slf4j-jdk14"))
                .collect(Collectors.joining(File.pathSeparator));
        Path lib = Path.of(System.getProperty(LOGGING_LIB_PROPERTY, "target/kafka-broker-lib"));
        if (Files.isDirectory(lib)) {
            try (Stream<Path> jars = Files.list(lib)) {
                for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).sorted().toList()) {
                    classPath += File.pathSeparator + jar.toAbsolutePath();
                }
            }
        }
        return classPath;
    }

    private static int[] freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0);
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    private void awaitBrokers(int timeoutSeconds) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        admin = Admin.create(props);
        Await.untilTrue("all " + NODES + " brokers registered", Duration.ofSeconds(timeoutSeconds), () -> {
            for (Map.Entry<Integer, Process> p : processes.entrySet()) {
                if (!p.getValue().isAlive()) {
                    throw new IllegalStateException("Kafka node " + p.getKey() + " exited with " + p.getValue().exitValue());
                }
            }
            try {
                return admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() == NODES;
            } catch (ExecutionException | TimeoutException e) {
                return false;   // not up yet
            }
        });
    }

    /** The brokers' listeners, {@code host:port,...}, for clients. */
    public String bootstrapServers() {
        return brokerPorts.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The broker leading partition 0 of {@code topic}, or -1 while it has none. */
    public int leaderOf(String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Node leader = d.partitions().get(0).leader();
        return leader == null ? -1 : leader.id();
    }

    /**
     * Makes broker {@code id} the leader of partition 0 of {@code topic}: puts it first in the replica
     * list (the same replicas, so nothing is copied) and runs a preferred leader election; waits (at most
     * {@code timeoutSeconds}) until it leads.
     */
    public void makeLeader(String topic, int id, int timeoutSeconds) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        List<Integer> replicas = new ArrayList<>(d.partitions().get(0).replicas().stream().map(Node::id).toList());
        if (!replicas.remove(Integer.valueOf(id))) {
            throw new IllegalArgumentException("broker " + id + " holds no replica of " + topic + ": " + replicas);
        }
        replicas.add(0, id);
        admin.alterPartitionReassignments(Map.of(partition, Optional.of(new NewPartitionReassignment(replicas))))
                .all().get(30, TimeUnit.SECONDS);
        boolean led = Await.within(Duration.ofSeconds(timeoutSeconds), () -> {
            if (leaderOf(topic) == id) {
                return true;
            }
            try {
                admin.electLeaders(ElectionType.PREFERRED, Set.of(partition)).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // not needed (already leader) or not yet possible (the reassignment is being applied): look again
            }
            // Each round asks Kafka to act, not only to answer.
            Await.pace(Duration.ofMillis(200), "the pace of the election requests");
            return false;
        });
        if (!led) {
            throw new IllegalStateException("broker " + id + " did not become the leader of " + topic + " within "
                    + timeoutSeconds + " s (leader " + leaderOf(topic) + ")");
        }
    }

    /** The in-sync replicas of partition 0 of {@code topic}. */
    public List<Integer> inSyncReplicasOf(String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        return d.partitions().get(0).isr().stream().map(Node::id).toList();
    }

    /** The node that is the active (leading) controller of the metadata quorum. */
    public int activeController() throws Exception {
        return admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
    }

    /**
     * Kills node {@code id} with SIGKILL (the JDK's {@link Process#destroyForcibly()} on Linux) and
     * waits until it is gone; fails unless its exit status says SIGKILL (137).
     */
    public void kill(int id) throws InterruptedException {
        Process p = processes.get(id);
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("Kafka node " + id + " is not running");
        }
        p.destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Kafka node " + id + " still runs 30 s after SIGKILL");
        }
        if (p.exitValue() != SIGKILL_EXIT) {
            throw new IllegalStateException("Kafka node " + id + " ended with " + p.exitValue() + ", not by SIGKILL (137)");
        }
    }

    public boolean isAlive(int id) {
        Process p = processes.get(id);
        return p != null && p.isAlive();
    }

    public Path logOf(int id) {
        return dir.resolve("node-" + id).resolve("kafka.log");
    }

    /** The last {@code lines} lines of every node's log (to explain a failure). */
    public String logTails(int lines) {
        StringBuilder s = new StringBuilder();
        for (int id = 1; id <= NODES; id++) {
            Path log = logOf(id);
            Process p = processes.get(id);
            s.append("---- Kafka node ").append(id).append(p == null ? " (not started)" : p.isAlive() ? " (running)"
                    : " (exited " + p.exitValue() + ")").append(", ").append(log).append('\n');
            try {
                List<String> all = Files.exists(log) ? Files.readAllLines(log) : List.of("(no log)");
                all.subList(Math.max(0, all.size() - lines), all.size()).forEach(l -> s.append(l).append('\n'));
            } catch (IOException | UncheckedIOException e) {
                s.append("(unreadable: ").append(e).append(")\n");
            }
        }
        return s.toString();
    }

    private void killAll() {
        for (Process p : processes.values()) {
            p.destroyForcibly();
        }
        for (Process p : processes.values()) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Kills every node still running (no graceful shutdown: nothing of this cluster is kept) and waits for them. */
    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
        }
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs anyway
        }
    }

    /**
     * A node's main: Kafka itself, plus a thread that halts the JVM when its stdin (a pipe from the test
     * JVM) reaches end of file, so a test JVM that dies, even by SIGKILL, leaves no broker behind.
     */
    public static final class NodeMain {
        /** Exit status of a node that halted because the test JVM was gone (distinct from the JVM's own codes). */
        static final int ORPHANED_EXIT = 86;

        public static void main(String[] args) throws Exception {
            Thread orphanGuard = new Thread(() -> {
                try (InputStream in = System.in) {
                    while (in.read() >= 0) {
                        // nothing is sent; only the end matters
                    }
                } catch (IOException e) {
                    // the pipe broke: the parent is gone as well
                }
                Runtime.getRuntime().halt(ORPHANED_EXIT);
            }, "orphan-guard");
            orphanGuard.setDaemon(true);
            orphanGuard.start();
            kafka.Kafka.main(args);
        }
    }
}
