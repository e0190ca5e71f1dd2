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

    @Test
    void redacted_hidesTheWholeCredentials_evenAPasswordHoldingAnAtSignOrASlash() {
        assertThat(ClusterUrl.redacted("redis-cluster://default:p@ss/w0rd@10.0.0.1:7000,10.0.0.2:7000?timeout=5s"))
                .isEqualTo("redis-cluster://***@10.0.0.1:7000,10.0.0.2:7000?timeout=5s");
        assertThat(ClusterUrl.redacted("rediss-cluster://:secret@a:1,b:2")).isEqualTo("rediss-cluster://***@a:1,b:2");
        assertThat(ClusterUrl.redacted("redis://default:secret@127.0.0.1:6379/0"))
                .isEqualTo("redis://***@127.0.0.1:6379/0");
        assertThat(ClusterUrl.redacted("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
        assertThat(ClusterUrl.redacted("redis-sentinel://s1:26379,s2:26379?sentinelMasterId=m"))
                .isEqualTo("redis-sentinel://s1:26379,s2:26379?sentinelMasterId=m");
    }
}
