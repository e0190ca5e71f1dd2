package org.fleetpipe.teltonika.simulator.fault;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Notes every change of role of some Redis servers (master, or replica of which port), polled
 * every 200 ms on a thread of its own: a failure story needs who was whose replica when, for
 * instance an old primary that came back empty and had the new one resync from it.
 */
final class RoleWatch implements AutoCloseable {

    private static final long POLL_MILLIS = 200;

    private final Map<Integer, String> names;
    private final Consumer<String> note;
    private final Map<Integer, String> last = new ConcurrentHashMap<>();
    private final Map<Integer, RedisClient> clients = new ConcurrentHashMap<>();
    private final Map<Integer, StatefulRedisConnection<String, String>> connections = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean stopped;

    /** {@code names}: port to a name for the notes ("old primary", ...). */
    RoleWatch(Map<Integer, String> names, Consumer<String> note) {
        this.names = Map.copyOf(names);
        this.note = note;
        thread = new Thread(this::poll, "redis-role-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void poll() {
        while (!stopped) {
            names.keySet().forEach(this::check);
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void check(int port) {
        String role;
        try {
            role = describe(connection(port).sync().info("replication"));
        } catch (RuntimeException e) {
            role = "unreachable";
            StatefulRedisConnection<String, String> broken = connections.remove(port);
            if (broken != null) {
                broken.closeAsync();
            }
        }
        String before = last.put(port, role);
        if (!role.equals(before)) {
            note.accept(names.get(port) + " (" + port + "): " + role);
        }
    }

    private StatefulRedisConnection<String, String> connection(int port) {
        return connections.computeIfAbsent(port, p -> {
            RedisClient client = clients.computeIfAbsent(p, q -> RedisClient.create(RedisURI.builder()
                    .withHost("127.0.0.1").withPort(q).withTimeout(Duration.ofMillis(500)).build()));
            return client.connect();
        });
    }

    /** "master, N replica(s)" or "replica of PORT (link up|down)". */
    static String describe(String info) {
        Map<String, String> fields = new java.util.HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        if ("master".equals(fields.get("role"))) {
            return "master, " + fields.getOrDefault("connected_slaves", "?") + " replica(s)";
        }
        return "replica of " + fields.get("master_port") + " (link " + fields.get("master_link_status") + ")";
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(2_000);
        connections.values().forEach(StatefulRedisConnection::closeAsync);
        clients.values().forEach(RedisClient::shutdown);
    }
}
