package org.fleetpipe.teltonika.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of large API answers (capture pages) in the server now, across all HTTP connections:
 * reserved before their Redis read, given back once the answer is written to the socket (or failed).
 * Capped (HTTP_ANSWER_BYTES_MAX), so readers who never read their answers cannot fill direct memory.
 */
public final class AnswerBudget {

    private final long max;
    private final AtomicLong held = new AtomicLong();
    private final Counter refused;

    /** @param registry where {@code teltonika_http_answer_*} go; null for none */
    public AnswerBudget(long max, MeterRegistry registry) {
        this.max = max;
        this.refused = registry == null ? null : Counter.builder("teltonika.http.answers.refused")
                .description("large API reads answered 503 answers-pending: HTTP_ANSWER_BYTES_MAX held by answers"
                        + " not yet taken by their clients").register(registry);
        if (registry != null) {
            Gauge.builder("teltonika.http.answer.bytes", held, AtomicLong::get).baseUnit("bytes")
                    .description("bytes of large API answers read or written and not yet taken by their clients"
                            + " (capped by HTTP_ANSWER_BYTES_MAX)").register(registry);
        }
    }

    public long max() {
        return max;
    }

    /** Bytes held now. */
    public long held() {
        return held.get();
    }

    /** Holds {@code bytes} when they fit under the cap; null (counted as refused) when not. */
    public Hold reserve(long bytes) {
        long now = held.addAndGet(bytes);
        if (now > max) {
            held.addAndGet(-bytes);
            if (refused != null) {
                refused.increment();
            }
            return null;
        }
        return new Hold(bytes);
    }

    /** Bytes held for one answer; given back once, by {@link #release}. */
    public final class Hold {
        private final AtomicBoolean released = new AtomicBoolean();
        private long bytes;

        private Hold(long bytes) {
            this.bytes = bytes;
        }

        /**
         * The answer turned out {@code actual} bytes: holds that instead. More than reserved is held
         * too (the page cut keeps it close): the bytes are in memory already.
         */
        public synchronized void resize(long actual) {
            if (!released.get()) {
                held.addAndGet(actual - bytes);
                bytes = actual;
            }
        }

        /** Gives the bytes back; later calls do nothing. */
        public synchronized void release() {
            if (released.compareAndSet(false, true)) {
                held.addAndGet(-bytes);
            }
        }
    }
}
