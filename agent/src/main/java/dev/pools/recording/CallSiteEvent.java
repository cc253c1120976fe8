package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

@Name(EventNames.CALL_SITE)
@Label("Allocation Call Site")
@Category(EventNames.CATEGORY)
@Description("What one instrumented call site asked for since the JVM started; written at the end of every chunk")
@StackTrace(false)
public final class CallSiteEvent extends FileEvent {

    @Label("Site")
    @Description("class#method")
    public String site;

    @Label("Count")
    @Description("Requests made")
    public long count;

    @Label("Bytes")
    @Description("Bytes requested in all")
    @DataAmount
    public long bytes;

    @Label("Live Bytes")
    @Description("Bytes of this site's pool allocations still live")
    @DataAmount
    public long liveBytes;

    @Label("Peak Live Bytes")
    @Description("The most bytes of this site's pool allocations live at once")
    @DataAmount
    public long peakLiveBytes;

    @Label("Fallbacks")
    @Description("Requests that no pool could serve")
    public long fallbacks;

    @Override
    void writeFields(Bytes out) {
        out.string(site);
        out.varint(count);
        out.varint(bytes);
        out.varint(liveBytes);
        out.varint(peakLiveBytes);
        out.varint(fallbacks);
    }
}
