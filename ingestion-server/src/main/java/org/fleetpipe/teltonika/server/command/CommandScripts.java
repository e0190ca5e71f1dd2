package org.fleetpipe.teltonika.server.command;

import java.util.List;
import org.fleetpipe.teltonika.redis.LuaScript;

/** The command domain's Lua scripts, each declared once; those that change a command hash carry {@code command-lib.lua} in front. */
public final class CommandScripts {

    /** The functions every script that changes a command hash loads in front of itself. */
    private static final String COMMAND_LIB = "command/command-lib.lua";

    public static final LuaScript ENQUEUE = LuaScript.fromResource("command/enqueue.lua");
    public static final LuaScript TAKE = LuaScript.fromResources(COMMAND_LIB, "command/take.lua");
    public static final LuaScript FINISH = LuaScript.fromResources(COMMAND_LIB, "command/finish.lua");
    public static final LuaScript REQUEUE = LuaScript.fromResources(COMMAND_LIB, "command/requeue-commands.lua");
    public static final LuaScript EXPIRE_QUEUED = LuaScript.fromResources(COMMAND_LIB, "command/expire-queued.lua");
    public static final LuaScript FAIL_ORPHAN = LuaScript.fromResources(COMMAND_LIB, "command/fail-orphan.lua");

    private CommandScripts() {
    }

    /** All of them, to load at start. */
    public static List<LuaScript> all() {
        return List.of(ENQUEUE, TAKE, FINISH, REQUEUE, EXPIRE_QUEUED, FAIL_ORPHAN);
    }
}
