package org.fleetpipe.teltonika.codec.frame;

/**
 * The login frame's text, not yet validated: whether it is an acceptable IMEI (length, digits,
 * check digit) is a policy decision the server makes with {@code Imei.parse}.
 */
public record LoginFrame(String text) implements Frame {
}
