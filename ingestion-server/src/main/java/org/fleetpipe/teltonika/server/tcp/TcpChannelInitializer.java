package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetAddress;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.server.config.ServerSettings;

/**
 * The device pipeline, in the order a byte travels: count the connection, hold it to the login
 * deadline (a read-idle timer after login), cut frames, hand them on one at a time, log in, hold a
 * device over its rate budget, then AVL packets or command frames, then the tail.
 */
public final class TcpChannelInitializer extends ChannelInitializer<Channel> {

    private final PipelineServices services;
    private final ConnectionTracker tracker;
    private final PreLoginCounts preLogin;
    private final TcpFrameReader frameReader;
    private final AvlPacketDecoder avlDecoder;
    private final CommandFrameDecoder commandDecoder;
    private final FrameRejector rejector;

    private final Supplier<SslContext> tls;
    private final long handshakeTimeoutMillis;

    /**
     * The same pipeline behind TLS (an SslHandler from {@code tls}, the newest context), sharing this
     * one's connection caps.
     */
    public TcpChannelInitializer withTls(Supplier<SslContext> tls, long handshakeTimeoutMillis) {
        return new TcpChannelInitializer(services, tls, handshakeTimeoutMillis, tracker, preLogin);
    }

    public TcpChannelInitializer(PipelineServices services) {
        this(services, null, 0, null, null);
    }

    private TcpChannelInitializer(PipelineServices services, Supplier<SslContext> tls, long handshakeTimeoutMillis,
                                  ConnectionTracker sharedTracker, PreLoginCounts sharedPreLogin) {
        this.services = services;
        this.tls = tls;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        ServerSettings s = services.settings();
        DecodeLimits limits = s.devices().decodeLimits();
        this.tracker = sharedTracker != null ? sharedTracker : new ConnectionTracker(services.metrics(),
                s.devices().maxConnections(),
                new AddressLimiter(s.devices().maxConnectionsPerAddress(), s.devices().maxNewConnectionsPerAddressPerSecond()));
        if (sharedPreLogin != null) {
            this.preLogin = sharedPreLogin;
        } else {
            this.preLogin = new PreLoginCounts(s.devices().hostile().maxPreLoginConnections(),
                    s.devices().hostile().maxPreLoginConnectionsPerAddress());
            services.metrics().preLoginConnections(preLogin::count);
        }
        this.frameReader = new TcpFrameReader(limits);
        this.avlDecoder = new AvlPacketDecoder(limits);
        this.commandDecoder = new CommandFrameDecoder(limits);
        this.rejector = new FrameRejector(services.deadLetters(), services.metrics());
    }

    /** How many more connections of a network its pre-login cap takes now, for the accept pace. */
    public AcceptRateLimit.NetworkRoom preLoginRoom() {
        return new AcceptRateLimit.NetworkRoom() {
            @Override
            public int room(InetAddress network) {
                return preLogin.roomFor(network, System.nanoTime());
            }

            @Override
            public void handedOn(InetAddress network) {
                preLogin.handedOn(network, System.nanoTime());
            }
        };
    }

    @Override
    protected void initChannel(Channel ch) {
        ServerSettings s = services.settings();
        ChannelPipeline p = ch.pipeline();
        p.addLast(HandlerNames.TRACKER, tracker);
        p.addLast(HandlerNames.PRE_LOGIN, new PreLoginGate(preLogin, s.devices().loginTimeout().toMillis()));
        if (tls != null) {
            SslHandler ssl = tls.get().newHandler(ch.alloc());
            ssl.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
            p.addLast(HandlerNames.TLS, ssl);
        }
        p.addLast(HandlerNames.FRAMES, new FrameDecoder(frameReader, rejector, s.devices().frameTimeout()));
        p.addLast(HandlerNames.SEQUENCER, new FrameSequencer(s.devices().maxQueuedFrames(), services.metrics()));
        p.addLast(HandlerNames.LOGIN, new LoginHandler(s.devices().imeiLuhnCheck(), s.devices().readIdleTimeout().toMillis(),
                services.sessions(), services.registry(), services.commands(), services.admission(),
                services.newImeis(), services.refusals(), services.metrics(), services.captures(),
                services.logSessions()));
        if (services.rates().enabled()) {
            p.addLast(HandlerNames.DEVICE_RATE, new DeviceRateGate(services.rates(), services.metrics(),
                    services.refusals()));
        }
        p.addLast(HandlerNames.TELEMETRY, new TelemetryHandler(avlDecoder, services.telemetry(), rejector,
                services.metrics(), services.inFlight()));
        p.addLast(HandlerNames.COMMANDS, new CommandFrameHandler(commandDecoder, rejector, services.commands(),
                services.metrics(), services.refusals()));
        p.addLast(HandlerNames.EVENTS, new SessionEventsHandler(services.sessions(), services.registry(),
                services.commands(), services.metrics(), services.logSessions()));
    }
}
