package org.fleetpipe.teltonika.janitor;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The janitor's Lua script: one dead instance's registry entry evicted, every check inside it. */
public final class JanitorScripts {

    public static final LuaScript EVICT_IF_DEAD = LuaScript.fromResource("janitor/evict-if-dead.lua");

    private JanitorScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(EVICT_IF_DEAD);
    }
}
