package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cleaning steps of the generator, on a small table with each quirk of the real one. */
class IoDictionaryGeneratorTest {

    private static final String HEADER =
            "Id,Name,NumBytes,Type,Min,Max,Multiplier,Units,Description,SupportedModels,Groups\n";

    private static IoDictionary generated(IoDictionaryGenerator generator, String rows) {
        return IoDictionary.parse(List.of(generator.generate(HEADER + rows).split("\n")));
    }

    @Test
    void multiplierZero_rawUnitIsOne_borrowedFromTheSameElement_orUnitDropped() {
        IoDictionaryGenerator generator = new IoDictionaryGenerator();
        IoDictionary d = generated(generator, ""
                + "66,External Voltage,2,Unsigned,0,65535,0.001,V,Voltage,\"FMB920, FMB001\",Permanent\n"
                + "66,External Voltage,2,Unsigned,0,30000,0,mV,\"Voltage, mV\",\"FMB640\",Permanent\n"
                + "72,Dallas Temperature 1,4,Signed,-550,1150,0.1,°C,x,FMB920,Permanent\n"
                + "72,Dallas Temperature 1,2,Signed,-550,1150,0,°C,x,FMB640,Permanent\n"
                + "70,PCB Temperature,2,Signed,-550,1150,0,°C,x,FMB640,Permanent\n");

        assertThat(d.element("FMB640", 66).multiplier()).isEqualByComparingTo(BigDecimal.ONE);
        assertThat(d.element("FMB640", 66).unit()).isEqualTo("mV");
        assertThat(d.element("FMB001", 66).multiplier()).isEqualByComparingTo("0.001");
        assertThat(d.element("FMB640", 72).multiplier()).isEqualByComparingTo("0.1");
        assertThat(d.element("FMB640", 72).bytes()).isEqualTo(2);
        assertThat(d.element("FMB640", 70).multiplier()).isEqualByComparingTo(BigDecimal.ONE);
        assertThat(d.element("FMB640", 70).unit()).isNull();
        assertThat(generator.report()).anyMatch(line -> line.contains("id 70 PCB Temperature read as 1, unit '°C'"));
    }

    @Test
    void unitsSpelledOneWay_nonUnitsDropped_variableLengthHasNoScale() {
        IoDictionary d = generated(new IoDictionaryGenerator(), ""
                + "139,Driver 1 Break Time,2,Unsigned,0,65535,1,min.,x,FMB920,Eventual\n"
                + "392,Speed,2,Unsigned,0,300,1,km/H,x,FMB920,Eventual\n"
                + "10503,Next Calibration Date,4,Unsigned,0,4294967295,1,Timestamp,x,FMB920,Eventual\n"
                + "449,Ignition On Counter value,-1,Hex,0,0,1,s,x,FMB920,Eventual\n"
                + "256,VIN,17,ASCII,0,0,1,,x,FMB920,Eventual\n");

        assertThat(d.element("FMB920", 139).unit()).isEqualTo("min");
        assertThat(d.element("FMB920", 392).unit()).isEqualTo("km/h");
        assertThat(d.element("FMB920", 10503).unit()).isNull();
        assertThat(d.element("FMB920", 449).bytes()).isZero();
        assertThat(d.element("FMB920", 449).unit()).isNull();
        assertThat(d.element("FMB920", 256).bytes()).as("17 bytes: variable length in the stream").isZero();
    }

    @Test
    void snakeCaseNames_andCollisionsWithinOneModel() {
        IoDictionary d = generated(new IoDictionaryGenerator(), ""
                + "67,Battery Voltage,2,Unsigned,0,65535,0.001,V,x,\"FMB920, FMB100\",Permanent\n"
                + "168,Battery Voltage,2,Unsigned,0,65535,1,V,x,\"FMB920, FMB250\",Eventual\n"
                + "385,Beacon ID's,-1,Hex,0,0,1,,x,TMT250,Eventual\n"
                + "25,BLE Temperature #1,2,Signed,-4000,12500,0.01,°C,x,FMB920,Eventual\n");

        assertThat(d.element("FMB920", 67).name()).isEqualTo("battery_voltage");
        assertThat(d.element("FMB920", 168).name()).isEqualTo("battery_voltage_168");
        assertThat(d.element("FMB250", 168).name()).as("no collision on that model").isEqualTo("battery_voltage");
        assertThat(d.element("TMT250", 385).name()).isEqualTo("beacon_ids");
        assertThat(d.element("FMB920", 25).name()).isEqualTo("ble_temperature_1");
    }

    @Test
    void duplicateRowsOfOneModelAndId_theFirstIsKept() {
        IoDictionaryGenerator generator = new IoDictionaryGenerator();
        IoDictionary d = generated(generator, ""
                + "21,GSM Signal,1,Unsigned,0,5,1,,x,FMB920,Permanent\n"
                + "21,GSM Signal Level,1,Unsigned,0,5,1,,x,fmb920 ,Permanent\n");

        assertThat(d.element("FMB920", 21).name()).isEqualTo("gsm_signal");
        assertThat(generator.report()).contains("duplicate (model, id) rows dropped: 1");
    }
}
