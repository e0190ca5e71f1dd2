package org.fleetpipe.teltonika.simulator.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.List;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.simulator.device.RecordGenerator;
import org.fleetpipe.teltonika.simulator.device.Route;
import org.junit.jupiter.api.Test;

class WireRecorderTest {

    private static final String IMEI = "356307042441013";

    private final RecordGenerator generator = new RecordGenerator(CodecId.CODEC_8E, Route.vilniusLoop(), 0, 3,
            () -> 1_700_000_000_000L);

    @Test
    void aRecordIsAckedOnlyWhenTheServersCountAnswersItsFrame() {
        WireRecorder wire = new WireRecorder();
        EmbeddedChannel session = new EmbeddedChannel(wire.tap());
        List<AvlRecord> first = generator.next(3, Duration.ofSeconds(1));
        List<AvlRecord> second = generator.next(2, Duration.ofSeconds(1));

        send(session, Acks.writeLoginRequest(Unpooled.buffer(), IMEI));
        receive(session, Acks.writeLogin(Unpooled.buffer(), true));
        // A frame split across two writes, as a socket may cut it.
        ByteBuf frame = AvlPacketEncoder.writeTcpFrame(Unpooled.buffer(), new AvlPacket(CodecId.CODEC_8E, first));
        send(session, frame.readRetainedSlice(10));
        send(session, frame);
        send(session, AvlPacketEncoder.writeTcpFrame(Unpooled.buffer(), new AvlPacket(CodecId.CODEC_8E, second)));
        receive(session, Acks.writeRecordCount(Unpooled.buffer(), 3));
        session.close();

        assertThat(wire.sent()).containsExactlyInAnyOrderElementsOf(keys(first, second));
        assertThat(wire.acked()).containsExactlyInAnyOrderElementsOf(keys(first));
        assertThat(wire.events(IMEI)).hasSize(6).last().asString().contains("closed, 1 frame(s) unanswered");
    }

    private static void send(EmbeddedChannel session, ByteBuf bytes) {
        session.writeOutbound(bytes);
        ReferenceCountUtil.release(session.readOutbound());
    }

    private static void receive(EmbeddedChannel session, ByteBuf bytes) {
        session.writeInbound(bytes);
        ReferenceCountUtil.release(session.readInbound());
    }

    @SafeVarargs
    private static List<String> keys(List<AvlRecord>... packets) {
        return java.util.Arrays.stream(packets).flatMap(List::stream).map(r -> IMEI + ":" + r.timestamp()).toList();
    }
}
