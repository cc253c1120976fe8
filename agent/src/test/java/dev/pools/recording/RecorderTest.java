package dev.pools.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.layout.InstalledLayout;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The events of a recording carry what the pools hold, under the names the contract gives them. */
class RecorderTest {

    @TempDir
    Path dir;

    @Test
    void the_final_events_carry_each_pools_state_the_request_sizes_and_the_call_sites() throws Exception {
        CallSites sites = new CallSites();
        int site = sites.register("it.host.Tensors#allocate");
        PoolAllocator pools = new PoolAllocator(
                List.of(
                        new PoolSpec.Sliced(1 << 20, 64 << 10, PoolSpec.UNCAPPED),
                        new PoolSpec.Sliced(16 << 20, 16 << 20, 2)),
                PoolAllocator.Options.DEFAULT,
                AllocationListener.NONE,
                sites);
        List<ByteBuffer> held = new ArrayList<>();
        held.add(pools.allocate(1000, site));
        held.add(pools.allocate(3000, site));
        held.add(pools.allocate(5 << 20, site));
        Path file = dir.resolve("r.jfr");
        RecordingFixture.write(
                file, pools, new InstalledLayout("sliced", "layout: sliced\n", InstalledLayout.Source.FILE));

        Map<String, List<RecordedEvent>> events = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            events.computeIfAbsent(e.getEventType().getName(), k -> new ArrayList<>())
                    .add(e);
        }
        List<RecordedEvent> reports = events.get(EventNames.POOL_REPORT);
        assertEquals(2, reports.size());
        RecordedEvent small = reports.get(0).getInt(EventNames.INDEX) == 0 ? reports.get(0) : reports.get(1);
        RecordedEvent large = small == reports.get(0) ? reports.get(1) : reports.get(0);
        assertEquals(2, small.getLong(EventNames.NUMBER_ALLOCS));
        assertEquals(4000, small.getLong(EventNames.BYTES_IN_USE));
        assertEquals(1, small.getLong(EventNames.PAGES));
        assertEquals(-1, small.getLong(EventNames.PAGES_CAP));
        assertEquals(2, large.getLong(EventNames.PAGES_CAP));
        assertEquals(5 << 20, large.getLong(EventNames.LARGEST_ALLOC));

        RecordedEvent usage = events.get(EventNames.USAGE).get(0);
        assertEquals(3, usage.getLong(EventNames.NUMBER_ALLOCS));
        assertEquals(4000 + (5 << 20), usage.getLong(EventNames.BYTES_IN_USE));

        Map<Long, Long> buckets = new TreeMap<>();
        for (RecordedEvent e : events.get(EventNames.REQUEST_SIZES)) {
            buckets.merge(e.getLong(EventNames.BUCKET_MAX), e.getLong(EventNames.COUNT), Long::sum);
        }
        assertEquals(
                Map.of(1024L, 1L, 4096L, 1L, (long) (8 << 20), 1L),
                buckets,
                "1000 B, 3000 B and 5 MiB, by log2 bucket");

        RecordedEvent callSite = events.get(EventNames.CALL_SITE).get(0);
        assertEquals("it.host.Tensors#allocate", callSite.getString(EventNames.SITE));
        assertEquals(3, callSite.getLong(EventNames.COUNT));
        assertEquals(4000 + (5 << 20), callSite.getLong(EventNames.PEAK_LIVE_BYTES));
        held.clear();
    }
}
