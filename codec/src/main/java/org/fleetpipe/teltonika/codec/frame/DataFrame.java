package org.fleetpipe.teltonika.codec.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import org.fleetpipe.teltonika.codec.CodecId;

/**
 * A complete, CRC-checked data frame (AVL packet or Codec 12/13/14/15 message). It holds the whole
 * frame, preamble to CRC, so a rejected one can be dead-lettered byte for byte. Reference
 * counted: whoever receives it releases it.
 */
public final class DataFrame extends DefaultByteBufHolder implements Frame {

    static final int HEADER_BYTES = 8;
    static final int CRC_BYTES = 4;

    private final CodecId codec;

    DataFrame(CodecId codec, ByteBuf frame) {
        super(frame);
        this.codec = codec;
    }

    public CodecId codec() {
        return codec;
    }

    /** Codec id through the last count byte: what the CRC covers. A view: not retained. */
    public ByteBuf body() {
        ByteBuf frame = content();
        return frame.slice(frame.readerIndex() + HEADER_BYTES, bodyLength());
    }

    /** The byte after the codec id: an AVL packet's declared record count (checked when it is decoded). */
    public int declaredRecords() {
        return content().getUnsignedByte(content().readerIndex() + HEADER_BYTES + 1);
    }

    public int bodyLength() {
        return content().readableBytes() - HEADER_BYTES - CRC_BYTES;
    }

    @Override
    public DataFrame replace(ByteBuf content) {
        return new DataFrame(codec, content);
    }

    @Override
    public DataFrame retain() {
        super.retain();
        return this;
    }

    @Override
    public DataFrame touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return "DataFrame[codec=" + codec.label() + ", bytes=" + content().readableBytes() + "]";
    }
}
