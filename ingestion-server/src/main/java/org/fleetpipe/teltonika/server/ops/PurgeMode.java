package org.fleetpipe.teltonika.server.ops;

import java.util.Locale;

/** What the scheduled purge does ({@code PURGE_MODE}); a purge on demand says for itself ({@code dry_run}). */
public enum PurgeMode {
    /** No scheduled pass runs. */
    OFF,
    /** Each scheduled pass counts, logs and reports what it would remove, and removes nothing. */
    DRY_RUN,
    /** Each scheduled pass removes. */
    LIVE;

    /** As it is written in the setting and in the metrics' {@code mode} label. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The mode of one pass: {@code dry-run} or {@code live}. */
    public static PurgeMode ofPass(boolean dryRun) {
        return dryRun ? DRY_RUN : LIVE;
    }

    /** The mode named {@code text} (any case), or null. */
    public static PurgeMode of(String text) {
        for (PurgeMode mode : values()) {
            if (mode.label().equalsIgnoreCase(text.trim())) {
                return mode;
            }
        }
        return null;
    }
}
