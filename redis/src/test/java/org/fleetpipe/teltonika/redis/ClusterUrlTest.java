package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterUrlTest {

    @Test
    void everyHostIsASeedWithTheSameLoginTlsAndOptions() {
        List<RedisURI> seeds = ClusterUrl.seeds("rediss-cluster://:s3cr@t@10.0.0.1:7000,10.0.0.2:7001?verifyPeer=NONE");

        assertThat(seeds).hasSize(2);
        assertThat(seeds).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, 7001);
        assertThat(seeds).allSatisfy(seed -> {
            assertThat(seed.isSsl()).isTrue();
            assertThat(seed.isVerifyPeer()).isFalse();
            assertThat(new String(seed.getCredentialsProvider().resolveCredentials().block().getPassword()))
                    .isEqualTo("s3cr@t");
        });
    }

    @Test
    void plainUrl_andWhatIsNotAClusterUrl() {
        assertThat(ClusterUrl.is("redis-cluster://127.0.0.1:7000")).isTrue();
        assertThat(ClusterUrl.is("redis://127.0.0.1:6379")).isFalse();
        assertThat(ClusterUrl.is("redis-sentinel://127.0.0.1:26379#main")).isFalse();
        assertThat(ClusterUrl.seeds("redis-cluster://127.0.0.1:7000/")).singleElement()
                .satisfies(seed -> assertThat(seed.isSsl()).isFalse());
    }

    @Test
    void aDatabaseNumberOrAnEmptyHostIsRefused() {
        assertThatThrownBy(() -> ClusterUrl.seeds("redis-cluster://127.0.0.1:7000/2"))
                .hasMessageContaining("database");
        assertThatThrownBy(() -> ClusterUrl.seeds("redis-cluster://127.0.0.1:7000,,127.0.0.1:7001"))
                .hasMessageContaining("empty host");
    }
}
