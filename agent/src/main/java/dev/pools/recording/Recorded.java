package dev.pools.recording;

import dev.pools.layout.InstalledLayout;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.PoolAllocator;

/** What the recording needs of the running agent: the agent implements it and hands itself to {@link Recorder#start}. */
public interface Recorded {

    PoolsConfig config();

    PoolAllocator allocator();

    /** From now on, refusals go to {@code listener}. */
    void setRefusalListener(AllocationListener listener);

    /** The refusals kept from the agent's start until the recording's; null when none are kept. */
    EarlyRefusals earlyRefusals();

    /** When the agent started, by {@link System#nanoTime}: the recording's time begins there. */
    long startTicks();

    /** The wall clock, in milliseconds since the epoch, at {@link #startTicks}. */
    long startMillis();

    /** The layout installed now. */
    InstalledLayout installed();

    /** Adds a listener and tells it the layout installed now. */
    void addInstallListener(InstalledLayout.Listener listener);

    /** Tells {@code listener} the layout installed now, under the lock installs hold; does not add it. */
    void tellInstalled(InstalledLayout.Listener listener);
}
