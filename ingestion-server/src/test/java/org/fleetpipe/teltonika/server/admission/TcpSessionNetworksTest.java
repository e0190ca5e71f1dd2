package org.fleetpipe.teltonika.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.admission.TcpSessionNetworks.Verdict;
import org.junit.jupiter.api.Test;

class TcpSessionNetworksTest {

    private final Map<String, String> remotes = new HashMap<>();
    private final AtomicInteger lookups = new AtomicInteger();
    private final AtomicLong clock = new AtomicLong();
    private final TcpSessionNetworks networks = new TcpSessionNetworks(imei -> {
        lookups.incrementAndGet();
        return CompletableFuture.completedFuture(remotes.get(imei.value()));
    }, clock::get);

    private static final Imei IMEI = Imei.parse("356307042441013", false);

    private Verdict check(String sender) throws Exception {
        return networks.check(IMEI, InetAddress.getByName(sender)).toCompletableFuture().get();
    }

    @Test
    void address_ofASocketAddressesText_thenItsIp_neverALookup() throws Exception {
        assertThat(TcpSessionNetworks.address(String.valueOf(new InetSocketAddress(InetAddress.getByName("10.1.2.3"),
                5027)))).isEqualTo(InetAddress.getByName("10.1.2.3"));
        assertThat(TcpSessionNetworks.address(String.valueOf(new InetSocketAddress(InetAddress.getByName("2001:db8::7"),
                5027)))).isEqualTo(InetAddress.getByName("2001:db8::7"));
        assertThat(TcpSessionNetworks.address("tracker.example/10.1.2.3:4000")).isEqualTo(InetAddress.getByName("10.1.2.3"));
        assertThat(TcpSessionNetworks.address("/0:0:0:0:0:0:0:1:4000")).isEqualTo(InetAddress.getByName("::1"));
        assertThat(TcpSessionNetworks.address("tracker.example:4000")).isNull();
        assertThat(TcpSessionNetworks.address("")).isNull();
    }

    @Test
    void check_thenSameNetworkOfTheSession_otherNetworkRefused_noSessionTold_aMatchRememberedAMinute()
            throws Exception {
        assertThat(check("10.1.2.9")).isEqualTo(Verdict.NO_SESSION);
        remotes.put(IMEI.value(), "/10.1.2.3:40000");
        assertThat(check("10.1.2.9")).isEqualTo(Verdict.SAME_NETWORK);
        assertThat(check("10.1.3.9")).isEqualTo(Verdict.OTHER_NETWORK);
        int asked = lookups.get();
        assertThat(check("10.1.2.10")).isEqualTo(Verdict.SAME_NETWORK);
        assertThat(lookups).as("a match is remembered").hasValue(asked);

        // A new TCP login from another network: that network is admitted at once (a mismatch asks again).
        remotes.put(IMEI.value(), "/10.9.9.9:40000");
        assertThat(check("10.9.9.1")).isEqualTo(Verdict.SAME_NETWORK);
        clock.addAndGet(TcpSessionNetworks.REMEMBERED.toNanos() + 1);
        assertThat(check("10.1.2.9")).as("the old network, once the match is forgotten")
                .isEqualTo(Verdict.OTHER_NETWORK);
    }
}
