package org.fleetpipe.teltonika.simulator.run;

import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.simulator.cli.SimulatorOptions;
import org.fleetpipe.teltonika.simulator.net.ClientTransport;
import org.fleetpipe.teltonika.simulator.net.SimulatedDevice;
import org.fleetpipe.teltonika.simulator.net.TcpDevice;
import org.fleetpipe.teltonika.simulator.report.ProgressLine;
import org.fleetpipe.teltonika.simulator.report.SimulatorStats;
import org.fleetpipe.teltonika.simulator.report.StatsSnapshot;
import org.fleetpipe.teltonika.simulator.report.SteadyPhase;
import org.fleetpipe.teltonika.simulator.report.SummaryReport;

/**
 * One run: starts the devices, prints progress, stops sending at the duration (or once every
 * device sent its --max-packets and got them acknowledged), waits a bounded time for the last
 * ACKs, closes everything and prints the summary.
 */
public final class Simulation {

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_LOAD_START_SPREAD_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final SimulatorOptions options;
    private final PrintStream out;
    private BiConsumer<String, List<AvlRecord>> ackListener;
    private List<InetSocketAddress> servers = List.of();
    private Supplier<? extends ChannelHandler> tap;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopRequested;
    private volatile boolean sendingEndRequested;

    public Simulation(SimulatorOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Hears every acknowledged record with its device's IMEI (for tests that check none is lost). */
    public Simulation onAcknowledged(BiConsumer<String, List<AvlRecord>> listener) {
        this.ackListener = listener;
        return this;
    }

    /** Puts a handler from {@code tap} first in every TCP session's pipeline (tests: see the raw bytes). */
    public Simulation tapConnections(Supplier<? extends ChannelHandler> tap) {
        this.tap = tap;
        return this;
    }

    /**
     * TCP devices spread over these servers (device i starts on server i mod n) and move to the
     * next one whenever they lose their connection, as behind a load balancer.
     */
    public Simulation behindBalancer(List<InetSocketAddress> replicas) {
        this.servers = List.copyOf(replicas);
        return this;
    }

    /** Ends the run early (Ctrl-C): sending stops and the summary is printed without waiting for ACKs. */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * Ends the sending phase now, as if the duration had passed: unlike {@link #requestStop()} the run still
     * waits up to --drain for the outstanding ACKs (fault tests end their load once the fault is over).
     */
    public void endSending() {
        sendingEndRequested = true;
    }

    /** Waits until {@link #run()} printed its summary; false on timeout. */
    public boolean awaitFinished(Duration timeout) throws InterruptedException {
        return finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public RunResult run() throws InterruptedException {
        try {
            return runDevices();
        } finally {
            finished.countDown();
        }
    }

    private RunResult runDevices() throws InterruptedException {
        SimulatorStats stats = new SimulatorStats();
        stats.onAcknowledged(ackListener);
        EventLoopGroup group = ClientTransport.group(options.threads());
        long started = System.nanoTime();
        int connectedAtTheEnd;
        Warmup warmup = null;
        try {
            List<SimulatedDevice> devices = DeviceFleet.create(options, group, stats);
            if (tap != null) {
                for (SimulatedDevice d : devices) {
                    if (d instanceof TcpDevice tcp) {
                        tcp.tappedBy(tap);
                    }
                }
            }
            if (!servers.isEmpty()) {
                for (int i = 0; i < devices.size(); i++) {
                    if (devices.get(i) instanceof TcpDevice tcp) {
                        tcp.withServers(servers, i % servers.size());
                    }
                }
            }
            out.println("device-simulator: " + options.title() + " (" + ClientTransport.name() + ", "
                    + options.threads() + " threads)");
            long spread = startSpread();
            for (int i = 0; i < devices.size(); i++) {
                long delay = spread * i / devices.size();
                devices.get(i).start(delay, options.firstRecordsDelayNanos(delay));
            }
            Progress progress = new Progress(started, stats);
            warmup = new Warmup(started, stats);
            long sendingEnds = started + options.duration().toNanos();
            while (!stopRequested && !sendingEndRequested && System.nanoTime() < sendingEnds
                    && !allSettled(devices)) {
                pause(sendingEnds);
                warmup.maybeEnd();
                progress.maybePrint();
            }
            awaitAll(finishAll(devices));
            long drainEnds = System.nanoTime() + (stopRequested ? 0 : options.drain().toNanos());
            long outstanding = unacknowledged(devices);
            if (outstanding > 0 && !stopRequested) {
                out.println("sending stopped; waiting up to " + options.drain().toSeconds() + " s for "
                        + outstanding + " unacknowledged records");
            }
            while (!stopRequested && System.nanoTime() < drainEnds && unacknowledged(devices) > 0) {
                pause(drainEnds);
                progress.maybePrint();
            }
            connectedAtTheEnd = stats.snapshot().connected();
            awaitAll(closeAll(devices));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        }
        StatsSnapshot snapshot = stats.snapshot();
        Histogram latency = stats.latency().total();
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        SteadyPhase steady = warmup == null ? null : warmup.steadyPhase();
        long lastFirstAck = stats.lastFirstAckNanos();
        out.print(SummaryReport.format(options.title(), elapsed, snapshot, connectedAtTheEnd, latency,
                options.warmup(), steady, stats.devicesAcknowledged(),
                lastFirstAck == 0 ? null : Duration.ofNanos(lastFirstAck - started)));
        out.flush();
        return new RunResult(snapshot, latency, SummaryReport.exitCode(snapshot));
    }

    /**
     * Devices start spread out, as a real fleet is: over one interval, or in load mode over up to a
     * second so thousands of logins do not arrive in one burst.
     */
    private long startSpread() {
        if (options.startSpread() != null) {
            return options.startSpread().toNanos();
        }
        if (options.load()) {
            return Math.min(MAX_LOAD_START_SPREAD_NANOS, TimeUnit.MILLISECONDS.toNanos(options.devices()));
        }
        return options.interval().toNanos();
    }

    private static boolean allSettled(List<SimulatedDevice> devices) {
        for (SimulatedDevice d : devices) {
            if (!d.isSettled()) {
                return false;
            }
        }
        return true;
    }

    private static long unacknowledged(List<SimulatedDevice> devices) {
        long n = 0;
        for (SimulatedDevice d : devices) {
            n += d.unacknowledgedRecords();
        }
        return n;
    }

    private static List<Future<?>> finishAll(List<SimulatedDevice> devices) {
        List<Future<?>> done = new ArrayList<>(devices.size());
        for (SimulatedDevice d : devices) {
            done.add(d.finish());
        }
        return done;
    }

    private static List<Future<?>> closeAll(List<SimulatedDevice> devices) {
        List<Future<?>> done = new ArrayList<>(devices.size());
        for (SimulatedDevice d : devices) {
            done.add(d.close());
        }
        return done;
    }

    private static void awaitAll(List<Future<?>> futures) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS);
        for (Future<?> f : futures) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !f.await(left, TimeUnit.NANOSECONDS)) {
                return;
            }
        }
    }

    private static void pause(long until) throws InterruptedException {
        long nanos = Math.min(POLL_NANOS, until - System.nanoTime());
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    }

    /** Marks the end of the warm-up, after which the summary's "steady" line counts. */
    private final class Warmup {
        private final long endsAt;
        private final SimulatorStats stats;
        private StatsSnapshot atEnd;
        private long endedNanos;

        Warmup(long started, SimulatorStats stats) {
            this.endsAt = started + options.warmup().toNanos();
            this.stats = stats;
        }

        void maybeEnd() {
            if (atEnd != null || options.warmup().isZero()) {
                return;
            }
            long now = System.nanoTime();
            if (now >= endsAt) {
                stats.latency().startSteady();
                atEnd = stats.snapshot();
                endedNanos = now;
            }
        }

        /** Null before the warm-up ended. */
        SteadyPhase steadyPhase() {
            return atEnd == null ? null : new SteadyPhase(options.warmup(), atEnd, endedNanos, stats.latency().steady());
        }
    }

    /** Prints a progress line each time the period has passed. */
    private final class Progress {
        private final long started;
        private final SimulatorStats stats;
        private long next;

        Progress(long started, SimulatorStats stats) {
            this.started = started;
            this.stats = stats;
            this.next = started + options.progress().toNanos();
        }

        void maybePrint() {
            if (options.progress().isZero()) {
                return;
            }
            long now = System.nanoTime();
            if (now < next) {
                return;
            }
            next = now + options.progress().toNanos();
            out.println(ProgressLine.format(Duration.ofNanos(now - started), stats.snapshot(),
                    stats.latency().sampleInterval()));
            out.flush();
        }
    }
}
