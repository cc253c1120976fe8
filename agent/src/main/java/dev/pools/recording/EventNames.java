package dev.pools.recording;

/**
 * The names of the recording's event types and of their fields (CONTRACT.md §3): one place for
 * the writer (the event classes) and the readers (the CLI). These names are promises to users.
 */
public final class EventNames {

    public static final String CATEGORY = "pools";

    public static final String LAYOUT = "pools.Layout";
    public static final String POOL_REPORT = "pools.PoolReport";
    public static final String USAGE = "pools.Usage";
    public static final String ALLOCATION_REFUSED = "pools.AllocationRefused";
    public static final String CALL_SITE = "pools.CallSite";
    public static final String REQUEST_SIZES = "pools.RequestSizes";
    public static final String PROCESS_MEMORY = "pools.ProcessMemory";

    // pools.Layout
    public static final String KIND = "kind";
    public static final String LAYOUT_YAML = "layout";
    public static final String ATTACHED_LATE = "attachedLate";
    public static final String SOURCE = "source";

    // pools.PoolReport
    public static final String INDEX = "index";
    public static final String PAGE_SIZE = "pageSize";
    public static final String MAX_SLICE = "maxSlice";
    public static final String PAGES_CAP = "pagesCap";
    public static final String PAGES = "pages";
    public static final String PAGES_PEAK = "pagesPeak";
    public static final String LARGEST_ALLOC = "largestAlloc";

    // pools.Usage (and per pool in pools.PoolReport)
    public static final String NUMBER_ALLOCS = "numberAllocs";
    public static final String BYTES_IN_USE = "bytesInUse";
    public static final String BYTES_PADDING = "bytesPadding";
    public static final String BYTES_RESERVED = "bytesReserved";
    public static final String RUNS = "runs";
    public static final String BYTES_IN_RUNS = "bytesInRuns";
    public static final String ALLOCS_PEAK = "allocsPeak";
    public static final String FALLBACK_ALLOCS = "fallbackAllocs";
    public static final String FALLBACK_BYTES = "fallbackBytes";
    public static final String COLLECTIONS = "collections";
    public static final String COLLECTION_TIME = "collectionTime";
    public static final String STOPPED_BY = "stoppedBy";
    public static final String FAILED_ALLOCS = "failedAllocs";

    // pools.AllocationRefused
    public static final String SIZE = "size";
    public static final String REASON = "reason";
    public static final String OUTCOME = "outcome";
    public static final String SITE = "site";
    public static final String OUTCOME_FALLBACK = "fallback";
    public static final String OUTCOME_FAILED = "failed";

    // pools.CallSite
    public static final String COUNT = "count";
    public static final String BYTES = "bytes";
    public static final String LIVE_BYTES = "liveBytes";
    public static final String PEAK_LIVE_BYTES = "peakLiveBytes";
    public static final String FALLBACKS = "fallbacks";

    // pools.RequestSizes
    public static final String BUCKET_MAX = "bucketMax";

    // pools.ProcessMemory
    public static final String RSS = "rss";
    public static final String RSS_PEAK = "rssPeak";
    public static final String RSS_ANON = "rssAnon";
    public static final String RSS_FILE = "rssFile";
    public static final String HEAP_USED = "heapUsed";
    public static final String HEAP_COMMITTED = "heapCommitted";
    public static final String METASPACE = "metaspace";
    public static final String CODE_CACHE = "codeCache";
    public static final String OTHER_NON_HEAP = "otherNonHeap";
    public static final String THREADS = "threads";
    public static final String JDK_DIRECT = "jdkDirect";
    public static final String POOLS_RESERVED = "poolsReserved";
    public static final String POOLS_IN_USE = "poolsInUse";
    public static final String NATIVE_OTHER = "nativeOther";
    public static final String DIRECT_OUTSIDE = "directOutside";
    public static final String DIRECT_OUTSIDE_AT_FALLBACKS = "directOutsideAtFallbacks";

    private EventNames() {}
}
