package org.fleetpipe.teltonika.server.health;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The queue health's Lua scripts, each declared once. */
public final class HealthScripts {

    public static final LuaScript COUNT_ORPHANS = LuaScript.fromResource("health/count-orphans.lua");
    public static final LuaScript PUBLISH_QUEUES = LuaScript.fromResource("health/publish-queues.lua");
    public static final LuaScript READ_DEVICE_QUEUES = LuaScript.fromResource("health/read-device-queues.lua");
    public static final LuaScript READ_SENT_AT = LuaScript.fromResource("health/read-sent-at.lua");

    private HealthScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(COUNT_ORPHANS, PUBLISH_QUEUES, READ_DEVICE_QUEUES, READ_SENT_AT);
    }
}
