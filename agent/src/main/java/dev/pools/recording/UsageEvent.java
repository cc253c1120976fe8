package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

@Name(EventNames.USAGE)
@Label("Pool Usage")
@Category(EventNames.CATEGORY)
@Description("The pools as a whole, with every batch of pool reports")
@StackTrace(false)
public final class UsageEvent extends FileEvent {

    @Label("Allocations")
    @Description("Live allocations in the pools")
    public long numberAllocs;

    @Label("Bytes In Use")
    @Description("Bytes the live allocations asked for")
    @DataAmount
    public long bytesInUse;

    @Label("Bytes Padding")
    @Description("Bytes added to round the live allocations up to 64 bytes")
    @DataAmount
    public long bytesPadding;

    @Label("Bytes Reserved")
    @Description("Bytes of pages held, used or not")
    @DataAmount
    public long bytesReserved;

    @Label("Fallback Allocations")
    @Description("Requests no pool could serve, handed to the JDK since start")
    public long fallbackAllocs;

    @Label("Fallback Bytes")
    @Description("Bytes of those requests")
    @DataAmount
    public long fallbackBytes;

    @Label("Failed Allocations")
    @Description("Requests refused to the host (an OutOfMemoryError) since start; with the fallbacks, every"
            + " request the pools did not serve")
    public long failedAllocs;

    @Label("Collections")
    @Description("Collections the pools made for requests a full pool could not serve, since start")
    public long collections;

    @Label("Collection Time")
    @Description("Time the requesting threads spent in those collections, since start")
    @Timespan(Timespan.NANOSECONDS)
    public long collectionTime;

    @Label("Stopped By")
    @Description("The error that stopped the pools, after which the JDK served every request (README,"
            + " Troubleshooting); null while they run")
    public String stoppedBy;

    @Override
    void writeFields(Bytes out) {
        out.varint(numberAllocs);
        out.varint(bytesInUse);
        out.varint(bytesPadding);
        out.varint(bytesReserved);
        out.varint(fallbackAllocs);
        out.varint(fallbackBytes);
        out.varint(failedAllocs);
        out.varint(collections);
        out.varint(collectionTime);
        out.string(stoppedBy);
    }
}
