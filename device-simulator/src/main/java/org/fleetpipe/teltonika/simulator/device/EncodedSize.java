package org.fleetpipe.teltonika.simulator.device;

import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/** Bytes a record or packet takes on the wire, worked out without encoding it, to fill packets up to a size cap. */
public final class EncodedSize {

    /** Timestamp, priority and the 15-byte GPS element. */
    private static final int RECORD_HEADER = 24;
    /** Codec id, number of data 1, number of data 2. */
    public static final int BODY_OVERHEAD = 3;
    /** Preamble, data field length and CRC around the body. */
    public static final int TCP_FRAME_OVERHEAD = 12;

    private EncodedSize() {
    }

    public static int record(CodecId codec, AvlRecord record) {
        boolean c8 = codec == CodecId.CODEC_8;
        boolean c8e = codec == CodecId.CODEC_8E;
        int idWidth = c8 ? 1 : 2;
        int countWidth = c8e ? 2 : 1;
        int size = RECORD_HEADER + (c8 ? 1 : 2) + (codec == CodecId.CODEC_16 ? 1 : 0) + countWidth + 4 * countWidth;
        for (IoElement e : record.io()) {
            if (e instanceof IoElement.Fixed f) {
                size += idWidth + f.width();
            } else if (e instanceof IoElement.Variable v) {
                size += 4 + v.length();
            }
        }
        return c8e ? size + 2 : size;
    }

    /** Codec id through number of data 2: what a UDP datagram carries after its header. */
    public static int body(CodecId codec, List<AvlRecord> records) {
        int size = BODY_OVERHEAD;
        for (AvlRecord r : records) {
            size += record(codec, r);
        }
        return size;
    }

    /** UDP header in front of the body: length, packet id, not-used byte, AVL packet id, IMEI length and IMEI. */
    public static int udpHeader(String imei) {
        return 8 + imei.length();
    }
}
