package org.fleetpipe.teltonika.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import org.fleetpipe.teltonika.server.command.CommandTemplate;
import org.fleetpipe.teltonika.server.command.CommandTemplates;
import org.fleetpipe.teltonika.server.command.TemplateArgument;

/**
 * {@code GET /api/v1/command-templates}: the named commands {@code POST /api/v1/devices/{imei}/commands}
 * takes as {@code {"template": ..., "args": {...}}}, with their arguments.
 */
public final class CommandTemplateResource {

    /** The listing. */
    public record TemplateList(List<TemplateView> templates) {
    }

    /** One template as the listing shows it. */
    public record TemplateView(String name, String syntax, String description, List<ArgumentView> arguments) {
    }

    /** One argument; the limits that do not apply to its type are left out. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ArgumentView(String name, String type, boolean required, List<Long> allowed, Long min, Long max,
                               Integer maxItems, Integer maxLength, String description) {
    }

    private final TemplateList list = new TemplateList(CommandTemplates.all().stream()
            .map(CommandTemplateResource::view).toList());

    public ApiResource resource() {
        return ApiResource.of("command-templates", "try GET /api/v1/command-templates",
                Route.get("command-templates", call -> call.json(HttpResponseStatus.OK, list)));
    }

    private static TemplateView view(CommandTemplate template) {
        return new TemplateView(template.name(), template.syntax(), template.description(),
                template.arguments().stream().map(CommandTemplateResource::view).toList());
    }

    private static ArgumentView view(TemplateArgument argument) {
        boolean listed = argument.allowed() != null;
        return new ArgumentView(argument.name(), argument.type(), argument.required(), argument.allowed(),
                listed ? null : argument.min(), listed ? null : argument.max(), argument.maxItems(),
                argument.maxLength(), argument.description());
    }
}
