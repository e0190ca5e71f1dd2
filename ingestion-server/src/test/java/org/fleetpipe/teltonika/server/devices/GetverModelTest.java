package org.fleetpipe.teltonika.server.devices;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GetverModelTest {

    @Test
    void realReply_namesItsHardware() {
        assertThat(GetverModel.parse("Ver:03.27.07_00 GPS:AXN_5.10_3333 Hw:FMB920 Mod:15 IMEI:352093081452251 "
                + "Init:2019-11-1 10:12 Uptime:17299 MAC:001E4254C1B5 SPC:1(0) AXL:0 OBD:0 BL:1.10 BT:4"))
                .contains("FMB920");
    }

    @Test
    void caseOfTheKey_isLenient_theTokenKeptAsSent() {
        assertThat(GetverModel.parse("Ver:01.00 HW:FMB9X0 Mod:15")).contains("FMB9X0");
        assertThat(GetverModel.parse("hw:fmc650")).contains("fmc650");
        assertThat(GetverModel.parse("Ver:1,Hw:TAT100,Mod:3")).contains("TAT100");
    }

    @Test
    void noModel_orNotAModelToken_isEmpty() {
        assertThat(GetverModel.parse("Ver:03.27.07_00 GPS:AXN_5.10_3333 Mod:15")).isEmpty();
        assertThat(GetverModel.parse("Hw: Mod:15")).isEmpty();
        assertThat(GetverModel.parse("Hw:FMB920/2 Mod:15")).as("a sign outside the token's set").isEmpty();
        assertThat(GetverModel.parse("Hw:" + "X".repeat(33))).isEmpty();
        assertThat(GetverModel.parse("FwHw:FMB920")).as("Hw: must start a token").isEmpty();
        assertThat(GetverModel.parse(null)).isEmpty();
    }
}
