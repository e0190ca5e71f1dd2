package org.fleetpipe.teltonika.simulator.device;

import java.util.List;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;

/**
 * The records taken from a backlog for one packet.
 *
 * @param resent how many of them were sent before and not acknowledged
 */
public record BacklogPacket(List<AvlRecord> records, int resent) {

    public BacklogPacket {
        records = List.copyOf(records);
    }

    public int size() {
        return records.size();
    }
}
