package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ACK_REPLICAS} on a Redis Cluster: a packet's records go to the primary that serves its
 * partition, on a connection of this writer's own to that node, and its ACK waits for a WAIT on
 * that same connection ({@link ReplicaAckBatcher} per node). So the replicas that confirm are those
 * of the shard that was written, and a WAIT never vouches for writes another connection made. A
 * write that reaches a node which no longer serves the slot (a failover moved it) fails with
 * MOVED: that packet gets no ACK, the topology is read again, and the device's resend goes to the
 * new primary. A node's connection opens in the background the first time one of its partitions
 * is written; packets meanwhile get no ACK either.
 */
public final class ShardReplicaAcks implements TelemetryWriter, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ShardReplicaAcks.class);

    /** Where a slot lives now, and how to learn it again. */
    public interface Topology {
        /** The primary serving {@code slot}, with the login to reach it; empty during a failover. */
        Optional<RedisURI> primaryFor(int slot);

        /** Reads the topology again, in the background. */
        void refresh();
    }

    /** What writes one node's packets and waits for that node's replicas. */
    @FunctionalInterface
    public interface NodeWriter {
        ReplicaAckBatcher over(StatefulRedisConnection<String, String> connection, ConnectionEpoch epoch);
    }

    private final IngestKeys keys;
    private final Topology topology;
    private final RedisClient nodes;
    private final NodeWriter nodeWriter;
    private final int[] slots;
    private final Map<String, Node> byAddress = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public ShardReplicaAcks(IngestKeys keys, Topology topology, RedisClient nodes, NodeWriter nodeWriter) {
        this.keys = keys;
        this.topology = topology;
        this.nodes = nodes;
        this.nodeWriter = nodeWriter;
        this.slots = new int[keys.partitions()];
        for (int p = 0; p < slots.length; p++) {
            slots[p] = SlotHash.getSlot(keys.telemetry(p));
        }
    }

    /** Opens the connections to the nodes serving the partitions now, so the first packets need not wait. */
    public void openAll(Duration timeout) {
        for (int slot : slots) {
            topology.primaryFor(slot).ifPresent(uri -> node(uri));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Node node : byAddress.values()) {
            try {
                node.opened.get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                LOG.warn("telemetry connection to cluster node {} not open yet: {}", node.address, e.toString());
            }
        }
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor loop) {
        int slot = slots[keys.partitionOf(imei.value())];
        Optional<RedisURI> primary = topology.primaryFor(slot);
        if (primary.isEmpty()) {
            topology.refresh();
            return CompletableFuture.failedFuture(new IllegalStateException("no primary serves slot " + slot
                    + " now (a failover?)"));
        }
        Node node = node(primary.get());
        ReplicaAckBatcher writer = node.writer;
        if (writer == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("connection to cluster node "
                    + node.address + " not open yet"));
        }
        return writer.write(imei, packet, receivedAtMillis, connection, loop).whenComplete((stored, error) -> {
            if (error != null) {
                // MOVED, or the node gone: the map may be old. Cheap to ask again; Lettuce limits it.
                topology.refresh();
            }
        });
    }

    private Node node(RedisURI uri) {
        String address = uri.getHost() + ":" + uri.getPort();
        return byAddress.computeIfAbsent(address, a -> open(a, uri));
    }

    private Node open(String address, RedisURI uri) {
        Node node = new Node(address);
        if (closed) {
            node.opened.completeExceptionally(new IllegalStateException("closed"));
            return node;
        }
        ConnectionEpoch epoch = new ConnectionEpoch();
        nodes.addListener(epoch);
        nodes.connectAsync(StringCodec.UTF8, uri).whenComplete((connection, error) -> {
            if (error != null) {
                nodes.removeListener(epoch);
                byAddress.remove(address, node);
                node.opened.completeExceptionally(error);
                LOG.warn("telemetry connection to cluster node {} failed: {}", address, error.toString());
                return;
            }
            epoch.watch(connection);
            node.connection = connection;
            node.writer = nodeWriter.over(connection, epoch);
            node.opened.complete(null);
            LOG.info("telemetry connection to cluster node {} open (ACK_REPLICAS waits for its replicas)", address);
        });
        return node;
    }

    /** True when a WAIT on any node fell short within {@code recent}: readiness reports it. */
    public boolean behindWithin(Duration recent) {
        for (Node node : byAddress.values()) {
            ReplicaAckBatcher writer = node.writer;
            if (writer != null && writer.behindWithin(recent)) {
                return true;
            }
        }
        return false;
    }

    /** Nodes with a connection of their own. */
    public int nodes() {
        return byAddress.size();
    }

    @Override
    public void close() {
        closed = true;
        for (Node node : byAddress.values()) {
            if (node.connection != null) {
                node.connection.close();
            }
        }
    }

    private static final class Node {
        private final String address;
        private final CompletableFuture<Void> opened = new CompletableFuture<>();
        private volatile StatefulRedisConnection<String, String> connection;
        private volatile ReplicaAckBatcher writer;

        Node(String address) {
            this.address = address;
        }
    }
}
