package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The caps on connections that have not logged in yet. */
class PreLoginCountsTest {

    @Test
    void perAddress_whenOverItsCap_thenRefusedWhileOtherAddressesEnter() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(100, 2);
        InetAddress one = InetAddress.getByName("10.0.0.1");

        assertThat(counts.entered(one)).isNull();
        assertThat(counts.entered(one)).isNull();
        assertThat(counts.entered(one)).contains("more than 2 connections from 10.0.0.1").contains("not logged in");
        assertThat(counts.entered(InetAddress.getByName("10.0.0.2"))).isNull();
        assertThat(counts.count()).isEqualTo(3);

        counts.left(one);
        assertThat(counts.entered(one)).as("a place freed").isNull();
    }

    @Test
    void total_whenOverItsCap_thenRefusedWhateverTheAddress() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(2, 0);

        assertThat(counts.entered(InetAddress.getByName("10.0.0.1"))).isNull();
        assertThat(counts.entered(InetAddress.getByName("10.0.0.2"))).isNull();

        assertThat(counts.entered(InetAddress.getByName("10.0.0.3"))).isEqualTo("more than 2 connections not logged in");
        assertThat(counts.count()).as("a refusal is not counted").isEqualTo(2);
    }
}
