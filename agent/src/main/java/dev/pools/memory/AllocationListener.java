package dev.pools.memory;

/** What the allocator tells the recording. Called on the allocating thread; must not throw. */
public interface AllocationListener {

    /** No pool could serve a request of {@code size} bytes; {@code fellBack} false means it failed. */
    void refused(int size, int site, String reason, boolean fellBack);

    AllocationListener NONE = new AllocationListener() {
        @Override
        public void refused(int size, int site, String reason, boolean fellBack) {}
    };
}
