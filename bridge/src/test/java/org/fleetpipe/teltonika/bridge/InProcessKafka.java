package org.fleetpipe.teltonika.bridge;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/** A real Kafka broker in this JVM, KRaft mode, one combined broker and controller on loopback. */
final class InProcessKafka implements AutoCloseable {

    private final KafkaClusterTestKit cluster;

    InProcessKafka() throws Exception {
        cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                // A topic the bridge names must exist: the tests create theirs, and a missing one is a test.
                .setConfigProp("auto.create.topics.enable", "false")
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
    }

    String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
    }

    /** Reads the topic from the start until {@code expected} records came or {@code limit} passed. */
    List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected, Duration limit) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + System.nanoTime());
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(properties, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(Set.of(topic));
            long until = System.nanoTime() + limit.toNanos();
            while (records.size() < expected && System.nanoTime() < until) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }

}
