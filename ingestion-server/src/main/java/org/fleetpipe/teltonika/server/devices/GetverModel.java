package org.fleetpipe.teltonika.server.devices;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hardware model in a {@code getver} reply, such as
 * {@code Ver:03.27.07_00 GPS:AXN_5.10_3333 Hw:FMB920 Mod:15 IMEI:352093081452251 ...}: the token
 * after {@code Hw:} (any case), which must be a whole model name.
 */
public final class GetverModel {

    /** {@code Hw:} at the start or after a space, then the token up to a space, a comma or the end. */
    private static final Pattern HW = Pattern.compile("(?:^|[\\s,;])hw:\\s?([^\\s,;]*)", Pattern.CASE_INSENSITIVE);

    private GetverModel() {
    }

    /** The model the reply names; empty when it names none or the token is not a model name. */
    public static Optional<String> parse(String reply) {
        if (reply == null) {
            return Optional.empty();
        }
        Matcher m = HW.matcher(reply);
        if (!m.find()) {
            return Optional.empty();
        }
        String token = m.group(1);
        return DeviceModels.MODEL.matcher(token).matches() ? Optional.of(token) : Optional.empty();
    }
}
