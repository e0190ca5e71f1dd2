package org.fleetpipe.teltonika.codec.fuzz;

import static org.fleetpipe.teltonika.codec.fuzz.FuzzChecks.SMALL;
import static org.fleetpipe.teltonika.codec.fuzz.FuzzChecks.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.codec.udp.UdpPacketEncoder;

/**
 * One UDP datagram, the whole input. Invariants: only {@code CodecException} escapes; the
 * decoder moves no index; {@code peekHeader} and {@code UdpAck.read} never throw, and the peeked
 * header agrees with a decoded packet; a decoded packet respects the limits, decodes the same with
 * the default limits, and re-encodes to the datagram byte for byte, except byte 4 ("not used",
 * which the decoder ignores and the encoder always writes as 0x01); no buffer stays referenced.
 */
class UdpFuzzTest {

    /** Offset of the datagram's "not used" byte, between packet id and AVL packet id. */
    static final int NOT_USED_AT = 4;

    private final UdpPacketDecoder udp = new UdpPacketDecoder(SMALL);
    private final UdpPacketDecoder udpDefaults = new UdpPacketDecoder(DecodeLimits.DEFAULTS);

    @FuzzTest(maxDuration = "10m")
    void udpDatagram(byte[] data) {
        ByteBuf in = TcpStream.UNTRACKED.heapBuffer(Math.max(data.length, 1)).writeBytes(data);
        try {
            UdpPacketDecoder.UdpHeader header = UdpPacketDecoder.peekHeader(in);
            UdpAck.read(in);
            UdpPacket packet;
            try {
                packet = udp.decode(in);
            } catch (CodecException rejected) {
                packet = null;
            }
            check(in.readerIndex() == 0 && in.writerIndex() == data.length, "decoder moved the indices");
            if (packet != null) {
                FuzzChecks.withinLimits(packet.packet(), SMALL);
                check(packet.equals(udpDefaults.decode(in)), "default limits decode differently");
                check(header != null && header.packetId() == packet.packetId()
                        && header.avlPacketId() == packet.avlPacketId()
                        && packet.imeiText().equals(header.imeiText()), "peeked header %s, decoded %s", header,
                        packet);
                ByteBuf out = TcpStream.UNTRACKED.heapBuffer(data.length);
                ByteBuf expected = TcpStream.UNTRACKED.heapBuffer(data.length).writeBytes(data);
                try {
                    UdpPacketEncoder.writeDatagram(out, packet);
                    expected.setByte(NOT_USED_AT, 0x01);
                    FuzzChecks.same(expected, out, "datagram");
                } finally {
                    out.release();
                    expected.release();
                }
            }
        } finally {
            int refCnt = in.refCnt();
            in.release();
            check(refCnt == 1, "input refCnt %d", refCnt);
        }
    }
}
