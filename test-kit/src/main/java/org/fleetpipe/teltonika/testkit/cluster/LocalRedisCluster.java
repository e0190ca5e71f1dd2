package org.fleetpipe.teltonika.testkit.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer.Binary;
import org.fleetpipe.teltonika.redislauncher.LoopbackPorts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;

/**
 * A real Redis Cluster on 127.0.0.1 for tests: primaries and replicas, each a {@code redis-server} child process in
 * cluster mode (started with redis-launcher, in a directory of its own), joined, given the 16384 slots and paired
 * with plain cluster commands, without {@code redis-cli}.
 *
 * <p>Works with Redis 6.2 (the binary embedded in embedded-redis) and later. {@link #close()} kills every process
 * and removes their directories; each process also has a shutdown hook.
 */
public final class LocalRedisCluster implements AutoCloseable {

    static final String HOST = "127.0.0.1";

    private static final Logger LOG = LoggerFactory.getLogger(LocalRedisCluster.class);
    // Redis 6.2 has no cluster-port: the bus is always on port + 10000, which must be free as well.
    private static final int BUS_PORT_OFFSET = 10000;
    private static final int LAUNCH_ATTEMPTS = 5;
    // Redis 6.2 has no ADDSLOTSRANGE; a few thousand arguments per command would do, this keeps each small.
    private static final int ADDSLOTS_CHUNK = 1024;
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final Binary binary;
    private final int primaryCount;
    private final int replicasPerPrimary;
    private final Duration nodeTimeout;
    private final Duration readyTimeout;
    private final Map<Integer, LocalRedisServer> servers = new LinkedHashMap<>();
    private final Map<Integer, StatefulRedisConnection<String, String>> connections = new LinkedHashMap<>();
    private final List<ClusterNode> nodes = new ArrayList<>();
    private RedisClient admin;

    private LocalRedisCluster(Builder builder) {
        this.binary = builder.binary != null ? builder.binary : Binary.resolve();
        this.primaryCount = builder.primaries;
        this.replicasPerPrimary = builder.replicasPerPrimary;
        this.nodeTimeout = builder.nodeTimeout;
        this.readyTimeout = builder.readyTimeout;
    }

    /** Starts configuring a cluster; by default 3 primaries with one replica each and a node timeout of 2 s. */
    public static Builder builder() {
        return new Builder();
    }

    /** The redis-server binary a cluster would run (PATH, else the embedded one), if this platform has one. */
    public static Optional<Binary> findBinary() {
        try {
            return Optional.of(Binary.resolve());
        } catch (IllegalStateException noBinaryForThisPlatform) {
            return Optional.empty();
        }
    }

    /**
     * Starts the processes, forms the cluster and returns once every node reports {@code cluster_state:ok} and every
     * replica is attached to its primary and in sync. On failure everything started is killed again.
     */
    public synchronized LocalRedisCluster start() {
        if (!servers.isEmpty()) {
            throw new IllegalStateException("the cluster was started already");
        }
        long started = System.nanoTime();
        try {
            form();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("Redis Cluster of {} primaries and {} replicas ready at {} in {} ms ({})", primaryCount,
                primaryCount * replicasPerPrimary, uri(), (System.nanoTime() - started) / 1_000_000,
                binary.description());
        return this;
    }

    private void form() {
        int total = primaryCount * (1 + replicasPerPrimary);
        for (int i = 0; i < total; i++) {
            LocalRedisServer server = launchNode();
            servers.put(server.port(), server);
        }
        admin = RedisClient.create();
        List<Integer> ports = List.copyOf(servers.keySet());
        List<String> ids = ports.stream().map(port -> commands(port).clusterMyId()).toList();

        for (int p = 0; p < primaryCount; p++) {
            List<SlotRange> slots = List.of(new SlotRange(p * SlotRange.SLOTS / primaryCount,
                    (p + 1) * SlotRange.SLOTS / primaryCount - 1));
            addSlots(ports.get(p), slots.get(0));
            nodes.add(new ClusterNode(ports.get(p), ids.get(p), ClusterNode.Role.PRIMARY, null, slots));
        }
        for (int r = primaryCount; r < total; r++) {
            // Replica r - primaryCount goes to primary (r - primaryCount) % primaryCount: one each before a second.
            String primaryId = ids.get((r - primaryCount) % primaryCount);
            nodes.add(new ClusterNode(ports.get(r), ids.get(r), ClusterNode.Role.REPLICA, primaryId, List.of()));
        }
        for (int i = 0; i < total; i++) {
            // Distinct epochs up front, as redis-cli does; else the nodes resolve the collision themselves, slower.
            commands(ports.get(i)).clusterSetConfigEpoch(i + 1L);
        }
        for (int i = 1; i < total; i++) {
            commands(ports.get(0)).clusterMeet(HOST, ports.get(i));
        }
        LOG.debug("Cluster nodes started, slots assigned, meetings sent: {}", seeds());
        await("every node knows every other node and the primaries' slots", () -> {
            for (ClusterNode node : nodes) {
                String problem = joinProblem(node);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        });
        LOG.debug("Cluster nodes joined; attaching the replicas");
        for (ClusterNode replica : replicas()) {
            commands(replica.port()).clusterReplicate(replica.primaryId());
        }
        await("every node reports cluster_state:ok and every replica is in sync with its primary", () -> {
            for (ClusterNode node : nodes) {
                String problem = readinessProblem(node);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        });
    }

    private LocalRedisServer launchNode() {
        IllegalStateException last = null;
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
            LocalRedisServer server = LocalRedisServer.builder()
                    .binary(binary)
                    .port(LoopbackPorts.free(BUS_PORT_OFFSET))
                    .args("--cluster-enabled", "yes",
                            // Relative: it lands in the process's own directory, removed with it.
                            "--cluster-config-file", "nodes.conf",
                            "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()),
                            // A replica takes over however long ago it last heard of its primary: tests kill at will.
                            "--cluster-replica-validity-factor", "0")
                    .build();
            try {
                return server.start();
            } catch (IllegalStateException e) {
                // Most likely another process took one of the two ports between our check and the bind.
                server.kill();
                last = e;
            }
        }
        throw new IllegalStateException("could not start a cluster node after " + LAUNCH_ATTEMPTS + " attempts: "
                + last.getMessage(), last);
    }

    private void addSlots(int port, SlotRange range) {
        for (int from = range.from(); from <= range.to(); from += ADDSLOTS_CHUNK) {
            int to = Math.min(range.to(), from + ADDSLOTS_CHUNK - 1);
            int[] chunk = new int[to - from + 1];
            for (int i = 0; i < chunk.length; i++) {
                chunk[i] = from + i;
            }
            commands(port).clusterAddSlots(chunk);
        }
    }

    // Null once the node sees all nodes out of handshake, and every primary as a primary with its slots.
    private String joinProblem(ClusterNode viewer) {
        Map<String, RedisClusterNode> seen = clusterNodes(viewer.port());
        if (seen.size() != nodes.size()) {
            return viewer.hostAndPort() + " knows " + seen.size() + " of " + nodes.size() + " nodes";
        }
        for (ClusterNode node : nodes) {
            RedisClusterNode view = seen.get(node.id());
            if (view == null || view.is(NodeFlag.HANDSHAKE) || view.is(NodeFlag.NOADDR)) {
                return viewer.hostAndPort() + " has not completed the handshake with " + node.hostAndPort();
            }
            if (node.role() == ClusterNode.Role.PRIMARY
                    && (!view.is(NodeFlag.UPSTREAM) || !toRanges(view.getSlots()).equals(node.slots()))) {
                return viewer.hostAndPort() + " does not yet see " + node.hostAndPort() + " as primary of "
                        + node.slots();
            }
        }
        return null;
    }

    // Null once the node reports cluster_state:ok, sees each replica under its primary, and (a replica) is in sync.
    private String readinessProblem(ClusterNode viewer) {
        RedisCommands<String, String> commands = commands(viewer.port());
        if (!commands.clusterInfo().contains("cluster_state:ok")) {
            return viewer.hostAndPort() + " does not report cluster_state:ok";
        }
        Map<String, RedisClusterNode> seen = clusterNodes(viewer.port());
        for (ClusterNode replica : replicas()) {
            RedisClusterNode view = seen.get(replica.id());
            if (view == null || !replica.primaryId().equals(view.getSlaveOf())) {
                return viewer.hostAndPort() + " does not yet see " + replica.hostAndPort() + " as a replica of "
                        + replica.primaryId();
            }
        }
        if (viewer.role() == ClusterNode.Role.REPLICA
                && !commands.info("replication").contains("master_link_status:up")) {
            return viewer.hostAndPort() + " has not finished its first sync with its primary";
        }
        return null;
    }

    /** {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,...}: every node as set up (killed ones too). */
    public String uri() {
        return "redis-cluster://" + String.join(",", seeds());
    }

    /** Every node's {@code 127.0.0.1:port} as set up (killed ones too), primaries first. */
    public List<String> seeds() {
        return nodes.stream().map(ClusterNode::hostAndPort).toList();
    }

    /** The seeds as Lettuce URIs with a 5 s command timeout, for {@code RedisClusterClient.create(...)}. */
    public List<RedisURI> redisUris() {
        return nodes.stream().map(node -> {
            RedisURI uri = RedisURI.create(HOST, node.port());
            uri.setTimeout(COMMAND_TIMEOUT);
            return uri;
        }).toList();
    }

    /** All nodes as set up: primaries first, then replicas. */
    public List<ClusterNode> nodes() {
        return List.copyOf(nodes);
    }

    /** The nodes set up as primaries, in slot order. */
    public List<ClusterNode> primaries() {
        return nodes.stream().filter(node -> node.role() == ClusterNode.Role.PRIMARY).toList();
    }

    /** The nodes set up as replicas. */
    public List<ClusterNode> replicas() {
        return nodes.stream().filter(node -> node.role() == ClusterNode.Role.REPLICA).toList();
    }

    /** The replicas set up under this primary. */
    public List<ClusterNode> replicasOf(ClusterNode primary) {
        return replicas().stream().filter(replica -> replica.primaryId().equals(primary.id())).toList();
    }

    /** The node set up to own the slot at start. */
    public ClusterNode primaryAtStartFor(int slot) {
        return primaries().stream().filter(node -> node.owns(slot)).findFirst().orElseThrow();
    }

    /**
     * The cluster now, as {@code CLUSTER NODES} of the first node still running reports it: after a kill, the killed
     * node is flagged failed once the others agree, and a promoted replica shows as primary with the slots.
     */
    public synchronized List<ClusterNodeStatus> topology() {
        for (ClusterNode viewer : nodes) {
            if (isAlive(viewer)) {
                return clusterNodes(viewer.port()).values().stream()
                        .map(view -> new ClusterNodeStatus(view.getNodeId(), view.getUri().getPort(),
                                view.is(NodeFlag.UPSTREAM), view.getSlaveOf(), toRanges(view.getSlots()),
                                view.is(NodeFlag.FAIL) || view.is(NodeFlag.EVENTUAL_FAIL)))
                        .toList();
            }
        }
        throw new IllegalStateException("no node of the cluster is running");
    }

    /** The running node that serves the slot as a primary now, by {@link #topology()}; empty during a failover. */
    public synchronized Optional<ClusterNode> servingSlot(int slot) {
        return topology().stream()
                .filter(status -> status.primary() && !status.failed() && status.serves(slot))
                .findFirst()
                .flatMap(status -> nodes.stream().filter(node -> node.id().equals(status.id())).findFirst())
                .filter(this::isAlive);
    }

    /** Whether the node's process is running. */
    public synchronized boolean isAlive(ClusterNode node) {
        LocalRedisServer server = servers.get(node.port());
        return server != null && server.isRunning();
    }

    /** SIGKILL of the node's process, as a crash; returns once it is gone and its directory removed. */
    public synchronized void kill(ClusterNode node) {
        LocalRedisServer server = servers.get(node.port());
        if (server == null) {
            throw new IllegalArgumentException(node.hostAndPort() + " is not a node of this cluster");
        }
        // Closed first: left open, Lettuce would keep trying to reconnect to a port nobody answers.
        closeConnection(node.port());
        server.kill();
        LOG.info("Killed cluster node {} ({}, id {})", node.hostAndPort(), node.role(), node.id());
    }

    /** FLUSHALL on every running node that is a primary now. */
    public synchronized void flushAll() {
        for (ClusterNode node : nodes) {
            if (isAlive(node)) {
                RedisCommands<String, String> commands = commands(node.port());
                if ("master".equals(String.valueOf(commands.role().get(0)))) {
                    commands.flushall();
                }
            }
        }
    }

    /** The redis-server binary the nodes run. */
    public Binary binary() {
        return binary;
    }

    /** Kills every process and removes their directories; safe to call twice. */
    @Override
    public synchronized void close() {
        for (Integer port : List.copyOf(connections.keySet())) {
            closeConnection(port);
        }
        if (admin != null) {
            admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            admin = null;
        }
        RuntimeException failure = null;
        for (LocalRedisServer server : servers.values()) {
            try {
                server.kill();
            } catch (RuntimeException e) {
                // The others must still go.
                failure = failure == null ? e : failure;
            }
        }
        servers.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return uri();
    }

    private RedisCommands<String, String> commands(int port) {
        return connections.computeIfAbsent(port, p -> {
            RedisURI uri = RedisURI.create(HOST, p);
            uri.setTimeout(COMMAND_TIMEOUT);
            return admin.connect(uri);
        }).sync();
    }

    private void closeConnection(int port) {
        StatefulRedisConnection<String, String> connection = connections.remove(port);
        if (connection != null) {
            connection.close();
        }
    }

    private Map<String, RedisClusterNode> clusterNodes(int port) {
        return ClusterPartitionParser.parse(commands(port).clusterNodes()).stream()
                .collect(Collectors.toMap(RedisClusterNode::getNodeId, node -> node, (a, b) -> a,
                        LinkedHashMap::new));
    }

    private static List<SlotRange> toRanges(List<Integer> slots) {
        List<Integer> sorted = slots.stream().sorted().toList();
        List<SlotRange> ranges = new ArrayList<>();
        int i = 0;
        while (i < sorted.size()) {
            int from = sorted.get(i);
            int to = from;
            while (i + 1 < sorted.size() && sorted.get(i + 1) == to + 1) {
                to = sorted.get(++i);
            }
            ranges.add(new SlotRange(from, to));
            i++;
        }
        return ranges;
    }

    // Polls until the check returns null (no problem left); the last problem goes into the timeout message.
    private void await(String what, Supplier<String> check) {
        long deadline = System.nanoTime() + readyTimeout.toNanos();
        String problem;
        while (true) {
            try {
                problem = check.get();
            } catch (RedisException e) {
                problem = e.toString();
            }
            if (problem == null) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + readyTimeout.toMillis() + " ms waiting until "
                        + what + "; last: " + problem);
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting until " + what, e);
            }
        }
    }

    /** Configures a {@link LocalRedisCluster}. */
    public static final class Builder {
        private int primaries = 3;
        private int replicasPerPrimary = 1;
        private Duration nodeTimeout = Duration.ofMillis(2000);
        private Duration readyTimeout = Duration.ofSeconds(30);
        private Binary binary;

        private Builder() {
        }

        /** How many primaries share the slots; 3 by default, and at least 3 for a failover (a majority votes). */
        public Builder primaries(int primaries) {
            if (primaries < 1 || primaries > 64) {
                throw new IllegalArgumentException("primaries must be in 1..64, was " + primaries);
            }
            this.primaries = primaries;
            return this;
        }

        /** How many replicas each primary gets; 1 by default. */
        public Builder replicasPerPrimary(int replicas) {
            if (replicas < 0 || replicas > 8) {
                throw new IllegalArgumentException("replicasPerPrimary must be in 0..8, was " + replicas);
            }
            this.replicasPerPrimary = replicas;
            return this;
        }

        /**
         * {@code cluster-node-timeout}: how long a node may not answer before it counts as failing; a failover takes
         * about twice this plus a second. 2 s by default (Redis's own default is 15 s).
         */
        public Builder nodeTimeout(Duration timeout) {
            if (timeout.toMillis() < 100) {
                throw new IllegalArgumentException("nodeTimeout must be at least 100 ms, was " + timeout);
            }
            this.nodeTimeout = timeout;
            return this;
        }

        /** How long {@link #start()} waits for the cluster to form; 30 s by default. */
        public Builder readyTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("readyTimeout must be positive, was " + timeout);
            }
            this.readyTimeout = timeout;
            return this;
        }

        /** The binary to run; by default redis-server from the PATH, else the one embedded in embedded-redis. */
        public Builder binary(Binary binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /** Builds the cluster without starting it; resolves the binary. */
        public LocalRedisCluster build() {
            return new LocalRedisCluster(this);
        }
    }
}
