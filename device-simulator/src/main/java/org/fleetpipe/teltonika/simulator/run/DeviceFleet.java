package org.fleetpipe.teltonika.simulator.run;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.simulator.cli.SimulatorOptions;
import org.fleetpipe.teltonika.simulator.cli.TransportChoice;
import org.fleetpipe.teltonika.simulator.device.DeviceSettings;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;
import org.fleetpipe.teltonika.simulator.device.RecordGenerator;
import org.fleetpipe.teltonika.simulator.device.Route;
import org.fleetpipe.teltonika.simulator.net.SimulatedDevice;
import org.fleetpipe.teltonika.simulator.net.TcpDevice;
import org.fleetpipe.teltonika.simulator.net.UdpDevice;
import org.fleetpipe.teltonika.simulator.report.SimulatorStats;

/** Builds the devices of a run: IMEIs, codecs, start points on the route, event loops and source addresses. */
final class DeviceFleet {

    /** Spreads start points over the route evenly whatever the fleet size. */
    private static final double GOLDEN_FRACTION = 0.6180339887498949;

    private DeviceFleet() {
    }

    static List<SimulatedDevice> create(SimulatorOptions options, EventLoopGroup group, SimulatorStats stats) {
        ImeiSequence imeis = new ImeiSequence(options.imeiBase());
        Route route = Route.vilniusLoop();
        DeviceSettings settings = options.deviceSettings();
        List<InetAddress> sources = options.sourceAddresses();
        List<SimulatedDevice> devices = new ArrayList<>(options.devices());
        for (int i = 0; i < options.devices(); i++) {
            String imei = imeis.imei(i);
            CodecId codec = options.codec().forDevice(i);
            long seed = Long.parseLong(imei);
            double start = (i * GOLDEN_FRACTION) % 1.0 * route.length();
            RecordGenerator generator = new RecordGenerator(codec, route, start, seed, System::currentTimeMillis);
            EventLoop loop = group.next();
            InetAddress source = sources.isEmpty() ? null : sources.get(i % sources.size());
            devices.add(options.transport() == TransportChoice.TCP
                    ? new TcpDevice(imei, generator, settings, loop, stats, options.server(), source, seed)
                    : new UdpDevice(imei, generator, settings, loop, stats, options.server(), source, seed));
        }
        return devices;
    }
}
