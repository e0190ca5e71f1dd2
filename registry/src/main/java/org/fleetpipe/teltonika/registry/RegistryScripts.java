package org.fleetpipe.teltonika.registry;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The registry's Lua scripts (device ownership, heartbeats, remote shutdown), each declared once. */
public final class RegistryScripts {

    public static final LuaScript CLAIM = LuaScript.fromResource("registry/claim.lua");
    public static final LuaScript RELEASE_IF_OWNER = LuaScript.fromResource("registry/release-if-owner.lua");
    public static final LuaScript RECLAIM = LuaScript.fromResource("registry/reclaim.lua");
    public static final LuaScript HEARTBEAT_CREATE = LuaScript.fromResource("registry/heartbeat-create.lua");
    public static final LuaScript HEARTBEAT_RENEW = LuaScript.fromResource("registry/heartbeat-renew.lua");
    public static final LuaScript RETIRE = LuaScript.fromResource("registry/retire.lua");
    public static final LuaScript REQUEST_SHUTDOWN = LuaScript.fromResource("registry/request-shutdown.lua");

    private RegistryScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(CLAIM, RELEASE_IF_OWNER, RECLAIM, HEARTBEAT_CREATE, HEARTBEAT_RENEW, RETIRE, REQUEST_SHUTDOWN);
    }
}
