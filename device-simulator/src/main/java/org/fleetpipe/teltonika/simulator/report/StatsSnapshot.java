package org.fleetpipe.teltonika.simulator.report;

/**
 * The counters of a run at one moment.
 *
 * @param recordsGenerated    distinct records the devices created
 * @param recordsSent         records written to the server, resends included
 * @param recordsResent       of those, records sent again after no ACK, a wrong ACK or a lost connection
 * @param recordsAcknowledged records whose packet got the right ACK count (each counted once)
 * @param recordsDropped      records lost because a device's backlog was full
 * @param reconnects          connection attempts after a failed or lost connection
 * @param ackMismatches       ACKs whose count did not match the packet
 * @param firstSendNanos      System.nanoTime of the first packet, 0 before it
 * @param lastAckNanos        System.nanoTime of the latest good ACK, 0 before it
 */
public record StatsSnapshot(int devices, int connected, long recordsGenerated, long packetsSent, long recordsSent,
                            long recordsResent, long packetsAcknowledged, long recordsAcknowledged,
                            long recordsDropped, long reconnects, long connectFailures, long loginRefusals,
                            long ackTimeouts, long ackMismatches, long unexpectedAcks, long commandsAnswered,
                            long firstSendNanos, long lastAckNanos) {

    /** Generated records not (yet) acknowledged, dropped ones included. */
    public long recordsUnacknowledged() {
        return recordsGenerated - recordsAcknowledged;
    }

    /** Acknowledged records per second between the first packet and the latest ACK. */
    public double recordsPerSecond() {
        if (firstSendNanos == 0 || lastAckNanos <= firstSendNanos) {
            return 0;
        }
        return recordsAcknowledged * 1e9 / (lastAckNanos - firstSendNanos);
    }
}
