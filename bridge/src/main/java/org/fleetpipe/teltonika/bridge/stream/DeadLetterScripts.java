package org.fleetpipe.teltonika.bridge.stream;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The dead-letter stream's Lua script: add below the cap, or add nothing. */
public final class DeadLetterScripts {

    public static final LuaScript ADD = LuaScript.fromResource("bridge/dead-letter-add.lua");
    public static final List<LuaScript> ALL = List.of(ADD);

    private DeadLetterScripts() {}
}
