package org.fleetpipe.teltonika.server.capture;

import java.time.Duration;

/**
 * Bounds of the support captures ({@code POST /api/v1/devices/{imei}/capture}).
 *
 * @param maxDuration the longest capture one request may ask for (CAPTURE_MAX_DURATION)
 * @param maxCaptures captures active at once in the whole fleet (MAX_CAPTURES)
 * @param retention   how long a capture's stream is kept after the capture ends (CAPTURE_RETENTION)
 * @param maxBytes    what one capture may store, counted as {@link #entryCost}; past it the capture stops
 */
public record CaptureSettings(Duration maxDuration, int maxCaptures, Duration retention, long maxBytes) {

    /** What an entry's fields cost besides its hex and outcome text: names, {@code at}, {@code dir}, the stream id. */
    public static final int ENTRY_OVERHEAD_BYTES = 48;

    /** The defaults, for tests and tools that build settings by hand. */
    public static final CaptureSettings DEFAULTS = new CaptureSettings(Duration.ofHours(1), 100, Duration.ofHours(24),
            8L * 1024 * 1024);

    /** The bytes an entry counts against {@link #maxBytes}: roughly what Redis stores for it. */
    public static long entryCost(String hex, String outcome) {
        return hex.length() + outcome.length() + ENTRY_OVERHEAD_BYTES;
    }

    /**
     * The stream's MAXLEN: only a safety net, never reached before {@link #maxBytes} (every entry
     * costs at least the overhead), so a capture is never trimmed from its start.
     */
    public long streamMaxEntries() {
        return maxBytes / ENTRY_OVERHEAD_BYTES + 1;
    }
}
