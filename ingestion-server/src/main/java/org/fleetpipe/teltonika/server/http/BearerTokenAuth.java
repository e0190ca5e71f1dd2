package org.fleetpipe.teltonika.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Checks {@code Authorization: Bearer <token>} in constant time, so timing does not leak a token:
 * the operator token may do everything, the optional read-only token only GET. Each token is known
 * in logs by its fingerprint, never by itself.
 */
public final class BearerTokenAuth {

    private static final String PREFIX = "Bearer ";

    private final byte[] operator;
    private final byte[] read;
    private final Caller operatorCaller;
    private final Caller readCaller;

    /** Who sent a request, as its token says; {@link Access#NONE} without a token we know. */
    public record Caller(Access access, String fingerprint) {
        static final Caller NOBODY = new Caller(Access.NONE, "-");
    }

    /** What a token may do. */
    public enum Access { NONE, READ, OPERATOR }

    public BearerTokenAuth(String operatorToken) {
        this(operatorToken, Optional.empty());
    }

    /** @param readToken a token that may only GET; checked like the operator token */
    public BearerTokenAuth(String operatorToken, Optional<String> readToken) {
        this.operator = operatorToken.getBytes(StandardCharsets.UTF_8);
        this.read = readToken.map(t -> t.getBytes(StandardCharsets.UTF_8)).orElse(null);
        this.operatorCaller = new Caller(Access.OPERATOR, fingerprint(operatorToken));
        this.readCaller = readToken.map(t -> new Caller(Access.READ, fingerprint(t))).orElse(null);
    }

    /** A random 256-bit token, for when none is configured. */
    public static String randomToken() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * The first 8 hex digits of the token's SHA-256: enough for an operator to tell the tokens
     * apart in a log, nothing towards guessing one.
     */
    public static String fingerprint(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** The operator token's fingerprint, for the start log. */
    public String operatorFingerprint() {
        return operatorCaller.fingerprint();
    }

    /** The read-only token's fingerprint, if there is one. */
    public Optional<String> readFingerprint() {
        return Optional.ofNullable(readCaller).map(Caller::fingerprint);
    }

    /** Who sent {@code request}. */
    public Caller caller(HttpRequest request) {
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Caller.NOBODY;
        }
        byte[] given = header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8);
        // Both compared every time, so the timing does not tell which token was tried either.
        boolean isOperator = MessageDigest.isEqual(given, operator);
        boolean isRead = read != null && MessageDigest.isEqual(given, read);
        if (isOperator) {
            return operatorCaller;
        }
        return isRead ? readCaller : Caller.NOBODY;
    }

    /** True when {@code request} carries the operator token. */
    public boolean allows(HttpRequest request) {
        return caller(request).access() == Access.OPERATOR;
    }
}
