package org.fleetpipe.teltonika.simulator.cli;

/** The text printed for {@code --help} and after a bad argument. */
public final class Usage {

    public static final String TEXT = """
            usage: java -jar device-simulator.jar [options]

            Simulated Teltonika trackers: each logs in with its own IMEI (TCP) or sends datagrams (UDP),
            sends AVL packets along a route, checks every ACK and resends what was not acknowledged.

              --host HOST             server address (default 127.0.0.1); must be loopback unless --allow-remote
              --port N                server port (default 5027)
              --devices N             simulated devices; in --load mode, connections (default 10)
              --connections N         same as --devices
              --interval D            time between packets of a device (default 1s)
              --records N             records per packet, 1..255 (default 5)
              --codec C               8, 8E, 16 or mixed (the three in turn by device) (default 8)
              --transport T           tcp or udp (default tcp)
              --duration D            how long to send (default 60s)
              --max-packets N         stop each device after N packets' worth of records (default: no limit)
              --imei-base N           14 digits; device i gets IMEI base+i plus its Luhn check digit
                                      (default 35209308000000)
              --load                  closed loop: each device sends its next packet as soon as the previous
                                      one is acknowledged, and the summary gives records/s and ACK latency
              --source-addresses A,B  local loopback addresses to connect from in turn (more source ports)
              --allow-remote          allow a --host or source address that is not loopback
              --ack-timeout D         wait this long for the login answer or an ACK (default 10s)
              --backoff-min D         first reconnect delay; it doubles with jitter (default 1s)
              --backoff-max D         longest reconnect delay (default 30s)
              --backlog N             records a device keeps while unacknowledged; more are dropped (default 10000)
              --max-packet-bytes N    largest frame or datagram, as a device's setting (default 1280)
              --progress D            time between progress lines, 0 for none (default 5s)
              --drain D               once sending stops, wait up to this for outstanding ACKs (default 10s)
              --threads N             event loop threads (default 2)
              --start-spread D        start the devices spread over D (default: one interval; in --load
                                      mode 1 ms per connection, at most 1s)
              --warmup D              the summary adds a "steady" line: rate and ACK latency after the
                                      first D, without the logins and the JIT's first seconds (default 0: none)
              --help                  this text

            Durations: 500ms, 1s, 2m, 1h (a bare number is seconds).
            Exit code: 0 when at least one record was acknowledged and every generated record was
            acknowledged by the end; 1 when some were not (or were dropped); 2 for bad arguments.
            """;

    private Usage() {
    }
}
