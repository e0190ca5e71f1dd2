package org.fleetpipe.teltonika.simulator.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.simulator.cli.SimulatorCommand;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;
import org.fleetpipe.teltonika.simulator.report.StatsSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The device side of trouble, against a server the test scripts: a dropped connection, a packet
 * never acknowledged, a wrong ACK count, a command to answer.
 */
class SimulationAgainstFakeServerTest {

    private final ExecutorService runner = Executors.newSingleThreadExecutor();
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    @AfterEach
    void tearDown() throws InterruptedException {
        runner.shutdownNow();
        assertThat(runner.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }

    private Future<RunResult> simulate(String... args) throws Exception {
        Simulation simulation = new Simulation(SimulatorCommand.parse(args),
                new PrintStream(output, true, StandardCharsets.UTF_8));
        return runner.submit(simulation::run);
    }

    @Test
    void tcpDevice_afterADroppedConnectionAndAMissingAck_reconnectsResendsAndAnswersACommand() throws Exception {
        try (FakeTrackerServer server = new FakeTrackerServer()) {
            Future<RunResult> run = simulate("--port", Integer.toString(server.port()), "--devices", "1",
                    "--records", "2", "--max-packets", "3", "--interval", "200ms", "--codec", "8E",
                    "--ack-timeout", "700ms", "--backoff-min", "50ms", "--backoff-max", "200ms", "--progress", "0",
                    "--drain", "5s", "--duration", "20s");
            Set<Long> stored = new HashSet<>();

            // 1st connection: the packet arrives, then the server goes away without an ACK.
            List<Long> lostPacket;
            try (FakeTrackerServer.Session s = server.accept()) {
                String imei = s.readLogin();
                assertThat(Imei.parse(imei, true).value())
                        .isEqualTo(new ImeiSequence(ImeiSequence.DEFAULT_BASE).imei(0));
                s.answerLogin(true);
                lostPacket = s.readFrame().timestamps();
                assertThat(lostPacket).hasSize(2);
            }

            // 2nd connection: the same records come again first; the next packet is never acknowledged.
            List<Long> unacknowledged;
            try (FakeTrackerServer.Session s = server.accept()) {
                s.readLogin();
                s.answerLogin(true);
                assertThat(s.readFrame().timestamps()).isEqualTo(lostPacket);
                s.ack(2);
                stored.addAll(lostPacket);
                unacknowledged = s.readFrame().timestamps();
                assertThat(unacknowledged).doesNotContainAnyElementsOf(lostPacket);
                assertThat(s.closedByDevice()).as("the device gives up on the session after its ACK timeout").isTrue();
            }

            // 3rd connection: a command arrives with the login answer; the resend and the reply come back.
            CommandFrame reply = null;
            List<List<Long>> packets = new ArrayList<>();
            try (FakeTrackerServer.Session s = server.accept()) {
                s.readLogin();
                s.answerLogin(true);
                s.send(CommandFrame.codec12Command("getinfo"));
                int pendingAcks = 0;
                while (reply == null || stored.size() < 6) {
                    FakeTrackerServer.Received r = s.readFrame();
                    if (r.reply() != null) {
                        reply = r.reply();
                    } else {
                        packets.add(r.timestamps());
                        stored.addAll(r.timestamps());
                        pendingAcks++;
                    }
                    // ACKs wait for the reply so the device cannot finish before answering.
                    for (; reply != null && pendingAcks > 0; pendingAcks--) {
                        s.ack(2);
                    }
                }
                assertThat(s.closedByDevice()).as("the device closes once everything is acknowledged").isTrue();
            }

            assertThat(packets.get(0)).as("first packet of the new session is the unacknowledged one")
                    .isEqualTo(unacknowledged);
            assertThat(reply.codec()).isEqualTo(CodecId.CODEC_12);
            assertThat(reply.type()).isEqualTo(CommandFrame.TYPE_RESPONSE);
            assertThat(reply.text()).startsWith("RTC:").contains("UpTime:");

            RunResult result = run.get(30, TimeUnit.SECONDS);
            StatsSnapshot stats = result.stats();
            assertThat(result.exitCode()).as(output.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(stats.recordsGenerated()).isEqualTo(6);
            assertThat(stats.recordsAcknowledged()).isEqualTo(6);
            assertThat(stats.recordsResent()).isEqualTo(4);
            assertThat(stats.reconnects()).isEqualTo(2);
            assertThat(stats.ackTimeouts()).isEqualTo(1);
            assertThat(stats.commandsAnswered()).isEqualTo(1);
            assertThat(output.toString(StandardCharsets.UTF_8)).contains("result       OK");
        }
    }

    @Test
    void tcpDevice_whoseLoginIsRefused_triesAgainAfterABackoff() throws Exception {
        try (FakeTrackerServer server = new FakeTrackerServer()) {
            Future<RunResult> run = simulate("--port", Integer.toString(server.port()), "--devices", "1",
                    "--records", "1", "--max-packets", "1", "--interval", "100ms", "--backoff-min", "50ms",
                    "--backoff-max", "100ms", "--progress", "0", "--duration", "20s");
            try (FakeTrackerServer.Session s = server.accept()) {
                s.readLogin();
                s.answerLogin(false);
                assertThat(s.closedByDevice()).isTrue();
            }
            try (FakeTrackerServer.Session s = server.accept()) {
                s.readLogin();
                s.answerLogin(true);
                s.readFrame();
                s.ack(1);
                assertThat(s.closedByDevice()).isTrue();
            }
            RunResult result = run.get(30, TimeUnit.SECONDS);
            assertThat(result.exitCode()).isZero();
            assertThat(result.stats().loginRefusals()).isEqualTo(1);
            assertThat(result.stats().reconnects()).isEqualTo(1);
        }
    }

    @Test
    void udpDevice_withoutAnAckOrWithAWrongCount_resendsTheSameRecords() throws Exception {
        try (DatagramSocket server = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(15_000);
            Future<RunResult> run = simulate("--transport", "udp", "--port", Integer.toString(server.getLocalPort()),
                    "--devices", "1", "--records", "3", "--max-packets", "2", "--interval", "200ms", "--codec", "16",
                    "--ack-timeout", "300ms", "--backoff-min", "50ms", "--backoff-max", "100ms", "--progress", "0",
                    "--duration", "20s");

            Datagram first = receive(server);
            Datagram again = receive(server);
            assertThat(again.timestamps()).as("no ACK: the same records again").isEqualTo(first.timestamps());
            assertThat(again.packet.packetId()).as("with a new packet id").isNotEqualTo(first.packet.packetId());
            again.ack(server, 2);

            Datagram afterWrongCount = receive(server);
            assertThat(afterWrongCount.timestamps()).as("wrong count: the same records again")
                    .isEqualTo(first.timestamps());
            afterWrongCount.ack(server, 3);

            Datagram next = receive(server);
            assertThat(next.timestamps()).doesNotContainAnyElementsOf(first.timestamps()).hasSize(3);
            assertThat(next.packet.packet().codec()).isEqualTo(CodecId.CODEC_16);
            next.ack(server, 3);

            RunResult result = run.get(30, TimeUnit.SECONDS);
            assertThat(result.exitCode()).isZero();
            assertThat(result.stats().recordsAcknowledged()).isEqualTo(6);
            assertThat(result.stats().recordsResent()).isEqualTo(6);
            assertThat(result.stats().ackTimeouts()).isEqualTo(1);
            assertThat(result.stats().ackMismatches()).isEqualTo(1);
        }
    }

    @Test
    void warmup_thenTheSummaryAddsASteadyLineForWhatCameAfterIt() throws Exception {
        try (DatagramSocket server = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(200);
            Future<RunResult> run = simulate("--transport", "udp", "--port", Integer.toString(server.getLocalPort()),
                    "--devices", "1", "--records", "1", "--interval", "50ms", "--progress", "0", "--drain", "2s",
                    "--duration", "1500ms", "--warmup", "500ms");
            // Acknowledge every datagram until the run is over.
            while (!run.isDone()) {
                try {
                    Datagram d = receive(server);
                    d.ack(server, 1);
                } catch (SocketTimeoutException idle) {
                    // the run may be draining or finished
                }
            }

            RunResult result = run.get(10, TimeUnit.SECONDS);
            assertThat(result.exitCode()).isZero();
            String text = output.toString(StandardCharsets.UTF_8);
            assertThat(text).containsPattern("steady       after the first 500ms: [\\d.]+ records/s acknowledged, "
                    + "ack latency p50 [\\d.]+ ms");
            long steadyAcks = Long.parseLong(text.replaceAll("(?s).*steady .*\\((\\d+) ACKs\\).*", "$1"));
            assertThat(steadyAcks).isPositive().isLessThan(result.stats().packetsAcknowledged());
        }
    }

    @Test
    void endSending_endsTheRunLongBeforeItsDuration_yetStillWaitsForTheLastAcks() throws Exception {
        try (DatagramSocket server = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(15_000);
            Simulation simulation = new Simulation(SimulatorCommand.parse("--transport", "udp", "--port",
                    Integer.toString(server.getLocalPort()), "--devices", "1", "--records", "2", "--interval", "100ms",
                    "--ack-timeout", "5s", "--progress", "0", "--drain", "10s", "--duration", "60s"),
                    new PrintStream(output, true, StandardCharsets.UTF_8));
            long started = System.nanoTime();
            Future<RunResult> run = runner.submit(simulation::run);

            Datagram inFlight = receive(server);
            simulation.endSending();
            // Unlike requestStop(), the run goes on draining while a packet waits for its ACK.
            assertThat(simulation.awaitFinished(java.time.Duration.ofMillis(500))).as("finished before the ACK")
                    .isFalse();
            inFlight.ack(server, inFlight.timestamps().size());
            server.setSoTimeout(200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!run.isDone() && System.nanoTime() < deadline) {
                try {
                    Datagram d = receive(server);
                    d.ack(server, d.timestamps().size());
                } catch (SocketTimeoutException idle) {
                    // the backlog may be sent already: the run is closing
                }
            }

            assertThat(run.isDone()).as("the run ended with its sending, long before its 60 s").isTrue();
            RunResult result = run.get();
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(30);
            assertThat(result.stats().recordsAcknowledged()).isPositive()
                    .isEqualTo(result.stats().recordsGenerated());
            assertThat(result.stats().recordsUnacknowledged()).isZero();
        }
    }

    private static Datagram receive(DatagramSocket server) throws Exception {
        DatagramPacket datagram = new DatagramPacket(new byte[65_536], 65_536);
        server.receive(datagram);
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(datagram.getData(), 0,
                datagram.getLength());
        try {
            UdpPacket packet = new UdpPacketDecoder(DecodeLimits.DEFAULTS).decode(buf);
            assertThat(Imei.luhnValid(packet.imeiText())).isTrue();
            return new Datagram(packet, datagram);
        } finally {
            buf.release();
        }
    }

    private record Datagram(UdpPacket packet, DatagramPacket from) {
        List<Long> timestamps() {
            return packet.packet().records().stream().map(AvlRecord::timestamp).toList();
        }

        void ack(DatagramSocket server, int records) throws Exception {
            io.netty.buffer.ByteBuf buf = new UdpAck(packet.packetId(), packet.avlPacketId(), records)
                    .writeTo(io.netty.buffer.Unpooled.buffer(UdpAck.BYTES));
            try {
                byte[] bytes = new byte[buf.readableBytes()];
                buf.readBytes(bytes);
                server.send(new DatagramPacket(bytes, bytes.length, from.getSocketAddress()));
            } finally {
                buf.release();
            }
        }
    }
}
