package dev.pools.memory;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The buffers the JDK served instead of the pools (fallbacks), while they live: their bytes, the most
 * of them live at once, and each one's bytes at its call site. A fallback buffer is the JDK's own
 * and goes back when the collector finds it; a phantom reference per buffer says when. Sampling the
 * JDK's direct memory misses what fallbacks held between two samples: a capped run's fallbacks of 8
 * MiB, held and dropped between two batches, gave a direct memory limit of 2 MiB, under which the
 * same run was refused 7 of its 9 requests.
 *
 * <p>What the collector found is counted off lazily, before each new fallback is counted and when
 * the figures are read, so the peak is taken after every buffer found so far is off. A buffer freed
 * by hand ({@code Unsafe.invokeCleaner}) counts as live until the collector finds it: the figures
 * may be above the truth, never below.
 */
final class FallbackBuffers {

    /** One fallback buffer: its bytes and call site; enqueued once the collector finds the buffer. */
    private static final class Tracked extends PhantomReference<ByteBuffer> {
        final int size;
        final int site;

        Tracked(ByteBuffer buffer, ReferenceQueue<ByteBuffer> queue, int size, int site) {
            super(buffer, queue);
            this.size = size;
            this.site = site;
        }
    }

    private final CallSites sites;
    private final ReferenceQueue<ByteBuffer> queue = new ReferenceQueue<>();
    /** Holds every reference while its buffer lives: a phantom reference nobody holds is never enqueued. */
    private final Set<Tracked> live = ConcurrentHashMap.newKeySet();

    private final AtomicLong liveBytes = new AtomicLong();
    private final AtomicLong peakBytes = new AtomicLong();

    FallbackBuffers(CallSites sites) {
        this.sites = sites;
    }

    /** Counts {@code buffer}, of {@code size} bytes asked for at {@code site}, as live until collected. */
    void track(ByteBuffer buffer, int size, int site) {
        countOffCollected();
        long now = liveBytes.addAndGet(size);
        long peak;
        while (now > (peak = peakBytes.get()) && !peakBytes.compareAndSet(peak, now)) {
            Thread.onSpinWait();
        }
        sites.fallbackLive(site, size);
        try {
            live.add(new Tracked(buffer, queue, size, site));
        } catch (OutOfMemoryError | RuntimeException e) {
            // A full heap: the buffer stays counted as live for good, above the truth, never below; and
            // the host gets its buffer.
        }
        Reference.reachabilityFence(buffer);
    }

    /** Bytes of fallback buffers live now, as far as the collector has found. */
    long liveBytes() {
        countOffCollected();
        return liveBytes.get();
    }

    /** The most bytes of fallback buffers live at once since start. */
    long peakBytes() {
        countOffCollected();
        return peakBytes.get();
    }

    private void countOffCollected() {
        Reference<? extends ByteBuffer> r;
        while ((r = queue.poll()) != null) {
            Tracked t = (Tracked) r;
            if (live.remove(t)) {
                liveBytes.addAndGet(-t.size);
                sites.fallbackCollected(t.site, t.size);
            }
        }
    }
}
