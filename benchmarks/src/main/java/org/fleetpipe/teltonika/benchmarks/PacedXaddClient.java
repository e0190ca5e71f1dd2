package org.fleetpipe.teltonika.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop Redis client: one connection that sends a pipeline of the same XADD at a fixed rate
 * and reads the answers, so Redis's CPU per XADD can be compared at full and partial load with the
 * same batch per read (bench/redis-idle-cost.sh). Without the server or the simulator in the picture.
 *
 * <p>Usage: {@code PacedXaddClient host port records/s batch seconds field value [field value...]}
 */
public final class PacedXaddClient {

    private PacedXaddClient() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 7 || (args.length - 5) % 2 != 0) {
            System.err.println("usage: PacedXaddClient host port records/s batch seconds field value [field value...]");
            System.exit(2);
        }
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        long rate = Long.parseLong(args[2]);
        int batch = Integer.parseInt(args[3]);
        long seconds = Long.parseLong(args[4]);
        List<String> command = new ArrayList<>(List.of("XADD", "telemetry-bench", "MAXLEN", "~", "1000000", "*"));
        for (int i = 5; i < args.length; i++) {
            command.add(args[i]);
        }
        byte[] one = RespCommand.encode(command);
        byte[] pipeline = new byte[one.length * batch];
        for (int i = 0; i < batch; i++) {
            System.arraycopy(one, 0, pipeline, i * one.length, one.length);
        }
        long periodNanos = TimeUnit.SECONDS.toNanos(1) * batch / rate;
        try (Socket socket = new Socket(host, port)) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            AnswerCounter answers = new AnswerCounter(in);
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long next = start;
            long sent = 0;
            long late = 0;
            while (next < end) {
                long now = System.nanoTime();
                if (now < next) {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                out.write(pipeline);
                out.flush();
                answers.await(batch);
                sent += batch;
                next += periodNanos;
                if (System.nanoTime() > next) {
                    late++;
                }
            }
            double took = (System.nanoTime() - start) / 1e9;
            System.out.printf("sent %d XADDs in %.1f s (%.0f/s), %d of %d batches answered after the next was due%n",
                    sent, took, sent / took, late, sent / batch);
        }
    }

    /** Counts XADD answers (a {@code $<n>} line, then the id's line) from the stream, across reads. */
    private static final class AnswerCounter {
        private final InputStream in;
        private final byte[] buffer = new byte[1 << 16];
        private boolean lineStart = true;
        /** The line being read is a header ({@code $<n>}), so the next one is the id. */
        private boolean header;
        private boolean idNext;

        AnswerCounter(InputStream in) {
            this.in = in;
        }

        void await(int expected) throws IOException {
            int answered = 0;
            while (answered < expected) {
                int n = in.read(buffer);
                if (n < 0) {
                    throw new UncheckedIOException(new IOException("Redis closed the connection"));
                }
                for (int i = 0; i < n; i++) {
                    byte b = buffer[i];
                    if (lineStart && !idNext) {
                        if (b == '-') {
                            throw new IllegalStateException("Redis answered an error");
                        }
                        header = b == '$';
                    }
                    lineStart = b == '\n';
                    if (lineStart) {
                        if (idNext) {
                            idNext = false;
                            answered++;
                        } else if (header) {
                            header = false;
                            idNext = true;
                        }
                    }
                }
            }
        }
    }
}
