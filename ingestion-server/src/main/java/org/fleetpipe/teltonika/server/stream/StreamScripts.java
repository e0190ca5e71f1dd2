package org.fleetpipe.teltonika.server.stream;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The telemetry stream's Lua scripts, each declared once. */
public final class StreamScripts {

    public static final LuaScript TRIM_STREAM = LuaScript.fromResource("stream/trim-stream.lua");

    private StreamScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(TRIM_STREAM);
    }
}
