package org.fleetpipe.teltonika.server.api;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.fleetpipe.teltonika.server.http.ApiDispatcher;
import org.fleetpipe.teltonika.server.http.BearerTokenAuth;
import org.fleetpipe.teltonika.server.http.HttpResponses;

/**
 * The operator API: its {@link RouteTable} behind the transport. A call is answered by its route's
 * handler, 405 with {@code Allow} when its path is known but not its method, 404 when its path is
 * unknown.
 */
public final class OperatorApi implements ApiDispatcher {

    private final RouteTable table;

    public OperatorApi(List<ApiResource> resources) {
        this.table = new RouteTable(resources);
    }

    /** The whole API, as the server serves it. */
    public static OperatorApi of(InstanceResource instances, DeviceResource devices, CommandResource commands,
                                 OpsResource ops, AdmissionResource admission, SpecResource spec) {
        List<ApiResource> resources = new ArrayList<>(List.of(instances.resource(), devices.resource(),
                commands.resource(), new CommandTemplateResource().resource()));
        resources.addAll(ops.resources());
        resources.add(admission.resource());
        resources.add(spec.resource());
        return new OperatorApi(resources);
    }

    /** The table, for the check that the spec documents every operation. */
    public RouteTable table() {
        return table;
    }

    @Override
    public void dispatch(ChannelHandlerContext ctx, FullHttpRequest request, String path, boolean keepAlive,
                         BearerTokenAuth.Caller caller) {
        RouteTable.Match match = table.match(request.method(), path);
        if (match instanceof RouteTable.Found found) {
            ApiCall call = new ApiCall(ctx, request, found.params(), keepAlive, caller);
            if (request.method().equals(HttpMethod.GET)) {
                call.logRead();
            }
            found.route().handler().handle(call);
        } else if (match instanceof RouteTable.WrongMethod wrong) {
            String allow = wrong.allowed().stream().map(HttpMethod::name).collect(Collectors.joining(", "));
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, "method-not-allowed",
                    "use " + allow.replace(", ", " or ") + " at " + ApiCall.PREFIX + path,
                    new DefaultHttpHeaders().set(HttpHeaderNames.ALLOW, allow));
        } else {
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "not-found",
                    ((RouteTable.NotFound) match).message());
        }
    }
}
