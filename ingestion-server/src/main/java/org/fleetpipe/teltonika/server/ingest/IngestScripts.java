package org.fleetpipe.teltonika.server.ingest;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The telemetry path's Lua scripts, each declared once. */
public final class IngestScripts {

    public static final LuaScript APPEND_PACKETS = LuaScript.fromResource("ingest/append-packets.lua");
    public static final LuaScript DEAD_LETTER_ADD = LuaScript.fromResource("ingest/dead-letter-add.lua");
    /**
     * The body of {@code refresh-info.lua}, sent whole inside a telemetry block rather than by SHA:
     * a script Redis lost (restart, SCRIPT FLUSH) cannot fail a block. Never loaded.
     */
    public static final String REFRESH_INFO = LuaScript.read("ingest/refresh-info.lua");

    private IngestScripts() {
    }

    /** Those called by SHA, to load at start. */
    public static List<LuaScript> all() {
        return List.of(APPEND_PACKETS, DEAD_LETTER_ADD);
    }
}
