package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.limits.NetworkKey;

/**
 * Whether a datagram comes from the source network (/24, /64) of its IMEI's current or last TCP
 * session, as the {@code remote} of its {@code device:info:{imei}} shows (every TCP login writes it;
 * UDP never does). A match is remembered for {@link #REMEMBERED}, so a steady UDP device costs one
 * lookup a minute; a mismatch is asked again each time, so a device that logged in from a new network
 * is admitted from it at once (a spoofed flood of mismatches is bounded by the UDP in-flight limit).
 */
public final class TcpSessionNetworks {

    /** How long a match is trusted without asking Redis again. */
    static final Duration REMEMBERED = Duration.ofMinutes(1);
    /** Bound on the IMEIs remembered, so a flood of known IMEIs cannot grow memory. */
    private static final int MAX_REMEMBERED = 200_000;

    /** The network of a matched IMEI and until when (System.nanoTime) it is trusted. */
    private record Match(InetAddress network, long until) {
    }

    private final Function<Imei, CompletionStage<String>> lastRemote;
    private final LongSupplier nanoClock;
    private final Map<String, Match> remembered = new ConcurrentHashMap<>();

    /** {@code lastRemote} gives the {@code remote} field of the IMEI's device info hash, or null. */
    public TcpSessionNetworks(Function<Imei, CompletionStage<String>> lastRemote) {
        this(lastRemote, System::nanoTime);
    }

    /** With {@code nanoClock} instead of {@link System#nanoTime()}, for tests. */
    TcpSessionNetworks(Function<Imei, CompletionStage<String>> lastRemote, LongSupplier nanoClock) {
        this.lastRemote = lastRemote;
        this.nanoClock = nanoClock;
    }

    /** Reads {@code remote} of {@code device:info:{imei}}. */
    public static Function<Imei, CompletionStage<String>> remoteIn(RedisClusterAsyncCommands<String, String> redis,
                                                                   RedisKeys keys) {
        return imei -> redis.hget(keys.deviceInfo(imei.value()), "remote");
    }

    /** What a datagram of an IMEI from a sender's network is, as far as its TCP sessions tell. */
    public enum Verdict {
        /** The network of its current or last TCP session. */
        SAME_NETWORK,
        /** Another network than its TCP session's. */
        OTHER_NETWORK,
        /** No TCP session known (no device info hash). */
        NO_SESSION
    }

    /** Completes with whether {@code sender} is in the network of {@code imei}'s current or last TCP session. */
    public CompletionStage<Verdict> check(Imei imei, InetAddress sender) {
        InetAddress network = NetworkKey.of(sender);
        long now = nanoClock.getAsLong();
        Match match = remembered.get(imei.value());
        if (match != null && match.until() - now > 0 && match.network().equals(network)) {
            return CompletableFuture.completedFuture(Verdict.SAME_NETWORK);
        }
        return lastRemote.apply(imei).thenApply(remote -> {
            if (remote == null) {
                remembered.remove(imei.value());
                return Verdict.NO_SESSION;
            }
            InetAddress sessionNetwork = NetworkKey.of(address(remote));
            if (sessionNetwork == null || !sessionNetwork.equals(network)) {
                return Verdict.OTHER_NETWORK;
            }
            if (remembered.size() >= MAX_REMEMBERED) {
                // Forgetting costs one lookup at the IMEI's next datagram.
                remembered.clear();
            }
            remembered.put(imei.value(), new Match(network, now + REMEMBERED.toNanos()));
            return Verdict.SAME_NETWORK;
        });
    }

    /**
     * The IP address in a {@code remote} as a login writes it (a socket address's text: "/1.2.3.4:5027",
     * "host/1.2.3.4:5027", "/[::1]:5027"); null when there is none. Never a DNS lookup.
     */
    static InetAddress address(String remote) {
        String text = remote.substring(remote.lastIndexOf('/') + 1);
        if (text.startsWith("[")) {
            int end = text.indexOf(']');
            text = end < 0 ? "" : text.substring(1, end);
        } else if (text.indexOf(':') == text.lastIndexOf(':') && text.indexOf(':') >= 0) {
            // IPv4 with its port.
            text = text.substring(0, text.indexOf(':'));
        } else if (text.lastIndexOf(':') >= 0 && !NetUtil.isValidIpV6Address(text)) {
            // IPv6 without brackets, then its port.
            text = text.substring(0, text.lastIndexOf(':'));
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(text);
        if (bytes == null) {
            return null;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException impossible) {
            return null;
        }
    }
}
