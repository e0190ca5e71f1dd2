package org.fleetpipe.teltonika.simulator.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Resolves the target and source addresses and refuses anything but loopback unless the user
 * said {@code --allow-remote}: a load tool pointed at another machine by a typo is an outage.
 */
final class LoopbackGuard {

    private LoopbackGuard() {
    }

    /**
     * The first address {@code host} resolves to, all of which must be loopback unless remote is allowed.
     *
     * @throws IllegalArgumentException naming {@code option}, when it resolves to nothing or to another machine
     */
    static InetAddress resolve(String option, String host, boolean allowRemote) {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(option + ": cannot resolve '" + host + "'");
        }
        if (!allowRemote) {
            for (InetAddress a : all) {
                if (!a.isLoopbackAddress()) {
                    throw new IllegalArgumentException(option + ": " + host + " (" + a.getHostAddress()
                            + ") is not a loopback address; the simulator only targets this machine unless you"
                            + " add --allow-remote");
                }
            }
        }
        return all[0];
    }
}
