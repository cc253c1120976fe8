package dev.pools.agent;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.MemoryPoolUsage;
import dev.pools.api.MemoryPools;
import dev.pools.api.SlicedPoolReport;
import dev.pools.layout.InstalledLayout;
import dev.pools.memory.Usage;
import java.util.List;

/** The running agent behind the public {@link MemoryPools}. */
final class ApiBackend implements MemoryPools.Backend {

    private final PoolsRuntime runtime;

    ApiBackend(PoolsRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void install(MemoryPoolLayout layout) throws InstallMemoryPoolsException {
        runtime.install(layout, InstalledLayout.Source.API);
    }

    @Override
    public List<SlicedPoolReport> reports() {
        return runtime.allocator().reports().stream()
                .map(p -> new SlicedPoolReport(p.pageSize(), p.pages(), p.pagesPeak(), p.largestAlloc()))
                .toList();
    }

    @Override
    public MemoryPoolUsage usage() {
        Usage u = runtime.allocator().usage();
        return new MemoryPoolUsage(u.numberAllocs(), u.bytesInUse(), u.bytesPadding(), u.bytesReserved());
    }

    @Override
    public void cleanup() {
        runtime.allocator().cleanup();
    }
}
