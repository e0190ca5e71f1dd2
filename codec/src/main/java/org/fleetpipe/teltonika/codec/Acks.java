package org.fleetpipe.teltonika.codec;

import io.netty.buffer.ByteBuf;

/** The server's replies on a TCP session: the login byte and the 4-byte record count. */
public final class Acks {

    public static final int LOGIN_ACCEPTED = 0x01;
    public static final int LOGIN_REFUSED = 0x00;

    private Acks() {
    }

    public static ByteBuf writeLogin(ByteBuf out, boolean accepted) {
        return out.writeByte(accepted ? LOGIN_ACCEPTED : LOGIN_REFUSED);
    }

    public static ByteBuf writeRecordCount(ByteBuf out, int records) {
        return out.writeInt(records);
    }

    /** The device side of a login: u16 length and the ASCII digits. */
    public static ByteBuf writeLoginRequest(ByteBuf out, String imeiText) {
        out.writeShort(imeiText.length());
        for (int i = 0; i < imeiText.length(); i++) {
            out.writeByte(imeiText.charAt(i));
        }
        return out;
    }
}
