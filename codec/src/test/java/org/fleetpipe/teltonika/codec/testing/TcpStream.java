package org.fleetpipe.teltonika.codec.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.codec.frame.PingFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;

/**
 * What Netty's {@code ByteToMessageDecoder} does around the stateless {@link TcpFrameReader}: it
 * appends each read to a cumulation buffer and calls {@code tryRead} until it returns null. The
 * cumulation is handled the way Netty's merge cumulator handles it (copied when it must grow while
 * frames still share it, compacted only when nothing else refers to it, released when drained), so
 * a frame that holds a stale view of the stream shows up here as it would on a channel.
 *
 * <p>The stream owns every frame it returns and every buffer it allocates: {@link #close()}
 * releases them all, then fails if any of them is still referenced, which is how a buffer the
 * reader retained once too often is caught without waiting for the GC-driven leak detector.
 *
 * <p>Not thread safe; one stream per simulated connection.
 */
public final class TcpStream implements AutoCloseable {

    /**
     * Heap buffers the paranoid leak detector does not track. Tracking records a stack trace on
     * every byte access (several microseconds each), which bulk property and fuzz tests cannot
     * afford; they rely on the reference-count check in {@link #close()} instead.
     */
    public static final ByteBufAllocator UNTRACKED = new UnpooledByteBufAllocator(false, true);

    private final TcpFrameReader reader;
    private final ByteBufAllocator alloc;
    private final List<Frame> frames = new ArrayList<>();
    /** Cumulations given up while frames still shared them; they must reach zero with the frames. */
    private final List<ByteBuf> dropped = new ArrayList<>();
    private ByteBuf cumulation;
    private boolean closed;

    /** A stream whose buffers come from the pooled allocator, as on a real channel, and are leak tracked. */
    public TcpStream(TcpFrameReader reader) {
        this(reader, PooledByteBufAllocator.DEFAULT);
    }

    public TcpStream(TcpFrameReader reader, ByteBufAllocator alloc) {
        this.reader = reader;
        this.alloc = alloc;
    }

    /** A stream on {@link #UNTRACKED} buffers, for tests that push megabytes through. */
    public static TcpStream untracked(TcpFrameReader reader) {
        return new TcpStream(reader, UNTRACKED);
    }

    public List<Frame> feed(byte[] bytes) {
        return feed(bytes, 0, bytes.length);
    }

    /**
     * Appends one read and cuts every complete frame from the cumulation. A {@code CodecException}
     * from the reader propagates with the cumulation left as it was, so a test can inspect it.
     *
     * @return the frames this read completed, in order (still owned by the stream)
     */
    public List<Frame> feed(byte[] bytes, int offset, int length) {
        if (closed) {
            throw new IllegalStateException("stream is closed");
        }
        append(bytes, offset, length);
        List<Frame> cut = new ArrayList<>();
        try {
            while (cumulation.isReadable()) {
                int before = cumulation.readerIndex();
                Frame frame = reader.tryRead(cumulation);
                if (frame == null) {
                    if (cumulation.readerIndex() != before) {
                        throw new IllegalStateException("tryRead returned null but consumed "
                                + (cumulation.readerIndex() - before) + " bytes");
                    }
                    break;
                }
                frames.add(frame);
                cut.add(frame);
                if (cumulation.readerIndex() == before) {
                    // ByteToMessageDecoder throws here too: it would loop forever.
                    throw new IllegalStateException("tryRead returned " + describe(frame) + " but consumed nothing");
                }
            }
        } finally {
            settle();
        }
        return cut;
    }

    /** Feeds one byte per read. */
    public List<Frame> feedBytewise(byte[] bytes) {
        List<Frame> cut = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++) {
            cut.addAll(feed(bytes, i, 1));
        }
        return cut;
    }

    /**
     * Feeds {@code bytes} as separate reads cut at the given offsets (ascending, duplicates and 0
     * or {@code bytes.length} allowed: they make empty reads, which Netty can deliver too).
     */
    public List<Frame> feedSplit(byte[] bytes, int... cuts) {
        int[] sorted = cuts.clone();
        Arrays.sort(sorted);
        List<Frame> cut = new ArrayList<>();
        int from = 0;
        for (int at : sorted) {
            if (at < from || at > bytes.length) {
                throw new IllegalArgumentException("cut " + at + " outside " + from + ".." + bytes.length);
            }
            cut.addAll(feed(bytes, from, at - from));
            from = at;
        }
        cut.addAll(feed(bytes, from, bytes.length - from));
        return cut;
    }

    /** Every frame cut so far, in order (owned by the stream). */
    public List<Frame> frames() {
        return List.copyOf(frames);
    }

    /** Bytes received but not yet cut into a frame. */
    public int buffered() {
        return cumulation == null ? 0 : cumulation.readableBytes();
    }

    /** The pending bytes, for assertions after a rejection. */
    public byte[] bufferedBytes() {
        if (cumulation == null) {
            return new byte[0];
        }
        byte[] out = new byte[cumulation.readableBytes()];
        cumulation.getBytes(cumulation.readerIndex(), out);
        return out;
    }

    /** Releases every frame and buffer, then fails if the reader left any of them referenced. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Frame frame : frames) {
            if (frame instanceof DataFrame data) {
                data.release();
            }
        }
        // Checked before anything else is allocated: a pooled buffer object is recycled on its
        // next allocation, after which its reference count says nothing about this stream.
        List<String> stillReferenced = new ArrayList<>();
        for (ByteBuf buf : dropped) {
            if (buf.refCnt() != 0) {
                stillReferenced.add("earlier cumulation refCnt=" + buf.refCnt());
            }
        }
        if (cumulation != null) {
            if (cumulation.refCnt() != 1) {
                stillReferenced.add("cumulation refCnt=" + cumulation.refCnt() + " (expected 1)");
            }
            cumulation.release();
            cumulation = null;
        }
        if (!stillReferenced.isEmpty()) {
            throw new AssertionError("after every frame was released once, the stream's buffers are still"
                    + " referenced: " + stillReferenced);
        }
    }

    /** A one-line text for a frame: {@code ping}, {@code login:<text>}, {@code data:<codec>:<HEX>}. */
    public static String describe(Frame frame) {
        if (frame instanceof PingFrame) {
            return "ping";
        }
        if (frame instanceof LoginFrame login) {
            return "login:" + login.text();
        }
        DataFrame data = (DataFrame) frame;
        return "data:" + data.codec().label() + ":" + Hex.of(data.content());
    }

    public static List<String> describe(List<Frame> frames) {
        return frames.stream().map(TcpStream::describe).toList();
    }

    private void append(byte[] bytes, int offset, int length) {
        if (cumulation == null) {
            cumulation = alloc.buffer(Math.max(length, 16));
        } else if (length > cumulation.maxFastWritableBytes() && cumulation.refCnt() > 1) {
            // Frames still share this buffer: copy rather than reallocate under them (merge cumulator).
            ByteBuf bigger = alloc.buffer(cumulation.readableBytes() + length);
            bigger.writeBytes(cumulation);
            drop();
            cumulation = bigger;
        }
        cumulation.writeBytes(bytes, offset, length);
    }

    private void settle() {
        if (!cumulation.isReadable()) {
            drop();
            cumulation = null;
        } else if (cumulation.refCnt() == 1) {
            cumulation.discardSomeReadBytes();
        }
    }

    private void drop() {
        if (cumulation.refCnt() > 1) {
            dropped.add(cumulation);
        }
        cumulation.release();
    }
}
