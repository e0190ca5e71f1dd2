package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dev overlay's create-secret.sh, run with sh against a stand-in kubectl that records its
 * calls: one random password in both the Redis password and the URL, a random token, and an
 * existing Secret left alone.
 */
class CreateSecretScriptTest {

    private static final Pattern LITERAL = Pattern.compile("--from-literal=([a-z-]+)=(\\S+)");

    @TempDir
    Path root;

    @Test
    void makesOneRandomPasswordForRedisAndTheUrl_aRandomToken_andLeavesAnExistingSecretAlone() throws Exception {
        assumeTrue(Executables.onPath("sh").isPresent() && Executables.onPath("od").isPresent(), "sh and od");
        List<String> first = run(false);
        String create = first.stream().filter(c -> c.contains("create secret generic teltonika-ingestion"))
                .findFirst().orElseThrow();
        java.util.Map<String, String> values = new java.util.HashMap<>();
        Matcher m = LITERAL.matcher(create);
        while (m.find()) {
            values.put(m.group(1), m.group(2));
        }
        assertThat(values.get("redis-password")).matches("[0-9a-f]{48}");
        assertThat(values.get("api-token")).matches("[0-9a-f]{64}");
        assertThat(values.get("redis-url")).startsWith("redis-sentinel://:" + values.get("redis-password") + "@")
                .endsWith("#mymaster");
        assertThat(create).contains("-n teltonika-dev");
        assertThat(run(false).stream().filter(c -> c.contains("create secret")).findFirst().orElseThrow())
                .as("another run, other values").doesNotContain(values.get("redis-password"));

        assertThat(run(true)).as("an existing Secret is left alone").noneMatch(c -> c.contains("create secret"));
    }

    /** Runs the script with a kubectl stand-in; its calls, one per line. */
    private List<String> run(boolean secretExists) throws IOException, InterruptedException {
        Path stubs = Files.createDirectories(root.resolve("stubs"));
        Path calls = stubs.resolve("calls");
        Files.deleteIfExists(calls);
        Path kubectl = stubs.resolve("kubectl");
        Files.writeString(kubectl, "#!/bin/sh\necho \"$*\" >> \"" + calls + "\"\n"
                + "case \"$*\" in *' get secret '*) exit " + (secretExists ? 0 : 1) + " ;; esac\n"
                + "case \"$*\" in *'apply -f -'*) cat > /dev/null ;; esac\nexit 0\n");
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder pb = new ProcessBuilder("sh",
                Manifests.repoDir().resolve("deploy/k8s/overlays/dev/create-secret.sh").toString());
        pb.environment().put("PATH", stubs + java.io.File.pathSeparator + System.getenv("PATH"));
        Process p = pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return Files.readAllLines(calls);
    }
}
