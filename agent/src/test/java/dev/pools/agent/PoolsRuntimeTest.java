package dev.pools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.SlicedPool;
import dev.pools.layout.InstalledLayout;
import dev.pools.layout.PoolsConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/** The runtime's installs, as its listeners (the recording's) are told of them. */
class PoolsRuntimeTest {

    /**
     * The recording adds its install listener on its own thread, while the application may install a
     * layout. The listener is told each layout once, the one in force last. Before, the listener was
     * added outside the install's lock: an install between the add and the listener's first call told
     * it the new layout twice (in the first round, when checked), or could tell it the old one after
     * the new. Nothing here can fail a correct runtime; on a busy machine fewer rounds race.
     */
    @Test
    void a_listener_added_during_an_install_is_told_each_layout_once_and_the_last_one_last() throws Exception {
        PoolsConfig config = PoolsConfig.defaults().withReport(new PoolsConfig.Report(null, Duration.ZERO, null));
        MemoryPoolLayout installed = MemoryPoolLayout.sliced(SlicedPool.of(1 << 20));
        for (int round = 0; round < 500; round++) {
            PoolsRuntime runtime = new PoolsRuntime(config, false, () -> 64L << 20);
            List<String> told = Collections.synchronizedList(new ArrayList<>());
            CyclicBarrier go = new CyclicBarrier(2);
            Thread app = new Thread(new Install(runtime, installed, go), "app-" + round);
            app.start();
            go.await();
            runtime.addInstallListener(l -> told.add(l.yaml()));
            app.join();
            List<String> seen = new ArrayList<>(told);
            for (int i = 1; i < seen.size(); i++) {
                assertNotEquals(seen.get(i - 1), seen.get(i), "round " + round + ": one layout told twice: " + seen);
            }
            assertEquals(
                    runtime.installed().yaml(),
                    seen.get(seen.size() - 1),
                    "round " + round + ": the layout in force is the last one told");
        }
    }

    /** The application's install, once both threads are at the barrier. */
    private record Install(PoolsRuntime runtime, MemoryPoolLayout layout, CyclicBarrier go) implements Runnable {
        @Override
        public void run() {
            try {
                go.await();
                runtime.install(layout, InstalledLayout.Source.API);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
