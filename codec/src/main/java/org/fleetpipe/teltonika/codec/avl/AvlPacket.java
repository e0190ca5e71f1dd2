package org.fleetpipe.teltonika.codec.avl;

import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;

/** The records of one AVL data packet, all of one codec. */
public record AvlPacket(CodecId codec, List<AvlRecord> records) {

    public AvlPacket {
        if (!codec.isAvl()) {
            throw new IllegalArgumentException("not an AVL codec: " + codec);
        }
        records = List.copyOf(records);
    }

    public int size() {
        return records.size();
    }
}
