package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import dev.pools.api.MemoryPools;
import dev.pools.api.SlicedPoolReport;
import dev.pools.memory.PlatformBeans;
import dev.pools.recording.Recorder;
import it.host.Tensors;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A workload for the recording tests. {@code normal} and {@code exit}: allocate, release some, print
 * what the API reports, then return from main or call {@code System.exit(3)}. {@code threads}: four
 * threads allocate and release without end, each holding at most eight buffers; once steady the
 * program says so, and the test stops it with SIGTERM. {@code refuse}: one request no pool takes;
 * {@code refuse-now} the same without waiting for the recording to start. {@code refuse-many}: two
 * threads make requests no pool takes, numbered by their size, until the recording's file has been set
 * aside twice ({@code run-<pid>.jfr.1} replaced), then print how many they made. {@code refuse-small N}:
 * N requests of 100 to 149 B, for a layout of smaller slices. {@code refuse-past BYTES FILE}: requests
 * no pool takes, one a millisecond, until the recording's FILE has passed BYTES and grown twice since.
 */
public final class RecordedWorkload {

    /** Reachable until the JVM is gone, so that the recording's final state holds them whatever the collector does at exit. */
    static final List<ByteBuffer> HELD = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (!args[0].endsWith("-now")) {
            awaitRecording();
        }
        switch (args[0]) {
            case "normal", "exit" -> {
                List<ByteBuffer> held = HELD;
                for (int i = 0; i < 200; i++) {
                    held.add(Tensors.allocate(1000 + i * 517));
                }
                for (int i = 0; i < held.size(); i += 3) {
                    PoolsRuntime.current().allocator().release(held.get(i));
                }
                printApi();
                // The recording reads the JVM's beans through the package the agent exports to itself.
                System.out.println("management exported "
                        + MemoryMXBean.class
                                .getModule()
                                .isExported(PlatformBeans.EXPORTED, RecordedWorkload.class.getModule()));
                if (args[0].equals("exit")) {
                    System.exit(3);
                }
                Thread.sleep(10);
                System.out.println("held " + held.size());
            }
            case "threads" -> threads();
            case "refuse-many" -> refuseMany();
            case "refuse-small" -> {
                // Requests of 100 to 149 B, which a layout of 64 B slices does not take: each a refusal,
                // served by the JDK or, under on_exhausted: fail, an OutOfMemoryError caught here.
                int count = Integer.parseInt(args[1]);
                int failed = 0;
                for (int i = 0; i < count; i++) {
                    try {
                        Tensors.allocate(100 + i % 50);
                    } catch (OutOfMemoryError e) {
                        failed++;
                    }
                }
                System.out.println("refused " + count + ", failed " + failed);
            }
            case "refuse-past" -> {
                // Until the file has passed the size and grown by two batches since: the recording has
                // then met report.max_size, whatever the machine's speed. At most a minute.
                Path file = Path.of(args[2]);
                long size = Long.parseLong(args[1]);
                long deadline = System.nanoTime() + 60_000_000_000L;
                long seen = -1;
                int grown = 0;
                int n = 0;
                while (grown < 2 && System.nanoTime() - deadline < 0) {
                    Tensors.allocate((2 << 20) + n++);
                    Thread.sleep(1);
                    long now = Files.exists(file) ? Files.size(file) : 0;
                    if (now >= size && seen >= size && now > seen) {
                        grown++;
                    }
                    if (now >= size && now != seen) {
                        seen = now;
                    }
                }
                System.out.println("refused " + n);
            }
            case "refuse", "refuse-now" -> {
                ByteBuffer big = Tensors.allocate(3 << 20);
                System.out.println("served " + big.capacity());
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void refuseMany() throws Exception {
        Path previous = Path.of("run-" + ProcessHandle.current().pid() + ".jfr.1");
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] threads = new Thread[2];
        int[] made = new int[threads.length];
        for (int t = 0; t < threads.length; t++) {
            int own = t;
            threads[t] = new Thread(() -> {
                // Numbered by its size: 2 MiB and up, more than any pool takes; thread t draws
                // t, t + 2, t + 4, ..., so that each thread's refusals are told apart.
                for (int i = 0; !stop.get(); i++) {
                    Tensors.allocate((2 << 20) + own + 2 * i);
                    made[own] = i + 1;
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            threads[t].start();
        }
        Object seen = null;
        int rotations = 0;
        for (int i = 0; i < 60_000 && rotations < 2; i++) {
            Thread.sleep(1);
            if (Files.exists(previous)) {
                Object key = Files.readAttributes(previous, BasicFileAttributes.class)
                        .fileKey();
                if (!key.equals(seen)) {
                    seen = key;
                    rotations++;
                }
            }
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("rotations " + rotations);
        for (int t = 0; t < threads.length; t++) {
            System.out.println("refused-" + t + " " + made[t]);
        }
    }

    /** A real workload runs for longer than the recording takes to start (one report.period); this one waits. */
    static void awaitRecording() throws InterruptedException {
        for (int i = 0; i < 1000 && !Recorder.started(); i++) {
            Thread.sleep(10);
        }
    }

    static void printApi() {
        for (SlicedPoolReport r : MemoryPools.reports()) {
            System.out.println(
                    "api-report " + r.pageSize() + " " + r.pages() + " " + r.pagesPeak() + " " + r.largestAlloc());
        }
        var u = MemoryPools.usage();
        System.out.println("api-usage " + u.numberAllocs() + " " + u.bytesInUse() + " " + u.bytesPadding() + " "
                + u.bytesReserved());
        System.out.flush();
    }

    private static void threads() throws InterruptedException {
        Thread[] workers = new Thread[4];
        // Steady once every worker holds its ring of 8 (32 x 64 KiB: two pages), however slow the machine.
        CountDownLatch full = new CountDownLatch(workers.length);
        for (int t = 0; t < workers.length; t++) {
            workers[t] = new Thread(
                    () -> {
                        ArrayDeque<ByteBuffer> ring = new ArrayDeque<>();
                        boolean counted = false;
                        while (true) {
                            if (ring.size() == 8) {
                                if (!counted) {
                                    full.countDown();
                                    counted = true;
                                }
                                PoolsRuntime.current().allocator().release(ring.removeFirst());
                            }
                            ByteBuffer b = Tensors.allocate(64 * 1024);
                            b.putLong(0, 42);
                            ring.addLast(b);
                        }
                    },
                    "allocator-" + t);
            workers[t].setDaemon(true);
            workers[t].start();
        }
        full.await();
        printApi();
        System.out.println("steady");
        System.out.flush();
        // Until the test kills this JVM, however slow the machine: it ended itself after a minute before,
        // which a test that runs 6 other JVMs meanwhile could outlast (a review: 33 s of it on a loaded
        // machine). Ten minutes, should the test's own JVM die first (a test's JVMs end after 300 s).
        Thread.sleep(600_000);
    }
}
