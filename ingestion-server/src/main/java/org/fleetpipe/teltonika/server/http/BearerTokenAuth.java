package org.fleetpipe.teltonika.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Checks {@code Authorization: Bearer <token>} in constant time, so timing does not leak the token. */
public final class BearerTokenAuth {

    private static final String PREFIX = "Bearer ";

    private final byte[] token;

    public BearerTokenAuth(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    /** A random 256-bit token, for when none is configured. */
    public static String randomToken() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    public boolean allows(HttpRequest request) {
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return false;
        }
        byte[] given = header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, token);
    }
}
