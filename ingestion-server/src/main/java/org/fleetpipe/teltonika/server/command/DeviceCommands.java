package org.fleetpipe.teltonika.server.command;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.command.CommandFrame;

/** What the device pipeline tells the command side: logins, command frames, disconnects. */
public interface DeviceCommands {

    /** Commands are not used (pipeline tests about other things). */
    DeviceCommands NONE = new DeviceCommands() {
        @Override
        public void loggedIn(Imei imei, Channel channel) {
        }

        @Override
        public CompletionStage<Void> frame(Imei imei, Channel channel, CommandFrame frame) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void disconnected(Imei imei, Channel channel) {
        }
    };

    /** The device is connected here now: send what waits for it. Called on the channel's event loop. */
    void loggedIn(Imei imei, Channel channel);

    /**
     * A Codec 12/13/14/15 frame from the device (a Codec 15 one names this device's IMEI). Called on the channel's event loop.
     *
     * @return completes (never exceptionally) once what the frame caused is stored, so the device's
     *         next frame waits for it
     */
    CompletionStage<Void> frame(Imei imei, Channel channel, CommandFrame frame);

    /** The connection ended; a command sent on it and not answered goes back to its queue. */
    void disconnected(Imei imei, Channel channel);
}
