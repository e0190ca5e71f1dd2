package org.fleetpipe.teltonika.server.ingest;

import io.netty.buffer.ByteBuf;

/** Where refused device bytes go, so an operator can see what a device sent and why it was refused. */
public interface FrameDeadLetters {

    /**
     * Records {@code bytes} (not released; read without moving its indices).
     *
     * @param imei the device's IMEI, or null when it had not logged in
     */
    void record(String imei, String reason, String detail, ByteBuf bytes);
}
