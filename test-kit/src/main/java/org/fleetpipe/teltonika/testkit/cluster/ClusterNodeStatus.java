package org.fleetpipe.teltonika.testkit.cluster;

import java.util.List;

/**
 * A node as a live node of the cluster reports it now (one line of {@code CLUSTER NODES}).
 *
 * @param primaryId the node id of its primary when it is a replica, else {@code null}
 * @param failed    whether it is flagged {@code fail} or {@code fail?}
 */
public record ClusterNodeStatus(String id, int port, boolean primary, String primaryId, List<SlotRange> slots,
        boolean failed) {

    public ClusterNodeStatus {
        slots = List.copyOf(slots);
    }

    /** Whether the node holds the slot. */
    public boolean serves(int slot) {
        return slots.stream().anyMatch(range -> range.contains(slot));
    }
}
