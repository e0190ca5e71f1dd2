package org.fleetpipe.teltonika.simulator.device;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.command.CommandFrame;

/**
 * What a tracker answers to a server command: {@code getinfo} and {@code getver} with text in
 * the style of an FMB device, anything else with an error text. A Codec 14 command for another
 * IMEI is refused with a nACK and not executed.
 */
public final class CommandResponder {

    static final String FIRMWARE = "03.29.00.Rev.04";
    static final String HARDWARE = "FMB920";
    private static final DateTimeFormatter RTC = DateTimeFormatter.ofPattern("yyyy/M/d H:mm", Locale.ROOT);

    private final String imei;
    private final LongSupplier clockMillis;
    private final long startedMillis;
    private final IntSupplier storedRecords;

    /** @param storedRecords records in the device's memory, reported by {@code getinfo} */
    public CommandResponder(String imei, LongSupplier clockMillis, IntSupplier storedRecords) {
        this.imei = imei;
        this.clockMillis = clockMillis;
        this.startedMillis = clockMillis.getAsLong();
        this.storedRecords = storedRecords;
    }

    /** The reply to send, or empty for frames a device does not answer (responses, Codec 13). */
    public Optional<CommandFrame> answer(CommandFrame frame) {
        if (frame.type() != CommandFrame.TYPE_COMMAND || frame.codec() == CodecId.CODEC_13) {
            return Optional.empty();
        }
        if (frame.codec() == CodecId.CODEC_14) {
            if (!imei.equals(frame.imei())) {
                // The device names itself, so the server learns who refused.
                return Optional.of(CommandFrame.codec14Nack(imei));
            }
            return Optional.of(CommandFrame.codec14Response(imei, execute(frame.text())));
        }
        return Optional.of(CommandFrame.codec12Response(execute(frame.text())));
    }

    String execute(String command) {
        String name = command.trim();
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "getinfo" -> info();
            case "getver" -> version();
            default -> "ERROR: unknown command '" + name + "'";
        };
    }

    private String info() {
        long now = clockMillis.getAsLong();
        return "RTC:" + format(now) + " Init:" + format(startedMillis) + " UpTime:" + uptimeSeconds(now)
                + "s PWR:PwrVoltage RST:0 GPS:3 SAT:11 TTFF:9 TTLF:1 NOGPS:0:0 SR:0 FG:0 FL:0 SMS:0 REC:"
                + storedRecords.getAsInt() + " MD:1 DB:0";
    }

    private String version() {
        return "Ver:" + FIRMWARE + " GPS:AXN_5.31_3333 Hw:" + HARDWARE + " Mod:12 IMEI:" + imei + " Init:"
                + format(startedMillis) + " Uptime:" + uptimeSeconds(clockMillis.getAsLong()) + " BL:1.10";
    }

    private long uptimeSeconds(long now) {
        return Math.max(0, (now - startedMillis) / 1000);
    }

    private static String format(long millis) {
        return RTC.format(LocalDateTime.ofEpochSecond(millis / 1000, 0, ZoneOffset.UTC));
    }
}
