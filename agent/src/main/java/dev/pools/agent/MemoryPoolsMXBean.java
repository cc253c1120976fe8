package dev.pools.agent;

import java.beans.ConstructorProperties;
import java.util.List;

/**
 * Live inspection (CONTRACT.md §4): {@code pools:type=MemoryPools}, visible in jconsole and JDK
 * Mission Control.
 */
public interface MemoryPoolsMXBean {

    /** The pools as a whole now. */
    UsageView getUsage();

    /** One report per pool, in layout order. */
    List<PoolView> getReports();

    /** The installed layout, normalised. */
    String getLayout();

    /**
     * Installs a layout given as YAML ({@code layout}, {@code pools}, {@code max_page_size}).
     * Refused with the reason, keeping the previous layout, when it is invalid or the pools hold
     * live allocations.
     */
    void install(String yaml);

    /** Releases buffers already found unreachable and gives every empty page back to the JDK. */
    void cleanup();

    /** {@code pools.Usage} as JMX shows it. */
    final class UsageView {
        private final long numberAllocs;
        private final long bytesInUse;
        private final long bytesPadding;
        private final long bytesReserved;
        private final long fallbackAllocs;
        private final long fallbackBytes;

        @ConstructorProperties({
            "numberAllocs",
            "bytesInUse",
            "bytesPadding",
            "bytesReserved",
            "fallbackAllocs",
            "fallbackBytes"
        })
        public UsageView(
                long numberAllocs,
                long bytesInUse,
                long bytesPadding,
                long bytesReserved,
                long fallbackAllocs,
                long fallbackBytes) {
            this.numberAllocs = numberAllocs;
            this.bytesInUse = bytesInUse;
            this.bytesPadding = bytesPadding;
            this.bytesReserved = bytesReserved;
            this.fallbackAllocs = fallbackAllocs;
            this.fallbackBytes = fallbackBytes;
        }

        public long getNumberAllocs() {
            return numberAllocs;
        }

        public long getBytesInUse() {
            return bytesInUse;
        }

        public long getBytesPadding() {
            return bytesPadding;
        }

        public long getBytesReserved() {
            return bytesReserved;
        }

        public long getFallbackAllocs() {
            return fallbackAllocs;
        }

        public long getFallbackBytes() {
            return fallbackBytes;
        }
    }

    /** {@code pools.PoolReport} as JMX shows it. */
    final class PoolView {
        private final int index;
        private final String kind;
        private final long pageSize;
        private final long maxSlice;
        private final long pagesCap;
        private final long pages;
        private final long pagesPeak;
        private final long largestAlloc;

        @ConstructorProperties({
            "index",
            "kind",
            "pageSize",
            "maxSlice",
            "pagesCap",
            "pages",
            "pagesPeak",
            "largestAlloc"
        })
        public PoolView(
                int index,
                String kind,
                long pageSize,
                long maxSlice,
                long pagesCap,
                long pages,
                long pagesPeak,
                long largestAlloc) {
            this.index = index;
            this.kind = kind;
            this.pageSize = pageSize;
            this.maxSlice = maxSlice;
            this.pagesCap = pagesCap;
            this.pages = pages;
            this.pagesPeak = pagesPeak;
            this.largestAlloc = largestAlloc;
        }

        public int getIndex() {
            return index;
        }

        public String getKind() {
            return kind;
        }

        public long getPageSize() {
            return pageSize;
        }

        public long getMaxSlice() {
            return maxSlice;
        }

        public long getPagesCap() {
            return pagesCap;
        }

        public long getPages() {
            return pages;
        }

        public long getPagesPeak() {
            return pagesPeak;
        }

        public long getLargestAlloc() {
            return largestAlloc;
        }
    }
}
