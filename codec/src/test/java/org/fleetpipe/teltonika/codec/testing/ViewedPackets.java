package org.fleetpipe.teltonika.codec.testing;

import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElements;

/** Reads a viewed packet back into objects with only its cursor, to compare with what the decoder makes. */
public final class ViewedPackets {

    private ViewedPackets() {
    }

    /** The packet as objects, built only from what the cursor reads. */
    public static AvlPacket read(AvlPacketView view) {
        AvlRecordCursor c = new AvlRecordCursor().reset(view);
        List<AvlRecord> records = new ArrayList<>();
        while (c.next()) {
            IoElements.Builder io = new IoElements.Builder(c.ioCount());
            while (c.nextIo()) {
                if (c.ioVariable()) {
                    byte[] value = new byte[c.ioVariableLength()];
                    for (int b = 0; b < value.length; b++) {
                        value[b] = c.ioVariableByte(b);
                    }
                    io.variable(c.ioId(), value);
                } else {
                    io.fixed(c.ioId(), c.ioWidth(), c.ioValue());
                }
            }
            records.add(new AvlRecord(c.timestamp(), c.priority(), new GpsElement(c.longitude(), c.latitude(),
                    c.altitude(), c.angle(), c.satellites(), c.speed()), c.eventIoId(), c.generationType(), io.build()));
        }
        return new AvlPacket(view.codec(), records);
    }
}
