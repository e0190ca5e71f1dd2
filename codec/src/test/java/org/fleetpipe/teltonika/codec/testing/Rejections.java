package org.fleetpipe.teltonika.codec.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;

/** The codec's rejection contract in one assertion: the right reason, and the input untouched. */
public final class Rejections {

    private Rejections() {
    }

    /**
     * Runs {@code action} on {@code input} and asserts it throws a {@link CodecException} with
     * {@code reason} while leaving the input's reader and writer indices where they were (callers
     * rely on that to dead-letter the exact bytes).
     */
    public static CodecException assertRejected(Reason reason, ByteBuf input, Consumer<ByteBuf> action) {
        return assertRejected(reason, input, action, "");
    }

    public static CodecException assertRejected(Reason reason, ByteBuf input, Consumer<ByteBuf> action,
                                                String context) {
        int readerIndex = input.readerIndex();
        int writerIndex = input.writerIndex();
        Throwable thrown = catchThrowable(() -> action.accept(input));
        // Hex only on failure: dumping a leak-tracked buffer costs a stack trace per byte.
        assertThat(thrown)
                .as(() -> context + " input " + Hex.of(input))
                .isInstanceOf(CodecException.class);
        CodecException e = (CodecException) thrown;
        assertThat(e.reason())
                .as(() -> context + " reason of \"" + e.getMessage() + "\" for input " + Hex.of(input))
                .isEqualTo(reason);
        assertThat(input.readerIndex()).as("%s readerIndex after rejection", context).isEqualTo(readerIndex);
        assertThat(input.writerIndex()).as("%s writerIndex after rejection", context).isEqualTo(writerIndex);
        return e;
    }
}
