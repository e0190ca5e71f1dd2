package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * The sink a group delivers to, kept in {@code bridge:binding:<group>} from the group's first start
 * on. A later start naming another sink (another kind, URL or topic: a copied Deployment, an edited
 * one) is refused unless told to rebind: the group's records would otherwise go on to a sink that
 * never got the first ones, and the first sink would silently get no more.
 */
public final class SinkBinding {

    private SinkBinding() {}

    /**
     * Binds the group to {@code target} if it is bound to nothing yet, or to something else and
     * {@code rebind} says so.
     *
     * @return a line for the start log
     * @throws IllegalStateException when the group is bound to another sink and {@code rebind} is false
     */
    public static String apply(RedisClusterCommands<String, String> redis, StreamKeys keys, String target,
                               boolean rebind) {
        String key = keys.binding();
        if ("OK".equals(redis.set(key, target, SetArgs.Builder.nx()))) {
            return "bound to=\"" + target + "\"";
        }
        String bound = redis.get(key);
        if (target.equals(bound)) {
            return "bound to=\"" + target + "\"";
        }
        if (!rebind) {
            throw new IllegalStateException("group " + keys.group() + " delivers to \"" + bound + "\", not \"" + target
                    + "\": the records it acknowledged went there. Another sink needs its own --group; to move this"
                    + " group to the new sink (it gets the records not yet acknowledged, not the earlier ones), start"
                    + " once with --rebind (BRIDGE_REBIND=true)");
        }
        redis.set(key, target);
        return "rebound from=\"" + bound + "\" to=\"" + target + "\"";
    }
}
