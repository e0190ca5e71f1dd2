package org.fleetpipe.teltonika.registry;

import java.util.HashMap;
import java.util.Map;

/**
 * The kinds of message on an instance's events channel ({@code <verb> <argument>}). Scripts that
 * publish one get its {@link #verb()} as an argument and never spell it, so every producer and
 * every handler of an event is found from its constant.
 */
public enum InstanceEvent {

    /** Another instance took over one of our devices; the argument is its IMEI. */
    TAKEOVER("takeover"),
    /** A command was queued (or handed back) for a device held here; the argument is its IMEI. */
    COMMAND("command"),
    /** A command accepted here finished (replied or failed); the argument is its id. */
    REPLY("reply"),
    /** A device held here was put on the deny-list; the argument is its IMEI. */
    DENY("deny"),
    /** A device held here was taken off the allow-list; the argument is its IMEI. */
    REVOKE("revoke"),
    /** An operator asked this instance to stop; the argument is its id. */
    SHUTDOWN("shutdown"),
    /** A capture of a device held here started, changed or stopped; the argument is its IMEI. */
    CAPTURE("capture");

    private static final Map<String, InstanceEvent> BY_VERB = new HashMap<>();

    static {
        for (InstanceEvent event : values()) {
            BY_VERB.put(event.verb, event);
        }
    }

    private final String verb;

    InstanceEvent(String verb) {
        this.verb = verb;
    }

    /** The message's first word, as the scripts publish it. */
    public String verb() {
        return verb;
    }

    /** The event a message's first word names, or null for one this version does not know. */
    public static InstanceEvent ofVerb(String verb) {
        return BY_VERB.get(verb);
    }
}
