package org.fleetpipe.teltonika.server.udp;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.TcpKnownImeis;
import org.fleetpipe.teltonika.server.admission.TcpSessionNetworks;

/**
 * Whether a datagram's IMEI may be stored. Every datagram carries its IMEI and anyone can spoof
 * one: the deny- and allow-lists apply to each (as to a TCP login), then, with UDP_ADMISSION=tcp-known
 * in open mode, only IMEIs that logged in over TCP recently (with tcp-network, only from the source
 * network of the IMEI's current or last TCP session), then the new-IMEI limit of the source network.
 */
public final class UdpAdmissionGate {

    public static final String NOT_TCP_KNOWN = "not-tcp-known";
    public static final String NEW_IMEI_LIMIT = "new-imei-limit";
    public static final String NOT_TCP_NETWORK = "not-tcp-network";

    /** Admits every IMEI: for tests about other things. */
    public static final UdpAdmissionGate OPEN = new UdpAdmissionGate(Admission.OPEN, null, NewImeiLimit.OFF);

    private static final CompletionStage<String> ADMITTED = CompletableFuture.completedFuture(null);


    private final Admission admission;
    private final TcpKnownImeis tcpKnown;
    private final NewImeiLimit newImeis;
    private final TcpSessionNetworks tcpNetworks;

    /** {@code tcpKnown} null: any IMEI (UDP_ADMISSION=any, or the allow-list decides). */
    public UdpAdmissionGate(Admission admission, TcpKnownImeis tcpKnown, NewImeiLimit newImeis) {
        this(admission, tcpKnown, null, newImeis);
    }

    /**
     * {@code tcpNetworks} non-null (UDP_ADMISSION=tcp-network): only from the network of the IMEI's
     * TCP session, which also tells whether it has one ({@code tcpKnown} is then not asked).
     */
    public UdpAdmissionGate(Admission admission, TcpKnownImeis tcpKnown, TcpSessionNetworks tcpNetworks,
                            NewImeiLimit newImeis) {
        this.admission = admission;
        this.tcpKnown = tcpNetworks == null ? tcpKnown : null;
        this.tcpNetworks = tcpNetworks;
        this.newImeis = newImeis;
    }

    /** Completes with null when {@code imei} from {@code sender} may be stored, else the refusal reason. */
    public CompletionStage<String> refusal(InetAddress sender, Imei imei) {
        // Both lookups go out together: one round trip for a known device.
        CompletionStage<String> session = tcpNetworks != null ? tcpNetworks.check(imei, sender).thenApply(v ->
                switch (v) {
                    case SAME_NETWORK -> null;
                    case OTHER_NETWORK -> NOT_TCP_NETWORK;
                    case NO_SESSION -> NOT_TCP_KNOWN;
                })
                : tcpKnown != null ? tcpKnown.knows(imei).thenApply(known -> known ? null : NOT_TCP_KNOWN)
                : ADMITTED;
        return admission.refusal(imei).thenCombine(session, (listed, notKnown) -> listed != null ? listed : notKnown)
                .thenCompose(refusal -> refusal != null ? CompletableFuture.completedFuture(refusal)
                        : newImeis.admits(sender, imei).thenApply(admitted -> admitted ? null : NEW_IMEI_LIMIT));
    }
}
