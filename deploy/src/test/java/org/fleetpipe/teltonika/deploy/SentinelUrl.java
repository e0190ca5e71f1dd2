package org.fleetpipe.teltonika.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code redis-sentinel://[:password@]host1:port1,host2:port2/db#master} URL as Lettuce reads it
 * ({@link java.net.URI} does not take a list of hosts).
 */
final class SentinelUrl {

    record Host(String host, int port) {
    }

    private static final Pattern URL =
            Pattern.compile("redis-sentinel://(?:[^@/]*@)?([^/#]+)(?:/(\\d+))?#([A-Za-z0-9._-]+)");
    private static final Pattern HOST = Pattern.compile("([A-Za-z0-9.-]+):(\\d+)");

    final List<Host> sentinels;
    final int database;
    final String master;

    private SentinelUrl(List<Host> sentinels, int database, String master) {
        this.sentinels = sentinels;
        this.database = database;
        this.master = master;
    }

    static SentinelUrl parse(String url) {
        Matcher m = URL.matcher(url);
        if (!m.matches()) {
            throw new IllegalArgumentException("not redis-sentinel://[:password@]host:port,.../db#master: " + url);
        }
        List<Host> hosts = new ArrayList<>();
        for (String h : m.group(1).split(",")) {
            Matcher hm = HOST.matcher(h);
            if (!hm.matches()) {
                throw new IllegalArgumentException("sentinel '" + h + "' is not host:port in " + url);
            }
            hosts.add(new Host(hm.group(1), Integer.parseInt(hm.group(2))));
        }
        return new SentinelUrl(List.copyOf(hosts), m.group(2) == null ? 0 : Integer.parseInt(m.group(2)), m.group(3));
    }
}
