package org.fleetpipe.teltonika.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The network a budget is shared by: /24 for IPv4, /64 for IPv6. */
class NetworkKeyTest {

    private static InetAddress ip(String text) throws Exception {
        return InetAddress.getByName(text);
    }

    @Test
    void ipv4_sameSlash24_thenOneKey_otherSlash24_thenAnother() throws Exception {
        assertThat(NetworkKey.of(ip("10.1.2.3"))).isEqualTo(NetworkKey.of(ip("10.1.2.250")))
                .isEqualTo(ip("10.1.2.0"));
        assertThat(NetworkKey.of(ip("10.1.3.3"))).isNotEqualTo(NetworkKey.of(ip("10.1.2.3")));
        assertThat(NetworkKey.of(ip("127.0.0.2"))).as("loopback: all 127.0.0.x one network")
                .isEqualTo(NetworkKey.of(ip("127.0.0.1")));
        assertThat(NetworkKey.of(ip("127.0.1.1"))).isNotEqualTo(NetworkKey.of(ip("127.0.0.1")));
        assertThat(NetworkKey.label(ip("10.1.2.3"))).isEqualTo("10.1.2.0/24");
    }

    @Test
    void ipv6_sameSlash64_thenOneKey_otherSlash64_thenAnother() throws Exception {
        InetAddress a = ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd");
        InetAddress b = ip("2001:db8:1:2::1");
        assertThat(NetworkKey.of(a)).isEqualTo(NetworkKey.of(b)).isEqualTo(ip("2001:db8:1:2::"));
        assertThat(NetworkKey.of(ip("2001:db8:1:3::1"))).isNotEqualTo(NetworkKey.of(a));
        assertThat(NetworkKey.label(a)).isEqualTo("2001:db8:1:2:0:0:0:0/64");
    }

    @Test
    void ipv4MappedIpv6_thenTheIpv4Network() throws Exception {
        // Built from the 16 bytes: InetAddress.getByName would already hand back the Inet4Address.
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        mapped[12] = 10;
        mapped[13] = 1;
        mapped[14] = 2;
        mapped[15] = 3;
        InetAddress v6 = java.net.Inet6Address.getByAddress(null, mapped, -1);

        assertThat(NetworkKey.of(v6)).isEqualTo(NetworkKey.of(ip("10.1.2.99"))).isEqualTo(ip("10.1.2.0"));
        assertThat(NetworkKey.label(v6)).isEqualTo("10.1.2.0/24");
    }

    @Test
    void unknownAddress_thenNull() {
        assertThat(NetworkKey.of(null)).isNull();
        assertThat(NetworkKey.label(null)).isEqualTo("unknown");
    }
}
