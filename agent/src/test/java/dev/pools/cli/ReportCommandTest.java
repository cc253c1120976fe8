package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

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
}
