package dev.pools.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Refusals kept from the agent's start until the recording's file exists. */
class EarlyRefusalsTest {

    @TempDir
    Path dir;

    private static List<RecordedEvent> refusals(Path file) throws Exception {
        List<RecordedEvent> out = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals("pools.AllocationRefused")) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparing(RecordedEvent::getStartTime));
        return out;
    }

    /**
     * A refusal kept before the file existed is written with its own time (within the file, which
     * begins at the agent's start), its thread and the stack of its caller; one after the switch goes
     * to the live listener.
     */
    @Test
    void a_kept_refusal_has_its_time_thread_and_stack_and_a_later_one_goes_live() throws Exception {
        CallSites sites = new CallSites();
        int site = sites.register("host.Tensors#allocate");
        long startTicks = System.nanoTime();
        Instant start = Instant.now();
        EarlyRefusals early = new EarlyRefusals(sites);
        Thread asker = new Thread(() -> early.refused(4096, site, "no pool takes 4 KiB", true), "asker");
        long before = System.nanoTime();
        asker.start();
        asker.join();
        long after = System.nanoTime();
        Thread.sleep(20); // the file is created later than the refusal
        Path file = dir.resolve("r.jfr");
        AtomicInteger live = new AtomicInteger();
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES, startTicks, start.toEpochMilli())) {
            early.forwardTo(out, new Counting(live));
            early.refused(8192, site, "later", false);
            assertEquals(1, live.get(), "after the switch, the live listener");
        }
        List<RecordedEvent> r = refusals(file);
        assertEquals(1, r.size(), "the kept one only");
        RecordedEvent e = r.get(0);
        assertEquals(4096, e.getLong("size"));
        assertEquals("fallback", e.getString("outcome"));
        assertEquals("host.Tensors#allocate", e.getString("site"));
        assertEquals("asker", e.getThread().getJavaName());
        List<String> frames = e.getStackTrace().getFrames().stream()
                .map(RecordedFrame::getMethod)
                .map(m -> m.getType().getName() + "#" + m.getName())
                .toList();
        // The asking thread's own stack, below the agent's frames (this test's package is the agent's).
        assertEquals(List.of("java.lang.Thread#run"), frames);
        // Its own time, not the file's creation: the file's start plus the time from there to the refusal.
        Instant fileStart = Instant.ofEpochMilli(start.toEpochMilli());
        Instant at = e.getStartTime();
        assertTrue(!at.isBefore(fileStart.plusNanos(before - startTicks)), at + " vs " + fileStart);
        assertTrue(!at.isAfter(fileStart.plusNanos(after - startTicks)), at + " vs " + fileStart);
    }

    /**
     * Four threads refuse while the recording starts: every refusal ends up once in the file or once
     * at the live listener, none lost, none twice. The switch comes once some are kept, while the
     * threads go on (each refuses 50 times, 200 in all: below what is kept, so none is only counted).
     */
    @Test
    void refusals_racing_the_switch_are_each_recorded_once() throws Exception {
        CallSites sites = new CallSites();
        int site = sites.register("host.Tensors#allocate");
        int perThread = 50;
        for (int round = 0; round < 30; round++) {
            EarlyRefusals early = new EarlyRefusals(sites);
            Path file = dir.resolve("race-" + round + ".jfr");
            AtomicInteger live = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perThread; i++) {
                            early.refused(100, site, "r", true);
                        }
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    } finally {
                        done.incrementAndGet();
                    }
                });
                th.start();
                threads.add(th);
            }
            try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
                go.countDown();
                while (early.kept() < 20 && done.get() < threads.size()) {
                    Thread.onSpinWait();
                }
                early.forwardTo(out, new Counting(live));
                for (Thread th : threads) {
                    th.join();
                }
            }
            assertEquals(4 * perThread, refusals(file).size() + live.get(), "round " + round);
        }
    }

    /** Past what is kept, refusals are only counted (in the usage's fallbacks, as every refusal). */
    @Test
    void at_most_the_kept_number_are_written() throws Exception {
        CallSites sites = new CallSites();
        int site = sites.register("host.Tensors#allocate");
        EarlyRefusals early = new EarlyRefusals(sites);
        for (int i = 0; i < EarlyRefusals.KEPT + 10; i++) {
            early.refused(100, site, "r", true);
        }
        assertEquals(EarlyRefusals.KEPT, early.kept());
        Path file = dir.resolve("many.jfr");
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            early.forwardTo(out, AllocationListener.NONE);
        }
        assertEquals(EarlyRefusals.KEPT, refusals(file).size());
    }

    private record Counting(AtomicInteger count) implements AllocationListener {
        @Override
        public void refused(int size, int site, String reason, boolean fellBack) {
            count.incrementAndGet();
        }
    }
}
