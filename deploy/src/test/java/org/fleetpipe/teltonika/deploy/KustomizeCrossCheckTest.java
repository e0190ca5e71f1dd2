package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When kubectl is on the PATH, the real Kustomize must render exactly what the test's resolver
 * renders, so ManifestContractTest checks what {@code kubectl apply -k} would apply. Without
 * kubectl this is skipped; the YAML checks in ManifestContractTest never are.
 */
class KustomizeCrossCheckTest {

    @ParameterizedTest
    @ValueSource(strings = {"k8s/base", "k8s/overlays/dev", "k8s/overlays/prod", "k8s/bridges"})
    void kubectlKustomize_whenKubectlOnThePath_thenRendersTheSameResourcesAsTheTestsResolver(String dir) throws Exception {
        Optional<Path> kubectl = Executables.onPath("kubectl");
        assumeTrue(kubectl.isPresent(), "kubectl not on the PATH");
        Path kustomization = Manifests.deployDir().resolve(dir);

        Process p = new ProcessBuilder(kubectl.get().toString(), "kustomize", kustomization.toString())
                .redirectErrorStream(false)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl kustomize finished").isTrue();
        assertThat(p.exitValue()).as("kubectl kustomize %s: %s", dir, err).isZero();

        Map<String, ObjectNode> real = byId(Kustomization.readAll(new String(out, StandardCharsets.UTF_8)));
        Map<String, ObjectNode> ours = byId(Kustomization.render(kustomization));
        assertThat(ours.keySet()).as("resources").isEqualTo(real.keySet());
        for (String id : real.keySet()) {
            assertThat(ours.get(id)).as(id).isEqualTo(real.get(id));
        }
    }

    private static Map<String, ObjectNode> byId(List<ObjectNode> resources) {
        Map<String, ObjectNode> out = new TreeMap<>();
        for (ObjectNode o : resources) {
            String id = o.path("kind").asText() + "/" + o.path("metadata").path("namespace").asText("-") + "/"
                    + o.path("metadata").path("name").asText();
            assertThat(out.put(id, o)).as("duplicate %s", id).isNull();
        }
        return out;
    }
}
