package org.fleetpipe.teltonika.redislauncher;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import redis.embedded.core.ExecutableProvider;

/** A real {@code redis-server} child process on 127.0.0.1, without persistence, for development and tests. */
public final class LocalRedisServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalRedisServer.class);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    private static final int OUTPUT_LINES_KEPT = 40;
    // Only a port we picked ourselves may be swapped for another when a concurrent process grabbed it first.
    private static final int FREE_PORT_ATTEMPTS = 3;

    private final Binary binary;
    private final List<String> extraArgs;
    private final Path configFile;
    private final Duration timeout;
    private final String password;
    private final boolean portChosenByUs;
    private volatile int port;
    private boolean startedOnce;
    private volatile Process process;
    // Its own empty directory per launch: redis-server loads a dump.rdb it finds in its working
    // directory at start, and a replica (or a primary feeding one) writes one there.
    private volatile Path workDir;
    // stop() in a shutdown hook may race this class's own hook, and whoever halts the JVM must
    // not do so while the other is still deleting: the second caller waits here for the first.
    private final Object workDirLock = new Object();
    private volatile boolean paused;
    private volatile OutputTail output = new OutputTail();
    private Thread shutdownHook;

    private LocalRedisServer(Builder builder) {
        this.binary = builder.binary != null ? builder.binary : Binary.resolve();
        this.extraArgs = List.copyOf(builder.extraArgs);
        this.configFile = builder.configFile;
        this.timeout = builder.timeout;
        this.password = builder.password;
        this.portChosenByUs = builder.port == 0;
        this.port = portChosenByUs ? LoopbackPorts.free() : builder.port;
    }

    /** Starts configuring a server; by default a free port and the binary from {@link Binary#resolve()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts the process if it is not running and returns once it answers PING. */
    public synchronized LocalRedisServer start() {
        if (isRunning()) {
            return this;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                launch();
                break;
            } catch (PortInUseException e) {
                if (!portChosenByUs || startedOnce || attempt >= FREE_PORT_ATTEMPTS) {
                    throw e;
                }
                port = LoopbackPorts.free();
            }
        }
        startedOnce = true;
        return this;
    }

    /** Stops the process and returns once the port no longer accepts connections; does nothing if not running. */
    public synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        if (paused && p.isAlive()) {
            // A stopped process would hold SIGTERM until it is continued.
            resume();
        }
        terminate(p);
        process = null;
        removeShutdownHook();
        discardWorkDir();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acceptsConnections(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("port " + port + " still accepts connections after redis-server stopped");
            }
            briefly();
        }
    }

    /**
     * Freezes the process with SIGSTOP: it keeps its port, its connections and its data but answers
     * nothing, like a Redis behind a network partition. {@link #resume()} lets it go on; keys whose
     * TTL passed meanwhile expire then.
     */
    public synchronized void pause() {
        signal("-STOP");
        paused = true;
    }

    /** Undoes {@link #pause()} with SIGCONT. */
    public synchronized void resume() {
        signal("-CONT");
        paused = false;
    }

    public boolean isPaused() {
        return paused;
    }

    private void signal(String signal) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("redis-server is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(p.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + p.pid() + " failed");
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("could not run kill " + signal + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** SIGKILL, as a crash: no shutdown of any kind. Returns once the process is gone. */
    public synchronized void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroyForcibly();
        try {
            p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
        paused = false;
        removeShutdownHook();
        discardWorkDir();
    }

    /** Stops and starts again on the same port; the data is gone since nothing is persisted. */
    public synchronized LocalRedisServer restart() {
        stop();
        return start();
    }

    /** Whether the process is alive (it may still be starting up). */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** The TCP port, fixed for the lifetime of this object once {@link #start()} succeeded. */
    public int port() {
        return port;
    }

    /**
     * The address, such as {@code redis://127.0.0.1:6379}, or {@code redis://default:password@127.0.0.1:6379}
     * (the user named: redis-cli sends an empty one as a user name and is refused).
     */
    public String uri() {
        return "redis://" + (password == null ? "" : "default:" + password + "@") + LOOPBACK.getHostAddress() + ":"
                + port();
    }

    /** The binary this server runs. */
    public Binary binary() {
        return binary;
    }

    /** The last lines redis-server printed, for diagnostics. */
    public List<String> recentOutput() {
        return output.lines();
    }

    @Override
    public void close() {
        stop();
    }

    private void launch() {
        if (acceptsConnections(port)) {
            // Without this check a PING answered by some other server on the port would pass for ours.
            throw new PortInUseException("cannot start redis-server: port " + port + " is already in use");
        }
        List<String> command = new ArrayList<>(List.of(binary.path().toString()));
        if (configFile != null) {
            // Redis reads a configuration file only as its first argument (Sentinel needs one).
            command.add(configFile.toString());
        }
        workDir = freshWorkDir();
        command.addAll(List.of(
                "--dir", workDir.toString(),
                "--port", Integer.toString(port),
                "--bind", LOOPBACK.getHostAddress(),
                "--save", "",
                "--appendonly", "no",
                // Redis 7 feeds a new replica diskless and first waits 5 s for more replicas to join the
                // transfer; a test waiting for its replica to be in sync waited those 5 s every time.
                "--repl-diskless-sync-delay", "0",
                "--protected-mode", "no"));
        if (password != null) {
            command.addAll(List.of("--requirepass", password));
        }
        command.addAll(extraArgs);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            discardWorkDir();
            throw new UncheckedIOException("cannot run " + binary.path(), e);
        }
        output = new OutputTail();
        output.follow(p.getInputStream(), "redis-server-" + port + "-output");
        process = p;
        addShutdownHook();
        awaitPong(p);
        LOG.debug("redis-server started on {} using {} (pid {})", uri(), binary.description(), p.pid());
    }

    private void awaitPong(Process p) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!p.isAlive()) {
                awaitExit(p);
                process = null;
                removeShutdownHook();
                discardWorkDir();
                String message = "redis-server exited with code " + p.exitValue() + " before answering on port " + port;
                if (output.contains("Address already in use")) {
                    throw new PortInUseException(message + output.describe());
                }
                throw new IllegalStateException(message + output.describe());
            }
            if (answersPing(port, password)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                terminate(p);
                process = null;
                removeShutdownHook();
                discardWorkDir();
                throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
                        + timeout.toMillis() + " ms" + output.describe());
            }
            briefly();
        }
    }

    private void awaitExit(Process p) {
        try {
            p.waitFor(1, TimeUnit.SECONDS);
            // The output thread may still hold the last lines, such as the reason for exiting.
            output.awaitEnd(Duration.ofSeconds(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void terminate(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void addShutdownHook() {
        if (shutdownHook == null) {
            // Reads the volatile field rather than locking: the JVM may exit while another thread holds the lock.
            shutdownHook = new Thread(() -> {
                Process p = process;
                if (p != null) {
                    terminate(p);
                    discardWorkDir();
                }
            }, "redis-server-" + port + "-shutdown");
            try {
                Runtime.getRuntime().addShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyShuttingDown) {
                shutdownHook = null;
            }
        }
    }

    private void removeShutdownHook() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // The hook is running or about to run; nothing to undo.
            }
            shutdownHook = null;
        }
    }

    private static Path freshWorkDir() {
        try {
            return Files.createTempDirectory("redis-server-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a working directory for redis-server", e);
        }
    }

    private void discardWorkDir() {
        synchronized (workDirLock) {
            Path dir = workDir;
            workDir = null;
            if (dir == null) {
                return;
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException | UncheckedIOException e) {
                // A leftover in the temp directory is harmless; the next launch gets a new one.
            }
        }
    }

    private static boolean acceptsConnections(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), 250);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean answersPing(int port, String password) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), 250);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            String expected = "+PONG";
            if (password != null) {
                byte[] pass = password.getBytes(StandardCharsets.UTF_8);
                out.write(("*2\r\n$4\r\nAUTH\r\n$" + pass.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(pass);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                expected = "+OK\r\n+PONG";
            }
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] reply = socket.getInputStream().readNBytes(expected.length());
            return expected.equals(new String(reply, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return false;
        }
    }

    private static void briefly() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    /** Where a redis-server binary comes from and how to mention it in a log line. */
    public record Binary(Path path, Source source) {

        /** How the binary was found. */
        public enum Source { EXPLICIT, PATH, EMBEDDED }

        public Binary {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(source, "source");
        }

        /** A binary at a path the caller chose. */
        public static Binary explicit(Path path) {
            return new Binary(path, Source.EXPLICIT);
        }

        /** {@code redis-server} from the PATH if there is one, else the embedded binary. */
        public static Binary resolve() {
            return onPath(System.getenv("PATH")).orElseGet(Binary::embedded);
        }

        /** {@code redis-server} from a PATH-style directory list, if any directory holds an executable one. */
        public static Optional<Binary> onPath(String pathList) {
            if (pathList == null || pathList.isBlank()) {
                return Optional.empty();
            }
            for (String dir : pathList.split(File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                Path candidate = Path.of(dir, "redis-server");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(new Binary(candidate, Source.PATH));
                }
            }
            return Optional.empty();
        }

        /** The Redis 6.2 binary shipped in the embedded-redis jar, extracted once per JVM and deleted at exit. */
        public static Binary embedded() {
            return EmbeddedBinary.INSTANCE;
        }

        /** For a log line, such as "embedded redis-server-6.2.6-v5-linux-amd64" or "/usr/bin/redis-server". */
        public String description() {
            return switch (source) {
                case EMBEDDED -> "embedded " + path.getFileName() + " from embedded-redis";
                case PATH, EXPLICIT -> path.toString();
            };
        }
    }

    // Holder idiom: the class initialiser runs once, on first use, and is thread-safe.
    private static final class EmbeddedBinary {
        static final Binary INSTANCE = extract();

        private static Binary extract() {
            try {
                // The library picks the resource for this OS and architecture, copies it to a fresh temp
                // directory, marks it executable and registers file and directory for deletion at exit.
                return new Binary(ExecutableProvider.newJarResourceProvider().get().toPath(), Binary.Source.EMBEDDED);
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("cannot extract the redis-server binary embedded in embedded-redis for "
                        + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + ": " + e, e);
            }
        }
    }

    /** Thrown when the chosen port is taken by some other process. */
    private static final class PortInUseException extends IllegalStateException {
        PortInUseException(String message) {
            super(message);
        }
    }

    // The process output, bounded so that a chatty server cannot grow the heap.
    private static final class OutputTail {
        private final Deque<String> lines = new ArrayDeque<>();
        private Thread reader;

        void follow(InputStream in, String threadName) {
            reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        add(line);
                    }
                } catch (IOException streamClosed) {
                    // The process is gone; what was read so far is all there is.
                }
            }, threadName);
            reader.setDaemon(true);
            reader.start();
        }

        void awaitEnd(Duration max) throws InterruptedException {
            reader.join(max.toMillis());
        }

        synchronized void add(String line) {
            if (lines.size() == OUTPUT_LINES_KEPT) {
                lines.removeFirst();
            }
            lines.addLast(line);
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }

        synchronized boolean contains(String text) {
            return lines.stream().anyMatch(line -> line.contains(text));
        }

        synchronized String describe() {
            return lines.isEmpty() ? "; it printed nothing"
                    : "; its last output:" + System.lineSeparator() + String.join(System.lineSeparator(), lines);
        }
    }

    /** Configures a {@link LocalRedisServer}. */
    public static final class Builder {
        private int port;
        private Binary binary;
        private final List<String> extraArgs = new ArrayList<>();
        private Path configFile;
        private Duration timeout = DEFAULT_TIMEOUT;
        private String password;

        private Builder() {
        }

        /** A password clients must give ({@code requirepass}); it appears in {@link #uri()}. By default none. */
        public Builder password(String password) {
            if (password == null || password.isEmpty() || !password.chars().allMatch(c -> c > 0x20 && c < 0x7F
                    && c != '@' && c != ':' && c != '/')) {
                // It goes into a redis:// URL unescaped.
                throw new IllegalArgumentException("password must be printable ASCII without space, @, : or /");
            }
            this.password = password;
            return this;
        }

        /** A fixed port; by default a free one is picked. */
        public Builder port(int port) {
            if (port < 1 || port > 65535) {
                // Redis reads port 0 as "no TCP listener", which would leave nothing to connect to.
                throw new IllegalArgumentException("port must be in 1..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** The binary to run; by default {@link Binary#resolve()}. */
        public Builder binary(Binary binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /** A binary at this path. */
        public Builder binary(Path path) {
            return binary(Binary.explicit(path));
        }

        /** A configuration file, passed first (a Sentinel rewrites its own, so give each a copy). */
        public Builder configFile(Path file) {
            this.configFile = file;
            return this;
        }

        /** More redis-server arguments, such as {@code "--maxmemory", "64mb"}, appended after the defaults. */
        public Builder args(String... args) {
            extraArgs.addAll(List.of(args));
            return this;
        }

        /** How long start waits for PING and stop waits for the port to close; 10 s by default. */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Builds the server without starting it; resolves the binary and, unless fixed, picks the port. */
        public LocalRedisServer build() {
            return new LocalRedisServer(this);
        }
    }
}
