package org.fleetpipe.teltonika.server.command;

import org.fleetpipe.teltonika.codec.Imei;

/** Told of every reply a device gave to the command in flight (not a nACK), on the device's event loop: must not block. */
@FunctionalInterface
public interface CommandReplies {

    /** Nobody listens. */
    CommandReplies NONE = (imei, command, text) -> { };

    void replied(Imei imei, TakenCommand command, String text);
}
