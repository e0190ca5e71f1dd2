package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Where the transport hands a call under {@code /api/v1/} once its head passed the gate and its
 * body is in: the operator API's route table. It answers exactly once, possibly later from
 * another thread, and reads the request's body before it returns (the body is released then).
 */
public interface ApiDispatcher {

    /**
     * @param path   the decoded path after {@code /api/v1/}, e.g. {@code devices/352093081452251}
     * @param caller who sent it, as its token says
     */
    void dispatch(ChannelHandlerContext ctx, FullHttpRequest request, String path, boolean keepAlive,
                  BearerTokenAuth.Caller caller);
}
