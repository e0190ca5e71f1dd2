package org.fleetpipe.teltonika.server.admission;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The admission lists' Lua scripts, each declared once. */
public final class AdmissionScripts {

    public static final LuaScript CHANGE_LISTS = LuaScript.fromResource("admission/change-lists.lua");

    private AdmissionScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(CHANGE_LISTS);
    }
}
