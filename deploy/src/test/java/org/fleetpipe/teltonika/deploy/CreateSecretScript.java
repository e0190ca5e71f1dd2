package org.fleetpipe.teltonika.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The dev overlay's create-secret.sh, read as text: the Secret it makes and each key's value (shell text). */
record CreateSecretScript(String text, String secretName, Map<String, String> values) {

    private static final Pattern NAME = Pattern.compile("create secret generic ([a-z0-9-]+)");
    private static final Pattern LITERAL = Pattern.compile("--from-literal=([a-z0-9-]+)=\"([^\"]*)\"");

    static CreateSecretScript read() throws IOException {
        String text = Files.readString(Manifests.repoDir().resolve("deploy/k8s/overlays/dev/create-secret.sh"));
        Matcher name = NAME.matcher(text);
        if (!name.find()) {
            throw new IllegalStateException("create-secret.sh creates no generic Secret");
        }
        Map<String, String> values = new LinkedHashMap<>();
        Matcher literal = LITERAL.matcher(text);
        while (literal.find()) {
            values.put(literal.group(1), literal.group(2));
        }
        return new CreateSecretScript(text, name.group(1), values);
    }

    Set<String> keys() {
        return values.keySet();
    }

    String value(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalStateException("create-secret.sh sets no key " + key);
        }
        return value;
    }
}
