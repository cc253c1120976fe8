package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.PoolAllocator;
import dev.pools.recording.RecordingFixture;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {

    /**
     * The line is the same whatever the run's release mode: under {@code release: close} too the
     * pools collect for buffers left to the collector, so the line must not name {@code release: gc}.
     */
    @Test
    void the_collections_line_names_no_release_mode() {
        StringBuilder b = new StringBuilder();
        ReportCommand.appendCollections(b, 2, 142_600_000L, " in pool 1");
        assertEquals(
                "collections:       2 made by the pools for a full pool, 142 ms waited in pool 1"
                        + " (buffers left to the collector, under a cap)\n",
                b.toString());
    }

    @Test
    void no_collection_no_line() {
        StringBuilder b = new StringBuilder();
        ReportCommand.appendCollections(b, 0, 0, "");
        assertEquals("", b.toString());
    }

    @TempDir
    Path dir;

    /** The runs a pool held at the end are said, per pool, with their bytes; a pool without runs says nothing. */
    @Test
    void the_runs_each_pool_held_at_the_end_are_said_with_their_bytes() throws Exception {
        String yaml = "layout: sliced\npools:\n  - page_size: 64 KiB\n  - page_size: 1 MiB\n";
        PoolsConfig config = LayoutFile.parse("r.yaml", yaml, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            held.add(pools.allocate(64, 0)); // a full run of 64 slots, and a second one
        }
        held.add(pools.allocate(100, 0)); // 128 B slots: a run of their own
        held.add(pools.allocate(100 << 10, 0)); // the second pool, whose 1 MiB pages have runs too: none used
        Path file = dir.resolve("r.jfr");
        RecordingFixture.write(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE));
        RecordingSummary s = RecordingSummary.read(file, false);
        StringBuilder b = new StringBuilder();
        ReportCommand.appendRuns(b, s);
        assertEquals(
                "runs at the end:   pool 0: 3 runs of equal slots (16 KiB of its 64 KiB): free slots only for requests"
                        + " of their size\n",
                b.toString());
        assertTrue(ReportCommand.text(s, 5).contains(b), "in the report");
        held.clear();
    }
}
