package org.fleetpipe.teltonika.simulator.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.fleetpipe.teltonika.codec.Imei;
import org.junit.jupiter.api.Test;

class ImeiSequenceTest {

    @Test
    void imei_forAThousandDevices_thenEachIsDistinctAndPassesTheServersLuhnCheck() {
        ImeiSequence imeis = new ImeiSequence(ImeiSequence.DEFAULT_BASE);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String imei = imeis.imei(i);
            assertThat(Imei.parse(imei, true).value()).isEqualTo(imei);
            seen.add(imei);
        }
        assertThat(seen).hasSize(1000);
    }

    @Test
    void imei_ofTheWikiDevicesBase_thenIsTheWikiImei() {
        assertThat(new ImeiSequence(35209308145225L).imei(0)).isEqualTo("352093081452251");
    }

    @Test
    void imei_whenBaseHasLeadingZeros_thenKeepsFifteenDigits() {
        String imei = new ImeiSequence(12L).imei(3);
        assertThat(imei).hasSize(15).startsWith("00000000000015");
        assertThat(Imei.luhnValid(imei)).isTrue();
    }

    @Test
    void imei_whenBasePlusIndexRunsPastFourteenDigits_thenRefused() {
        ImeiSequence imeis = new ImeiSequence(99_999_999_999_999L);
        assertThat(imeis.fits(1)).isTrue();
        assertThat(imeis.fits(2)).isFalse();
        assertThatThrownBy(() -> imeis.imei(1)).isInstanceOf(IllegalArgumentException.class);
    }
}
