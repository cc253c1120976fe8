package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

@Name(EventNames.POOL_REPORT)
@Label("Pool Report")
@Category(EventNames.CATEGORY)
@Description("One dynamic pool's state; the last one per index in a recording is the final state")
@StackTrace(false)
public final class PoolReportEvent extends FileEvent {

    @Label("Index")
    @Description("Position of the pool in the layout, from 0")
    public int index;

    @Label("Kind")
    @Description("sliced, exclusive or direct")
    public String kind;

    @Label("Page Size")
    @Description("Bytes per page; 0 for a direct pool; the largest allocation for an exclusive pool")
    @DataAmount
    public long pageSize;

    @Label("Max Slice")
    @Description("The largest request the pool takes by its size class")
    @DataAmount
    public long maxSlice;

    @Label("Pages Cap")
    @Description("The most pages the pool may hold; -1 for no cap")
    public long pagesCap;

    @Label("Pages")
    @Description("Pages held now; for a direct pool, live allocations")
    public long pages;

    @Label("Pages Peak")
    @Description("The most pages held at once since the layout was installed")
    public long pagesPeak;

    @Label("Largest Allocation")
    @Description("The largest request served since the layout was installed")
    @DataAmount
    public long largestAlloc;

    @Label("Allocations")
    @Description("Live allocations in this pool")
    public long numberAllocs;

    @Label("Bytes In Use")
    @Description("Bytes this pool's live allocations asked for")
    @DataAmount
    public long bytesInUse;

    @Label("Bytes Reserved")
    @Description("Bytes this pool holds, used or not")
    @DataAmount
    public long bytesReserved;

    @Label("Runs")
    @Description("Runs a sliced pool holds: used slices cut into 64 equal slots for small requests of one size")
    public long runs;

    @Label("Bytes In Runs")
    @Description("Bytes of those runs, free slots included: room only requests of each run's slot size take")
    @DataAmount
    public long bytesInRuns;

    @Label("Allocations Peak")
    @Description("The most live allocations at once since the layout was installed, for exclusive and direct"
            + " pools; -1 for sliced pools")
    public long allocsPeak;

    @Override
    void writeFields(Bytes out) {
        out.varint(index);
        out.string(kind);
        out.varint(pageSize);
        out.varint(maxSlice);
        out.varint(pagesCap);
        out.varint(pages);
        out.varint(pagesPeak);
        out.varint(largestAlloc);
        out.varint(numberAllocs);
        out.varint(bytesInUse);
        out.varint(bytesReserved);
        out.varint(runs);
        out.varint(bytesInRuns);
        out.varint(allocsPeak);
    }
}
