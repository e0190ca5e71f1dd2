package org.fleetpipe.teltonika.server.udp;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.TcpKnownImeis;

/**
 * Whether a datagram's IMEI may be stored. Every datagram carries its IMEI and anyone can spoof
 * one: the deny- and allow-lists apply to each (as to a TCP login), then, with UDP_ADMISSION=tcp-known
 * in open mode, only IMEIs that logged in over TCP recently, then the new-IMEI limit of the source network.
 */
public final class UdpAdmissionGate {

    public static final String NOT_TCP_KNOWN = "not-tcp-known";
    public static final String NEW_IMEI_LIMIT = "new-imei-limit";

    /** Admits every IMEI: for tests about other things. */
    public static final UdpAdmissionGate OPEN = new UdpAdmissionGate(Admission.OPEN, null, NewImeiLimit.OFF);

    private static final CompletionStage<Boolean> YES = CompletableFuture.completedFuture(true);

    private final Admission admission;
    private final TcpKnownImeis tcpKnown;
    private final NewImeiLimit newImeis;

    /** {@code tcpKnown} null: any IMEI (UDP_ADMISSION=any, or the allow-list decides). */
    public UdpAdmissionGate(Admission admission, TcpKnownImeis tcpKnown, NewImeiLimit newImeis) {
        this.admission = admission;
        this.tcpKnown = tcpKnown;
        this.newImeis = newImeis;
    }

    /** Completes with null when {@code imei} from {@code sender} may be stored, else the refusal reason. */
    public CompletionStage<String> refusal(InetAddress sender, Imei imei) {
        // Both lookups go out together: one round trip for a known device.
        CompletionStage<Boolean> known = tcpKnown == null ? YES : tcpKnown.knows(imei);
        return admission.refusal(imei).thenCombine(known, (listed, isKnown) -> listed != null ? listed
                : isKnown ? null : NOT_TCP_KNOWN)
                .thenCompose(refusal -> refusal != null ? CompletableFuture.completedFuture(refusal)
                        : newImeis.admits(sender, imei).thenApply(admitted -> admitted ? null : NEW_IMEI_LIMIT));
    }
}
