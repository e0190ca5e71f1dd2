package org.fleetpipe.teltonika.codec.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

class LeakDetectionExtensionTest {

    @Test
    void leakedBuffer_whenCollected_thenReported() {
        leakOne();

        assertThat(LeakDetectionExtension.collect())
                .as("the paranoid detector must see a dropped buffer; otherwise leak checks prove nothing")
                .anySatisfy(leak -> assertThat(leak).startsWith("LEAK:"));
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(32);
        leaked.writeInt(42);
    }
}
