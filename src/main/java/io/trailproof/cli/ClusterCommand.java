package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code trailproof cluster status}: each node's applied size and root, how far it applied the
 * topic, whether it runs the cluster's scheduled work, and where the topic ends ({@code GET /v1/cluster} of each node).
 */
final class ClusterCommand implements CliCommand {

    @Override
    public CommandSpec spec() {
        return new CommandSpec("cluster", "Cluster mode (Kafka): the nodes' state.").subcommand(new Status());
    }

    @Override
    public int run(Arguments args, Streams io) {
        System.err.println("trailproof cluster: say what to do: status");
        return 0;
    }

    static final class Status implements CliCommand {

        static final OptionSpec NODE = OptionSpec.text("URL", "A node to ask (repeatable); default: --server alone.",
                "--node").repeatable();

        ClientOptions options;
        List<String> nodes;

        @Override
        public CommandSpec spec() {
            return ClientOptions.declare(new CommandSpec("status", "Each node's applied size and root, its applied "
                    + "offset and lag, whether it runs the scheduled work (timestamps, witnesses), and the topic's "
                    + "end offset.").option(NODE));
        }

        @Override
        public int run(Arguments args, Streams io) {
            options = ClientOptions.of(args);
            nodes = args.texts(NODE) != null ? args.texts(NODE) : List.of();
            List<ServerClient> clients = new ArrayList<>();
            List<String> names = new ArrayList<>();
            if (nodes.isEmpty()) {
                clients.add(options.client());
                names.add(options.server != null ? options.server : "server");
            } else {
                for (String n : nodes) {
                    String url = n.endsWith("/") ? n.substring(0, n.length() - 1) : n;
                    clients.add(new ServerClient(URI.create(url), options.client().apiKey()));
                    names.add(url);
                }
            }
            int exit = 0;
            if (!options.json) {
                System.out.printf("%-16s %-10s %12s %14s %8s %-9s  %s%n", "node", "mode", "applied_size",
                        "applied_offset", "lag", "scheduler", "root");
            }
            long topicEnd = -1;
            for (int i = 0; i < clients.size(); i++) {
                try {
                    ServerClient.Answer a = clients.get(i).get("/v1/cluster");
                    if (!a.ok()) {
                        System.err.println("trailproof: " + names.get(i) + ": " + a.error());
                        exit = 1;
                        continue;
                    }
                    if (options.json) {
                        System.out.println(a.text());
                        continue;
                    }
                    JsonNode c = a.json();
                    boolean kafka = c.path("mode").asText().equals("kafka");
                    System.out.printf("%-16s %-10s %12d %14s %8s %-9s  %s%n",
                            kafka ? c.path("node_id").asText() : names.get(i), c.path("mode").asText(),
                            c.path("applied_size").asLong(), kafka ? c.path("applied_offset").asText() : "-",
                            c.hasNonNull("lag") ? c.path("lag").asText() : "-",
                            kafka ? (c.path("scheduler").asBoolean() ? "yes" : "no") : "-", c.path("root").asText());
                    if (c.hasNonNull("topic_end_offset")) {
                        topicEnd = Math.max(topicEnd, c.path("topic_end_offset").asLong());
                    }
                    if (c.hasNonNull("topic_error")) {
                        System.out.println("  kafka: " + c.path("topic_error").asText());
                    }
                    if (kafka && !c.path("applying").asBoolean(true)) {
                        System.out.println("  NOT APPLYING: " + c.path("apply_error").asText());
                        exit = 1;
                    }
                } catch (ServerClient.ClientException e) {
                    System.err.println("trailproof: " + names.get(i) + ": " + e.getMessage());
                    exit = 1;
                }
            }
            if (!options.json && topicEnd >= 0) {
                System.out.println("topic end offset: " + topicEnd);
            }
            return exit;
        }
    }
}
