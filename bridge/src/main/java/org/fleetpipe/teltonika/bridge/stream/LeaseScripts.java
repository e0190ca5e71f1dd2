package org.fleetpipe.teltonika.bridge.stream;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The partition leases' Lua scripts: compare-and-renew and compare-and-release, by the holder's name. */
public final class LeaseScripts {

    public static final LuaScript RENEW = LuaScript.fromResource("bridge/lease-renew.lua");
    public static final LuaScript RELEASE = LuaScript.fromResource("bridge/lease-release.lua");
    public static final List<LuaScript> ALL = List.of(RENEW, RELEASE);

    private LeaseScripts() {}
}
