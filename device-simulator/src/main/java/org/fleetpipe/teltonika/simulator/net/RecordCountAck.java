package org.fleetpipe.teltonika.simulator.net;

/** The server's 4-byte ACK: how many records of the last packet it stored. */
public record RecordCountAck(long records) {
}
