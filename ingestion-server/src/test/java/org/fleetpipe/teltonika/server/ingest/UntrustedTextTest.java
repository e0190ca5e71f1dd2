package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Client text that failed validation, made safe to log and store. */
class UntrustedTextTest {

    @Test
    void printableAscii_keptAsIs() {
        assertThat(UntrustedText.escape("35630704244101x", 32)).isEqualTo("35630704244101x");
    }

    @Test
    void controlNonAsciiAndBackslash_escaped() {
        assertThat(UntrustedText.escape("a\nb\r\u001b[2J\u00ff\u007f\\", 32))
                .isEqualTo("a\\x0ab\\x0d\\x1b[2J\\xff\\x7f\\\\");
    }

    @Test
    void longText_cutAndItsLengthShown() {
        assertThat(UntrustedText.escape("1234567890", 4)).isEqualTo("1234...(10 chars)");
    }

    @Test
    void nullStaysNull() {
        assertThat(UntrustedText.escape(null, 4)).isNull();
    }
}
