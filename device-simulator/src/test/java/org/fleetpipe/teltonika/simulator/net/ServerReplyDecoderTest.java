package org.fleetpipe.teltonika.simulator.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServerReplyDecoderTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(new ServerReplyDecoder());

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    @Test
    void decode_loginAckCommandAndAck_fedByteByByte_thenEachComesOutWhole() {
        ByteBuf stream = Unpooled.buffer();
        stream.writeByte(0x01).writeInt(5);
        CommandFrameEncoder.writeTcpFrame(stream, CommandFrame.codec12Command("getinfo"));
        stream.writeInt(3);
        try {
            while (stream.isReadable()) {
                channel.writeInbound(stream.readRetainedSlice(1));
            }
        } finally {
            stream.release();
        }

        assertThat(channel.<Object>readInbound()).isEqualTo(new LoginAnswer(true));
        assertThat(channel.<Object>readInbound()).isEqualTo(new RecordCountAck(5));
        DataFrame command = channel.readInbound();
        try {
            assertThat(command.codec()).isEqualTo(CodecId.CODEC_12);
        } finally {
            command.release();
        }
        assertThat(channel.<Object>readInbound()).isEqualTo(new RecordCountAck(3));
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void decode_loginAndAcksInOneRead_thenAllOfThem() {
        channel.writeInbound(Unpooled.buffer().writeByte(0x01).writeInt(1).writeInt(255).writeInt(0x0001_0000));

        assertThat(channel.<Object>readInbound()).isEqualTo(new LoginAnswer(true));
        assertThat(channel.<Object>readInbound()).isEqualTo(new RecordCountAck(1));
        assertThat(channel.<Object>readInbound()).isEqualTo(new RecordCountAck(255));
        assertThat(channel.<Object>readInbound()).isEqualTo(new RecordCountAck(65536));
    }

    @Test
    void decode_refusedLogin_thenARefusal() {
        channel.writeInbound(Unpooled.buffer().writeByte(0x00));
        assertThat(channel.<Object>readInbound()).isEqualTo(new LoginAnswer(false));
    }

    @Test
    void decode_commandFrameWithABadCrc_thenAnErrorForTheSessionToClose() {
        ByteBuf frame = CommandFrameEncoder.writeTcpFrame(Unpooled.buffer().writeByte(0x01),
                CommandFrame.codec12Command("getver"));
        frame.setByte(frame.writerIndex() - 1, frame.getByte(frame.writerIndex() - 1) ^ 0x55);
        assertThatThrownBy(() -> {
            channel.writeInbound(frame);
            channel.checkException();
        }).isInstanceOf(DecoderException.class).hasMessageContaining("bad-crc");
    }
}
