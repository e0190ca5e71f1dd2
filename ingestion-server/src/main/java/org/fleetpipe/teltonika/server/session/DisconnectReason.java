package org.fleetpipe.teltonika.server.session;

/** Why the server closed a device connection; a metric tag and a log word. */
public enum DisconnectReason {
    PEER_CLOSED("peer-closed"),
    LOGIN_REFUSED("login-refused"),
    LOGIN_TIMEOUT("login-timeout"),
    IDLE_TIMEOUT("idle-timeout"),
    /** A frame begun and not finished within FRAME_TIMEOUT. */
    FRAME_TIMEOUT("frame-timeout"),
    PROTOCOL_VIOLATION("protocol-violation"),
    REJECTED_FRAME("rejected-frame"),
    TOO_MANY_QUEUED_FRAMES("too-many-queued-frames"),
    REDIS_FAILURE("redis-failure"),
    STREAM_FULL("stream-full"),
    CONNECTION_LIMIT("connection-limit"),
    ADDRESS_LIMIT("address-limit"),
    PRE_LOGIN_LIMIT("pre-login-limit"),
    /** The oldest connection not logged in, closed to make room for a newer one in the full pool. */
    PRE_LOGIN_EVICTED("pre-login-evicted"),
    DENIED("denied"),
    NOT_ALLOWED("not-allowed"),
    DUPLICATE_LOGIN("duplicate-login"),
    TAKEN_OVER("taken-over"),
    IO_ERROR("io-error"),
    TLS_FAILURE("tls-failure"),
    SHUTDOWN("shutdown");

    private final String label;

    DisconnectReason(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
