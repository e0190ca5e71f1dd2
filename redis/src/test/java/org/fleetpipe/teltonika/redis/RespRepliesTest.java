package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Walking replies as Redis sends them: where each ends, and whether an error is inside. */
class RespRepliesTest {

    /** What an EXEC of XADD, SADD, PEXPIRE and RENAME answers. */
    private static final String EXEC = "*4\r\n$15\r\n1700000000000-0\r\n:10\r\n:1\r\n+OK\r\n";

    @Test
    void skip_whenEachKindOfReplyIsComplete_thenItsEndIsFound() {
        for (String reply : new String[] {"+QUEUED\r\n", "-ERR wrong\r\n", ":42\r\n", "$3\r\nabc\r\n", "$-1\r\n",
                "*-1\r\n", "*0\r\n", EXEC, "*2\r\n*1\r\n:1\r\n$0\r\n\r\n", "%1\r\n+a\r\n:1\r\n", "_\r\n", ",1.5\r\n"}) {
            ByteBuf buf = bytes(reply + "+next\r\n");
            assertThat(RespReplies.skip(buf, 0)).as(reply).isEqualTo(reply.length());
        }
    }

    @Test
    void skip_whenAReplyIsCutAnywhere_thenIncompleteUntilItsLastByte() {
        String whole = EXEC;
        for (int cut = 0; cut < whole.length(); cut++) {
            ByteBuf buf = bytes(whole.substring(0, cut));
            assertThat(RespReplies.skip(buf, 0)).as("first %d bytes", cut).isEqualTo(RespReplies.INCOMPLETE);
        }
        assertThat(RespReplies.skip(bytes(whole), 0)).isEqualTo(whole.length());
    }

    @Test
    void skip_whenABulkStringHoldsCrLf_thenItsLengthDecidesNotTheBytes() {
        String reply = "$4\r\n\r\n\r\n\r\n";

        assertThat(RespReplies.skip(bytes(reply), 0)).isEqualTo(reply.length());
    }

    @Test
    void firstError_whenExecAnswersAnErrorAmongResults_thenThatError() {
        ByteBuf buf = bytes("*3\r\n$3\r\n1-0\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n:1\r\n");

        assertThat(RespReplies.firstError(buf, 0)).startsWith("WRONGTYPE");
        assertThat(RespReplies.firstError(bytes(EXEC), 0)).isNull();
        assertThat(RespReplies.firstError(bytes("-EXECABORT Transaction discarded\r\n"), 0)).startsWith("EXECABORT");
        assertThat(RespReplies.firstError(bytes("+OK\r\n"), 0)).isNull();
    }

    @Test
    void isNullArray_onlyForTheNullArray() {
        assertThat(RespReplies.isNullArray(bytes("*-1\r\n"), 0)).isTrue();
        assertThat(RespReplies.isNullArray(bytes("*0\r\n"), 0)).isFalse();
        assertThat(RespReplies.isNullArray(bytes("$-1\r\n"), 0)).isFalse();
    }

    @Test
    void skip_whenNotResp_thenRefused() {
        assertThatThrownBy(() -> RespReplies.skip(bytes("HTTP/1.1 400\r\n"), 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RespReplies.skip(bytes("$x\r\nabc\r\n"), 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RespReplies.skip(bytes("+a\rb\r\n"), 0)).isInstanceOf(IllegalStateException.class);
    }

    private static ByteBuf bytes(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
    }
}
