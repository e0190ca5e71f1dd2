package org.fleetpipe.teltonika.codec.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a buffer leak while it ran. Registered for every test
 * through JUnit's extension autodetection (META-INF/services in the codec test-jar).
 */
public final class LeakDetectionExtension implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = collect();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) in " + context.getDisplayName()
                    + ":\n" + String.join("\n", leaks));
        }
    }

    /** Leaked buffers are found only once collected and only when the detector next tracks a buffer. */
    static List<String> collect() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            System.runFinalization();
            for (int i = 0; i < 64; i++) {
                ByteBuf a = PooledByteBufAllocator.DEFAULT.buffer(16);
                a.release();
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
                b.release();
            }
        }
        return RecordingLeakDetector.drain();
    }
}
