package dev.pools.hosts.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** What {@link PtKeep} holds, and when it lets go, as the hooks in DJL's classes call it. */
class PtKeepTest {

    @Test
    void only_buffers_let_go_while_a_collector_is_open_are_held_until_backward_returns_or_it_closes() {
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        PtKeep.collected(); // whatever another test left
        PtKeep.letGo(b);
        assertEquals(0, PtKeep.held(), "no collector: nothing held");

        PtKeep.collecting();
        PtKeep.letGo(b);
        PtKeep.letGo(null); // an array over memory libtorch made
        PtKeep.letGo(b);
        assertEquals(2, PtKeep.held(), "held while collecting");
        PtKeep.backwardDone();
        assertEquals(0, PtKeep.held(), "a backward pass returned");
        PtKeep.letGo(b);
        assertEquals(1, PtKeep.held(), "the collector is still open");

        PtKeep.collected();
        assertEquals(0, PtKeep.held(), "the collector closed");
        PtKeep.letGo(b);
        assertEquals(0, PtKeep.held(), "and nothing is held after it");
    }
}
