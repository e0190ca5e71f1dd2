package org.fleetpipe.teltonika.server.capture;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Where the device pipelines learn whether a device is captured and store its entries. */
public interface CaptureSink {

    /** What became of an appended entry. */
    enum Appended {
        /** Stored. */
        STORED,
        /** Not stored: the capture ended, was stopped, or never was. */
        INACTIVE,
        /** Not stored: it would have gone past CAPTURE_MAX_BYTES, so the capture stopped (its last entry says so). */
        CAPPED
    }

    /** No capture ever: for tests and tools without Redis. */
    CaptureSink NONE = new CaptureSink() {
        @Override
        public CompletionStage<Long> activeUntil(String imei) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Appended> append(String imei, CaptureEntry entry) {
            return CompletableFuture.completedFuture(Appended.INACTIVE);
        }
    };

    /** When the active capture of {@code imei} ends (epoch ms), or null when none is active. */
    CompletionStage<Long> activeUntil(String imei);

    /** Stores {@code entry} at the end of the device's capture stream, if its capture is active. */
    CompletionStage<Appended> append(String imei, CaptureEntry entry);
}
