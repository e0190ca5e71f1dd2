package org.fleetpipe.teltonika.codec.avl;

/**
 * Position as the device sent it; coordinates stay raw (degrees x 10^7) so nothing is lost to
 * floating point, and formatting is left to the consumer.
 */
public record GpsElement(int longitude, int latitude, short altitude, int angle, int satellites, int speed) {

    public static final GpsElement EMPTY = new GpsElement(0, 0, (short) 0, 0, 0, 0);

    public GpsElement {
        if ((angle & ~0xFFFF) != 0 || (satellites & ~0xFF) != 0 || (speed & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("angle/speed must fit u16 and satellites u8");
        }
    }
}
