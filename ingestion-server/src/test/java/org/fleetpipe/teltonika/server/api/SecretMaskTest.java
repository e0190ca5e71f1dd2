package org.fleetpipe.teltonika.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretMaskTest {

    @Test
    void setparam_valuesMasked_idsKept() {
        assertThat(SecretMask.command("setparam 2002:apnuser;2003:apn-secret-pw"))
                .isEqualTo("setparam 2002:***;2003:***");
        assertThat(SecretMask.command("  SetParam 2004:host.example:8080")).isEqualTo("  SetParam 2004:***");
        assertThat(SecretMask.command("setparam 2001:")).isEqualTo("setparam 2001:***");
    }

    @Test
    void flush_everyArgumentMasked_otherCommandsAsTheyAre() {
        assertThat(SecretMask.command("flush 352093081452251,,,internet,user,secret,1.2.3.4,5027,0"))
                .isEqualTo("flush ***");
        assertThat(SecretMask.command("getparam 2002;2003")).isEqualTo("getparam 2002;2003");
        assertThat(SecretMask.command("getinfo")).isEqualTo("getinfo");
        assertThat(SecretMask.command("setdigout 1")).isEqualTo("setdigout 1");
        assertThat(SecretMask.command(null)).isNull();
    }

    @Test
    void replies_ofParameterCommands_haveTheirValuesMasked() {
        assertThat(SecretMask.reply("getparam 2003", "Param ID:2003 Value:apn-secret-pw"))
                .isEqualTo("Param ID:2003 Value:***");
        assertThat(SecretMask.reply("getparam 2002;2003", "2002:apnuser;2003:apn-secret-pw"))
                .isEqualTo("2002:***;2003:***");
        assertThat(SecretMask.reply("setparam 2002:apnuser;2003:pw", "New value 2002:apnuser;2003:pw;"))
                .isEqualTo("New value 2002:***;2003:***;");
        assertThat(SecretMask.reply("flush 1,2,3", "Flush ok")).isEqualTo("***");
        assertThat(SecretMask.reply("getinfo", "RTC:2024/1/1 Init:2024/1/1 UpTime:100s"))
                .isEqualTo("RTC:2024/1/1 Init:2024/1/1 UpTime:100s");
        assertThat(SecretMask.reply("getparam 2003", null)).isNull();
    }
}
