package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The whole process's memory at one instant, split into what each part of the JVM accounts for;
 * one event, so that the rest (native memory nobody accounts for) is a difference of values taken
 * together. Sizes the system could not give are -1.
 */
@Name(EventNames.PROCESS_MEMORY)
@Label("Process Memory")
@Category(EventNames.CATEGORY)
@Description("The process's resident memory and what the JVM and the pools account for of it")
@StackTrace(false)
public final class ProcessMemoryEvent extends FileEvent {

    @Label("Resident Set Size")
    @Description("Memory of the process in RAM now (VmRSS)")
    @DataAmount
    public long rss;

    @Label("Peak Resident Set Size")
    @Description(
            "The most the process has held in RAM since it started, kept by the kernel (VmHWM): no peak is missed between samples")
    @DataAmount
    public long rssPeak;

    @Label("Anonymous")
    @Description("Resident anonymous memory: heaps, stacks, malloc, direct buffers (RssAnon)")
    @DataAmount
    public long rssAnon;

    @Label("File-backed")
    @Description("Resident file-backed and shared memory: mapped jars, native libraries (RssFile + RssShmem)")
    @DataAmount
    public long rssFile;

    @Label("Java Heap Used")
    @DataAmount
    public long heapUsed;

    @Label("Java Heap Committed")
    @DataAmount
    public long heapCommitted;

    @Label("Metaspace")
    @Description("Committed metaspace, class space included")
    @DataAmount
    public long metaspace;

    @Label("Code Cache")
    @Description("Committed code heaps")
    @DataAmount
    public long codeCache;

    @Label("Other Non-heap")
    @Description("The JVM's other committed non-heap memory")
    @DataAmount
    public long otherNonHeap;

    @Label("Threads")
    @Description("Live Java threads")
    public long threads;

    @Label("JDK Direct Buffers")
    @Description("Memory of the JDK's direct buffers, the pools' pages included (BufferPoolMXBean direct)")
    @DataAmount
    public long jdkDirect;

    @Label("Pools Reserved")
    @DataAmount
    public long poolsReserved;

    @Label("Pools In Use")
    @DataAmount
    public long poolsInUse;

    @Label("Native Other")
    @Description(
            "The rest of the resident set: native memory outside the JVM's accounting (libtorch, ONNX Runtime arenas, tokenizers, malloc, thread stacks), that is RSS minus heap, non-heap and direct buffers; 0 when that is negative")
    @DataAmount
    public long nativeOther;

    @Label("Direct Outside the Pools")
    @Description(
            "The JDK's direct memory outside the pools' pages (buffers not intercepted, fallbacks), read with the pages' share at one instant; -1 when unknown")
    @DataAmount
    public long directOutside;

    @Label("Direct Outside the Pools at Fallbacks")
    @Description(
            "The most of the JDK's direct memory outside the pools' pages right after a request the JDK served instead of the pools, since the JVM started: no peak the fallbacks make is missed between samples; -1 before any")
    @DataAmount
    public long directOutsideAtFallbacks;

    @Override
    void writeFields(Bytes out) {
        out.varint(rss);
        out.varint(rssPeak);
        out.varint(rssAnon);
        out.varint(rssFile);
        out.varint(heapUsed);
        out.varint(heapCommitted);
        out.varint(metaspace);
        out.varint(codeCache);
        out.varint(otherNonHeap);
        out.varint(threads);
        out.varint(jdkDirect);
        out.varint(poolsReserved);
        out.varint(poolsInUse);
        out.varint(nativeOther);
        out.varint(directOutside);
        out.varint(directOutsideAtFallbacks);
    }
}
