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

    /** The layout installed now. */
    InstalledLayout installed();

    /** Adds a listener and tells it the layout installed now. */
    void addInstallListener(InstalledLayout.Listener listener);
}
