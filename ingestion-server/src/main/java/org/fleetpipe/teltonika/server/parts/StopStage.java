package org.fleetpipe.teltonika.server.parts;

/**
 * The drain order, as data: every part is given each stage in this order, so a packet read before
 * the stop is written and acknowledged before its connection closes, and a device's registry entry
 * is released before the heartbeat that owns it goes.
 */
public enum StopStage {
    /** Periodic jobs end: no sweep or janitor pass races the stop. */
    STOP_JOBS,
    /** The device listeners take no new connection. */
    STOP_ACCEPTING,
    /** Connections read no new frame (within the budget). */
    STOP_READING,
    /** Packets held by back-pressure fail unwritten: their devices resend to another replica. */
    FAIL_HELD,
    /** Writes under way finish and are acknowledged (within the budget). */
    AWAIT_WRITES,
    /** Device connections close, spread over the drain window; each releases its registry entry. */
    CLOSE_DEVICES,
    /** The sessions are gone and their releases answered. */
    AWAIT_SESSIONS,
    /** The heartbeat goes: the instance is no longer announced. */
    RETIRE,
    /** The operator API and the probes close. */
    CLOSE_HTTP,
    /** The Redis connections close. */
    CLOSE_REDIS,
    /** The event loops and the periodic jobs' threads end. */
    CLOSE_THREADS,
    /** The development Redis (started when REDIS_URL is unset) stops. */
    CLOSE_LOCAL_REDIS
}
