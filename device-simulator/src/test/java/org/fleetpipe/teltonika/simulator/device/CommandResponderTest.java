package org.fleetpipe.teltonika.simulator.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Optional;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.junit.jupiter.api.Test;

class CommandResponderTest {

    /** The IMEI of the wiki's Codec 14 example. */
    private static final String WIKI_IMEI = "352093081452251";
    private static final String OTHER_IMEI = "352093080000000";

    private final long[] now = {1_700_000_000_000L};
    private final CommandResponder device = new CommandResponder(WIKI_IMEI, () -> now[0], () -> 42);
    private final CommandResponder otherDevice = new CommandResponder(OTHER_IMEI, () -> now[0], () -> 0);

    @Test
    void answer_toTheWikisCodec12Getinfo_thenACodec12ResponseWithDeviceInfo() {
        now[0] += 125_000;
        CommandFrame reply = replyOnTheWire(device, "codec12-getinfo-command");

        assertThat(reply.codec()).isEqualTo(CodecId.CODEC_12);
        assertThat(reply.type()).isEqualTo(CommandFrame.TYPE_RESPONSE);
        assertThat(reply.text()).startsWith("RTC:").contains("UpTime:125s", "REC:42", "GPS:3");
    }

    @Test
    void answer_toTheWikisCodec14Getver_forThisDevice_thenAnAckWithTheVersion() {
        CommandFrame reply = replyOnTheWire(device, "codec14-getver-command");

        assertThat(reply.codec()).isEqualTo(CodecId.CODEC_14);
        assertThat(reply.type()).isEqualTo(CommandFrame.TYPE_RESPONSE);
        assertThat(reply.imei()).isEqualTo(WIKI_IMEI);
        assertThat(reply.text()).startsWith("Ver:").contains("IMEI:" + WIKI_IMEI, CommandResponder.HARDWARE);
    }

    @Test
    void answer_toACodec14CommandForAnotherImei_thenANackAndNothingExecuted() {
        CommandFrame reply = replyOnTheWire(otherDevice, "codec14-getver-command");

        assertThat(reply.codec()).isEqualTo(CodecId.CODEC_14);
        assertThat(reply.type()).isEqualTo(CommandFrame.TYPE_NACK);
        assertThat(reply.isNack()).isTrue();
        assertThat(reply.imei()).isEqualTo(OTHER_IMEI);
        assertThat(reply.payloadLength()).isZero();
    }

    @Test
    void answer_toAnUnknownCommand_thenAnErrorText() {
        Optional<CommandFrame> reply = device.answer(CommandFrame.codec12Command("setdigout 1"));
        assertThat(reply).get().extracting(CommandFrame::text).isEqualTo("ERROR: unknown command 'setdigout 1'");
    }

    @Test
    void answer_ignoresCaseAndSurroundingBlanks() {
        assertThat(device.answer(CommandFrame.codec12Command(" GetVer\r\n")).orElseThrow().text()).startsWith("Ver:");
    }

    @Test
    void answer_toAResponseOrACodec13Message_thenNothing() {
        assertThat(device.answer(CommandFrame.codec12Response("getinfo"))).isEmpty();
        assertThat(device.answer(new CommandFrame(CodecId.CODEC_13, CommandFrame.TYPE_COMMAND, null, 0,
                new byte[] {'h', 'i'}))).isEmpty();
    }

    /** Frames the vector as the device receives it, answers, and decodes the reply as the server would. */
    private static CommandFrame replyOnTheWire(CommandResponder responder, String vector) {
        CommandFrameDecoder decoder = new CommandFrameDecoder(DecodeLimits.DEFAULTS);
        ByteBuf in = Unpooled.wrappedBuffer(GoldenVectors.all().stream().filter(v -> v.name().equals(vector))
                .findFirst().orElseThrow().bytes());
        CommandFrame command;
        try {
            DataFrame frame = (DataFrame) new TcpFrameReader(DecodeLimits.DEFAULTS).tryRead(in);
            try {
                command = decoder.decode(frame.body());
            } finally {
                frame.release();
            }
        } finally {
            in.release();
        }
        CommandFrame reply = responder.answer(command).orElseThrow();
        ByteBuf out = CommandFrameEncoder.writeTcpFrame(Unpooled.buffer(), reply);
        try {
            DataFrame frame = (DataFrame) new TcpFrameReader(DecodeLimits.DEFAULTS).tryRead(out);
            try {
                return decoder.decode(frame.body());
            } finally {
                frame.release();
            }
        } finally {
            out.release();
        }
    }
}
