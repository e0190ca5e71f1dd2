package org.fleetpipe.teltonika.server.limits;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The network a source address belongs to, for the budgets shared by a network rather than by an
 * address: the /24 of an IPv4 address and the /64 of an IPv6 one (an IPv4-mapped IPv6 address is its
 * IPv4 address). Whoever controls one address of a network usually controls its neighbours (a
 * host's other addresses, an IPv6 subnet is one customer's), and spoofed UDP picks any of them.
 */
public final class NetworkKey {

    /** Bits of the network part. */
    public static final int IPV4_PREFIX = 24;
    public static final int IPV6_PREFIX = 64;

    private NetworkKey() {
    }

    /** The network's own address (host bits zero): equal for every address of the network; null for null. */
    public static InetAddress of(InetAddress address) {
        if (address == null) {
            return null;
        }
        byte[] bytes = address.getAddress();
        byte[] network;
        if (address instanceof Inet6Address && isIpv4Mapped(bytes)) {
            network = new byte[] {bytes[12], bytes[13], bytes[14], 0};
        } else if (address instanceof Inet4Address) {
            network = new byte[] {bytes[0], bytes[1], bytes[2], 0};
        } else {
            network = new byte[16];
            System.arraycopy(bytes, 0, network, 0, IPV6_PREFIX / 8);
        }
        try {
            return InetAddress.getByAddress(network);
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** The network in CIDR notation ({@code 10.1.2.0/24}, {@code 2001:db8:0:1:0:0:0:0/64}), for logs. */
    public static String label(InetAddress address) {
        InetAddress network = of(address);
        if (network == null) {
            return "unknown";
        }
        return network.getHostAddress() + "/" + (network instanceof Inet4Address ? IPV4_PREFIX : IPV6_PREFIX);
    }

    private static boolean isIpv4Mapped(byte[] bytes) {
        if (bytes.length != 16) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
    }
}
