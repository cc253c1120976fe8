package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name(EventNames.ALLOCATION_REFUSED)
@Label("Allocation Refused")
@Category(EventNames.CATEGORY)
@Description("No pool could serve a request; the stack trace is the code that asked")
public final class AllocationRefusedEvent extends FileEvent {

    @Label("Size")
    @Description("Bytes requested")
    @DataAmount
    public long size;

    @Label("Reason")
    @Description("The state of every pool that takes this size")
    public String reason;

    @Label("Outcome")
    @Description("fallback: served by the JDK instead; failed: OutOfMemoryError thrown")
    public String outcome;

    @Label("Call Site")
    @Description("The instrumented method that asked (class#method)")
    public String site;

    @Override
    void writeFields(Bytes out) {
        out.varint(size);
        out.string(reason);
        out.string(outcome);
        out.string(site);
    }
}
