package org.fleetpipe.teltonika.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * One thread's generator and the buffer it writes into, kept from record to record: a payload
 * costs its own byte array and nothing else (issue 41 item 4).
 */
final class PayloadOutput {

    private final JsonFactory factory;
    private final Bytes bytes = new Bytes();
    private JsonGenerator json;

    PayloadOutput(JsonFactory factory) {
        this.factory = factory;
    }

    /** The generator for the next record; a new one after a record that failed halfway. */
    JsonGenerator generator() {
        if (json == null) {
            try {
                json = factory.createGenerator(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return json;
    }

    /** The record written since the last call, ready for the next. */
    byte[] take() throws IOException {
        json.flush();
        byte[] record = Arrays.copyOf(bytes.buffer, bytes.size);
        bytes.size = 0;
        return record;
    }

    /** Forgets a record that failed halfway: its generator is left inside an object. */
    void discard() {
        JsonGenerator broken = json;
        json = null;
        try {
            if (broken != null) {
                broken.close();
            }
        } catch (IOException | RuntimeException ignored) {
            // Its output is dropped anyway.
        }
        bytes.size = 0;
    }

    /** A growable buffer without ByteArrayOutputStream's locking. */
    private static final class Bytes extends OutputStream {
        private byte[] buffer = new byte[1024];
        private int size;

        @Override
        public void write(int b) {
            ensure(1);
            buffer[size++] = (byte) b;
        }

        @Override
        public void write(byte[] source, int offset, int length) {
            ensure(length);
            System.arraycopy(source, offset, buffer, size, length);
            size += length;
        }

        private void ensure(int more) {
            if (size + more > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(2 * buffer.length, size + more));
            }
        }
    }
}
