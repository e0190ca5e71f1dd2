package org.fleetpipe.teltonika.testkit.cluster;

import java.util.List;
import java.util.Objects;

/**
 * A node of a {@link LocalRedisCluster} as the fixture set it up: its port, node id, role and slots. These do not
 * change after a failover; ask {@link LocalRedisCluster#topology()} or {@link LocalRedisCluster#servingSlot(int)}
 * for what the cluster says now.
 *
 * @param primaryId the node id of the primary this replica was attached to, {@code null} for a primary
 * @param slots     the slots assigned at start, empty for a replica
 */
public record ClusterNode(int port, String id, Role role, String primaryId, List<SlotRange> slots) {

    /** What the fixture made of a node. */
    public enum Role { PRIMARY, REPLICA }

    public ClusterNode {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(role, "role");
        slots = List.copyOf(slots);
    }

    /** {@code 127.0.0.1:port}, the form Redis Cluster uses in its redirections. */
    public String hostAndPort() {
        return LocalRedisCluster.HOST + ":" + port;
    }

    /** {@code redis://127.0.0.1:port}, for a plain connection to this node alone. */
    public String uri() {
        return "redis://" + hostAndPort();
    }

    /** Whether the node was assigned the slot at start. */
    public boolean owns(int slot) {
        return slots.stream().anyMatch(range -> range.contains(slot));
    }
}
