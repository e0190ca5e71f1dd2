package org.fleetpipe.teltonika.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.json.Json;
import org.junit.jupiter.api.Test;

/** The response records serialise byte for byte as the maps they replaced: names, order, nulls. */
class ResponseShapeTest {

    private static String json(Object body) throws Exception {
        return Json.MAPPER.writeValueAsString(body);
    }

    @Test
    void device_andCommand_keepTheirFieldOrderAndNulls() throws Exception {
        assertThat(json(new DeviceResource.DeviceView("352093081452251", "a-1", 5L, null, null))).isEqualTo(
                "{\"imei\":\"352093081452251\",\"instance\":\"a-1\",\"connected_since\":5,\"remote\":null,"
                        + "\"last_record_at\":null}");
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", "c");
        fields.put("imei", "352093081452251");
        fields.put("codec", "12");
        fields.put("command", "getinfo");
        fields.put("status", "queued");
        fields.put("attempts", "0");
        fields.put("max_attempts", "3");
        fields.put("created_at", "1");
        fields.put("expires_at", "2");
        fields.put("history", "[{\"status\":\"queued\",\"at\":1}]");
        assertThat(json(CommandResource.view(fields, false))).isEqualTo("{\"id\":\"c\",\"imei\":\"352093081452251\","
                + "\"codec\":12,\"command\":\"getinfo\",\"status\":\"queued\",\"reason\":null,\"reply\":null,"
                + "\"attempts\":0,\"max_attempts\":3,\"created_at\":1,\"sent_at\":null,\"replied_at\":null,"
                + "\"expires_at\":2,\"history\":[{\"status\":\"queued\",\"at\":1}]}");
    }

    @Test
    void ops_keepTheirNames_andAQueuesDetailFollowsItsFields() throws Exception {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("cap", 10);
        detail.put("backpressure", "off");
        assertThat(json(new OpsResource.QueueReport("healthy", 7, List.of(
                new OpsResource.QueueView("telemetry-stream", 1, 2, 0, "healthy", 3, 4.5, "why", detail))))).isEqualTo(
                "{\"status\":\"healthy\",\"computed_at\":7,\"queues\":[{\"queue\":\"telemetry-stream\",\"size\":1,"
                        + "\"oldest_age_ms\":2,\"stuck\":0,\"status\":\"healthy\",\"avg_age_ms\":3,"
                        + "\"rate_per_minute\":4.5,\"reason\":\"why\",\"cap\":10,\"backpressure\":\"off\"}]}");
        assertThat(json(new OpsResource.PurgeView(true, 1, 2, 3, 4, 5))).isEqualTo("{\"dry_run\":true,"
                + "\"expired_commands\":1,\"orphaned_commands\":2,\"frame_dead_letters_past_ttl\":3,"
                + "\"command_dead_letters_past_ttl\":4,\"elapsed_ms\":5}");
    }

    @Test
    void admission_andInstances() throws Exception {
        assertThat(json(new AdmissionResource.Overview("open", 1, 0)))
                .isEqualTo("{\"mode\":\"open\",\"allowed\":1,\"denied\":0}");
        assertThat(json(new AdmissionResource.Changed(2, 0))).isEqualTo("{\"added\":2,\"removed\":0}");
        assertThat(json(new AdmissionResource.Removed(1))).isEqualTo("{\"removed\":1}");
        Map<String, Object> instance = new LinkedHashMap<>();
        instance.put("id", "a-1");
        instance.put("host_name", "h");
        assertThat(json(new InstanceResource.InstanceList(List.of(instance))))
                .as("map keys stay as they are").isEqualTo("{\"instances\":[{\"id\":\"a-1\",\"host_name\":\"h\"}]}");
    }
}
