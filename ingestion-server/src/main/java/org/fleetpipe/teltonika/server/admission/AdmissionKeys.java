package org.fleetpipe.teltonika.server.admission;

import org.fleetpipe.teltonika.registry.RedisKeys;

/** The keys of the admission lists (OPERATIONS.md, "Redis keys written"), with the namespace in front. */
public record AdmissionKeys(String namespace) {

    public AdmissionKeys(RedisKeys keys) {
        this(keys.namespace());
    }

    /** Set of the IMEIs allowed in allow-list mode. */
    public String allowedDevices() {
        return namespace + "devices:allowed";
    }

    /** Set of the IMEIs refused in every mode. */
    public String deniedDevices() {
        return namespace + "devices:denied";
    }
}
