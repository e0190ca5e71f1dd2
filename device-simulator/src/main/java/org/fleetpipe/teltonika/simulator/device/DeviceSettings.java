package org.fleetpipe.teltonika.simulator.device;

import java.time.Duration;

/**
 * How every device of a run behaves.
 *
 * @param interval         time between packets (interval mode); also the pause before resending after a wrong ACK
 * @param recordsPerPacket records generated per packet, and most records one packet carries
 * @param maxPackets       packets' worth of new records each device generates; Long.MAX_VALUE for no limit
 * @param closedLoop       load mode: the next packet goes out as soon as the previous one is acknowledged
 * @param ackTimeout       how long to wait for the login answer or an ACK before giving up on it
 * @param backlogCapacity  records a device keeps while they are not acknowledged
 * @param maxPacketBytes   largest TCP frame or UDP datagram a device sends (a lone record may exceed it)
 */
public record DeviceSettings(Duration interval, int recordsPerPacket, long maxPackets, boolean closedLoop,
                             Duration ackTimeout, Duration backoffMin, Duration backoffMax, int backlogCapacity,
                             int maxPacketBytes) {

    public DeviceSettings {
        if (recordsPerPacket < 1 || recordsPerPacket > 255) {
            throw new IllegalArgumentException("records per packet must be 1..255: " + recordsPerPacket);
        }
        if (maxPackets < 1 || backlogCapacity < 1) {
            throw new IllegalArgumentException("max packets and backlog capacity must be positive");
        }
    }
}
