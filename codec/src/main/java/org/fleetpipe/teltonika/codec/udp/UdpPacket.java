package org.fleetpipe.teltonika.codec.udp;

import org.fleetpipe.teltonika.codec.avl.AvlPacket;

/**
 * One UDP datagram: its channel header and the AVL packet it carries.
 *
 * @param imeiText the IMEI as sent, not yet validated (policy belongs to the server)
 */
public record UdpPacket(int packetId, int avlPacketId, String imeiText, AvlPacket packet) {
}
