package org.fleetpipe.teltonika.registry;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who this process is in the cluster. The id is fixed for a process lifetime except when the
 * instance lost its heartbeat and had to come back under a new one; readers take it per use.
 */
public final class InstanceIdentity {

    private final String host;
    private final long pid;
    private final long startedAt;
    private final String version;
    private volatile String id;
    private volatile int tcpPort;
    private volatile int httpPort;

    public InstanceIdentity(String id, String host, long startedAt, String version) {
        this.id = id;
        this.host = host;
        this.pid = ProcessHandle.current().pid();
        this.startedAt = startedAt;
        this.version = version == null ? "dev" : version;
    }

    public String id() {
        return id;
    }

    void changeId(String newId) {
        this.id = newId;
    }

    public void listeningOn(int tcp, int http) {
        this.tcpPort = tcp;
        this.httpPort = http;
    }

    /** The heartbeat hash's fields other than {@code renewed}. */
    Map<String, String> heartbeatFields() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("host", host);
        fields.put("pid", Long.toString(pid));
        fields.put("started", Long.toString(startedAt));
        fields.put("tcp", Integer.toString(tcpPort));
        fields.put("http", Integer.toString(httpPort));
        fields.put("version", version);
        return fields;
    }

    public String host() {
        return host;
    }

    @Override
    public String toString() {
        return id;
    }
}
