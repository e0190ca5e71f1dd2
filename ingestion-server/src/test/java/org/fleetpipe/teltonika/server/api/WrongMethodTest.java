package org.fleetpipe.teltonika.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every path of the operator API, asked with a method it does not take, answers 405 with an
 * {@code Allow} naming exactly the methods it does (RFC 9110). The health port's paths are
 * {@code HttpProbeIsolationIT}'s part.
 */
class WrongMethodTest {

    private static final List<HttpMethod> METHODS = List.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST,
            HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE, HttpMethod.OPTIONS);

    /** The API the server builds; no handler is called here. */
    private static OperatorApi api() {
        CommandResource commands = new CommandResource(null, null, null, null);
        return OperatorApi.of(new InstanceResource(null, null), new DeviceResource(null, commands,
                new CaptureResource(null, null), new DeviceModelResource(null)), commands,
                new OpsResource(null, null, null), new AdmissionResource(null, null), new SpecResource());
    }

    @Test
    void everyRoutedPath_askedWithAMethodItDoesNotTake_is405_withAllowNamingTheMethodsItTakes() {
        OperatorApi api = api();
        int answered = 0;
        for (Route route : api.table().routes()) {
            String path = route.template().replaceAll("\\{[^}]+}", "p1");
            Set<String> takes = new LinkedHashSet<>();
            List<String> segments = List.of(path.split("/", -1));
            for (Route other : api.table().routes()) {
                if (other.match(segments) != null) {
                    takes.add(other.method().name());
                }
            }
            for (HttpMethod method : METHODS) {
                if (takes.contains(method.name())) {
                    continue;
                }
                FullHttpResponse answer = dispatch(api, method, path);
                try {
                    assertThat(answer.status().code()).as("%s %s", method, path).isEqualTo(405);
                    assertThat(answer.headers().get(HttpHeaderNames.ALLOW)).as("%s %s", method, path).isNotNull();
                    assertThat(Set.of(answer.headers().get(HttpHeaderNames.ALLOW).split(", ")))
                            .as("Allow of %s %s", method, path).isEqualTo(takes);
                } finally {
                    answer.release();
                }
                answered++;
            }
        }
        assertThat(answered).as("every route was asked").isGreaterThan(api.table().routes().size());
    }

    private static FullHttpResponse dispatch(OperatorApi api, HttpMethod method, String path) {
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                FullHttpRequest request = (FullHttpRequest) msg;
                try {
                    api.dispatch(ctx, request, path, true, null);
                } finally {
                    request.release();
                }
            }
        });
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, ApiCall.PREFIX + path));
        FullHttpResponse answer = channel.readOutbound();
        channel.finishAndReleaseAll();
        return answer;
    }
}
