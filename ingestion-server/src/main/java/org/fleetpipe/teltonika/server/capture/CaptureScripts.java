package org.fleetpipe.teltonika.server.capture;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The captures' Lua scripts, each declared once. */
public final class CaptureScripts {

    public static final LuaScript START = LuaScript.fromResource("capture/start.lua");
    public static final LuaScript STOP = LuaScript.fromResource("capture/stop.lua");
    public static final LuaScript APPEND = LuaScript.fromResource("capture/append.lua");

    private CaptureScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(START, STOP, APPEND);
    }
}
