package org.fleetpipe.teltonika.codec.avl;

/**
 * A reusable array a packet's body is copied into to be checked and read in place
 * ({@link AvlPacketDecoder#view(io.netty.buffer.ByteBuf, AvlScratch)}): one per event loop, so a
 * packet costs no array of its own. A view made in it is valid until the scratch is used again.
 * Not thread-safe.
 */
public final class AvlScratch {

    private byte[] array = new byte[2048];

    byte[] array(int length) {
        if (array.length < length) {
            array = new byte[Math.max(length, 2 * array.length)];
        }
        return array;
    }
}
