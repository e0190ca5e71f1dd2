package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test's own Kustomize resolver, on small trees (so a resolver bug cannot hide a manifest bug). */
class KustomizationTest {

    @TempDir
    Path dir;

    @Test
    void strategicMerge_whenPatchNamesAnExistingContainer_thenMergesIntoItAndKeepsTheOthers() {
        ObjectNode target = yaml("""
                spec:
                  template:
                    spec:
                      containers:
                        - name: app
                          image: a:1
                          env: [{name: A, value: "1"}, {name: B, value: "2"}]
                          resources: {requests: {cpu: 1}}
                        - name: sidecar
                          image: s:1
                """);
        ObjectNode patch = yaml("""
                spec:
                  template:
                    spec:
                      containers:
                        - name: app
                          env: [{name: B, value: "3"}, {name: C, value: "4"}]
                          resources: {limits: {memory: 1Gi}}
                """);

        Kustomization.StrategicMerge.apply(target, patch);

        assertThat(target.at("/spec/template/spec/containers")).hasSize(2);
        assertThat(target.at("/spec/template/spec/containers/0/image").asText()).isEqualTo("a:1");
        assertThat(target.at("/spec/template/spec/containers/0/env").toString())
                .isEqualTo("[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"3\"},{\"name\":\"C\",\"value\":\"4\"}]");
        assertThat(target.at("/spec/template/spec/containers/0/resources/requests/cpu").asInt()).isEqualTo(1);
        assertThat(target.at("/spec/template/spec/containers/0/resources/limits/memory").asText()).isEqualTo("1Gi");
        assertThat(target.at("/spec/template/spec/containers/1/name").asText()).isEqualTo("sidecar");
    }

    @Test
    void render_whenOverlaySetsNamespaceReplicasAndImage_thenAppliesThemToTheBaseResources() throws IOException {
        write("base/kustomization.yaml", "resources: [app.yaml]\n");
        write("base/app.yaml", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: app}
                spec:
                  replicas: 3
                  template:
                    spec:
                      containers: [{name: app, image: "registry:5000/team/app:1.0"}]
                ---
                apiVersion: v1
                kind: Namespace
                metadata: {name: ns}
                """);
        write("overlay/kustomization.yaml", """
                namespace: ns
                resources: [../base]
                replicas: [{name: app, count: 2}]
                images: [{name: "registry:5000/team/app", newTag: "2.0"}]
                """);

        List<ObjectNode> out = Kustomization.render(dir.resolve("overlay"));

        ObjectNode app = Kustomization.find(out, "Deployment", "app");
        assertThat(app.at("/metadata/namespace").asText()).isEqualTo("ns");
        assertThat(app.at("/spec/replicas").asInt()).isEqualTo(2);
        assertThat(app.at("/spec/template/spec/containers/0/image").asText()).isEqualTo("registry:5000/team/app:2.0");
        assertThat(Kustomization.find(out, "Namespace", "ns").at("/metadata/namespace").isMissingNode()).isTrue();
    }

    @Test
    void render_whenKustomizationUsesAnUnsupportedField_thenFailsInsteadOfIgnoringIt() throws IOException {
        write("k/kustomization.yaml", "resources: []\nnamePrefix: x-\n");

        assertThatThrownBy(() -> Kustomization.render(dir.resolve("k")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("namePrefix");
    }

    private void write(String file, String text) throws IOException {
        Path p = dir.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    private static ObjectNode yaml(String text) {
        return Kustomization.readAll(text).get(0);
    }
}
