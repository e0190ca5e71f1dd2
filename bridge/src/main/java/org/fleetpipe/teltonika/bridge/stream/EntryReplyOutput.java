package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.payload.EntryBody;

/**
 * Reads an XREADGROUP or XAUTOCLAIM reply, RESP2 or RESP3, into {@link StreamEntry} values whose
 * fields stay the bytes Redis sent ({@link EntryBody}): no String per field, no map per entry, as
 * Lettuce's own outputs make (issue 41 item 4). An entry Redis answers without fields (nil: trimmed
 * since it was read) has an empty body; ids XAUTOCLAIM lists as deleted are left out, as Redis
 * already took them off the pending list.
 */
final class EntryReplyOutput extends CommandOutput<String, String, List<StreamEntry>> {

    /** The stream of an XAUTOCLAIM (its reply does not name it); null for XREADGROUP. */
    private final String claimed;
    /** Reused entry after entry; one per reply, so a reply cut off halfway leaves nothing to the next. */
    private final EntryBody.Builder body = new EntryBody.Builder();
    private byte[] scratch = new byte[64];
    /** How deep in the reply the next element is: Lettuce says it after each element and aggregate. */
    private int depth;
    /**
     * The depth of the stream's name (XREADGROUP) or of the cursor (XAUTOCLAIM), -1 before the first:
     * entries are one below, their id and body two, their fields three. RESP2 (a pair per stream)
     * puts an XREADGROUP's one deeper than RESP3 (a map) does.
     */
    private int base = -1;
    private String stream;
    private String cursor;
    private String id;
    private boolean fieldName = true;
    /** XAUTOCLAIM on Redis 6.2: entries claimed but deleted meanwhile, answered nil without their id. */
    private int unnamed;

    /** Reads an XREADGROUP reply. */
    static EntryReplyOutput read() {
        return new EntryReplyOutput(null);
    }

    /** Reads an XAUTOCLAIM reply on {@code stream}. */
    static EntryReplyOutput claim(String stream) {
        return new EntryReplyOutput(stream);
    }

    private EntryReplyOutput(String claimed) {
        super(StringCodec.UTF8, new ArrayList<>());
        this.claimed = claimed;
        this.stream = claimed;
    }

    /** XAUTOCLAIM's cursor: where the next page starts ({@code 0-0}: the walk is done). */
    String cursor() {
        return cursor;
    }

    /** How many claimed entries Redis answered nil in place of (6.2: deleted since read). */
    int unnamed() {
        return unnamed;
    }

    @Override
    public void multi(int count) {
        depth++;
    }

    @Override
    public void set(ByteBuffer bytes) {
        if (base < 0) {
            if (bytes == null) {
                // A nil reply: XREADGROUP found nothing.
                return;
            }
            base = depth;
        }
        if (depth == base) {
            if (claimed == null) {
                stream = text(bytes);
            } else {
                cursor = text(bytes);
            }
        } else if (depth == base + 1) {
            if (bytes == null && claimed != null) {
                unnamed++;
            }
        } else if (depth == base + 2) {
            if (id == null && bytes != null) {
                id = text(bytes);
            }
            // The second element nil: a trimmed entry, its body stays empty.
        } else if (depth == base + 3) {
            if (fieldName) {
                body.name(bytes == null ? ByteBuffer.allocate(0) : bytes);
            } else {
                body.value(bytes);
            }
            fieldName = !fieldName;
        }
    }

    @Override
    public void complete(int depth) {
        if (depth == base + 1 && id != null) {
            output.add(new StreamEntry(stream, id, body.build()));
            id = null;
            fieldName = true;
        }
        this.depth = depth;
    }

    private String text(ByteBuffer bytes) {
        int length = bytes.remaining();
        if (length > scratch.length) {
            scratch = new byte[Math.max(length, 2 * scratch.length)];
        }
        bytes.get(bytes.position(), scratch, 0, length);
        return new String(scratch, 0, length, StandardCharsets.UTF_8);
    }
}
