package org.fleetpipe.teltonika.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.fleetpipe.teltonika.redis.RespArguments;

/** One Redis command as the RESP bytes a benchmark client sends again and again. */
final class RespCommand {

    private RespCommand() {
    }

    static byte[] encode(List<String> arguments) {
        RespArguments resp = new RespArguments(256).command(arguments.size());
        arguments.forEach(resp::text);
        ByteBuf bytes = Unpooled.buffer(resp.byteLength());
        resp.copyTo(bytes);
        return ByteBufUtil.getBytes(bytes);
    }
}
