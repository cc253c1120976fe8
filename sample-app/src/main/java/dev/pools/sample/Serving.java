package dev.pools.sample;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.translate.NoopTranslator;
import ai.djl.translate.TranslateException;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The sample app's network served by request threads, as an inference service runs it: one model,
 * a predictor per thread, each thread serving {@code requests} batches of 1 to 64 images made from
 * Java data. The network is not trained (seeded weights): what is measured is the serving. Seeded
 * and deterministic: the same run computes the same classes; it prints their checksum and the
 * throughput. Arguments: threads, requests per thread, and optionally warm-up requests per thread:
 * served first and left out of the throughput, which counts from when every thread has done its
 * warm-up (BENCHMARKS.md, B6).
 */
public final class Serving {

    private static final int[] BATCH_SIZES = {1, 8, 64, 3, 32, 16, 2, 48};
    private static final int IMAGES = 2048;

    /**
     * For tests: {@code -Dsample.awaitAgent=true} makes the app wait (at most 60 s) until the agent's
     * MBean is registered, which the agent does once its recording has started, so that a short run
     * does not end while the recording starts (then JFR writes nothing; README, How a JVM ends).
     */
    static final String AWAIT_AGENT_PROPERTY = "sample.awaitAgent";

    private Serving() {}

    private static void awaitAgent() throws Exception {
        ObjectName pools = new ObjectName("pools:type=MemoryPools");
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (int i = 0; i < 6000 && !server.isRegistered(pools); i++) {
            Thread.sleep(10);
        }
    }

    public static void main(String[] args) throws Exception {
        if (Boolean.getBoolean(AWAIT_AGENT_PROPERTY)) {
            awaitAgent();
        }
        int threads = Integer.parseInt(args[0]);
        int requests = Integer.parseInt(args[1]);
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        Engine engine = Engine.getEngine("PyTorch");
        engine.setRandomSeed(42);
        Digits data = Digits.generate(IMAGES, 3);
        AtomicLong images = new AtomicLong();
        // The process's CPU time over the same window as the throughput: start-up is left out of both.
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[] start = new long[2];
        CyclicBarrier warm = new CyclicBarrier(threads, () -> {
            start[0] = System.nanoTime();
            start[1] = os.getProcessCpuTime();
        });
        long sum = 0;
        try (Model model = Model.newInstance("digits", "PyTorch")) {
            model.setBlock(SampleApp.network());
            model.getBlock().initialize(model.getNDManager(), DataType.FLOAT32, new Shape(1, Digits.PIXELS));
            List<Callable<Long>> requestThreads = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = 1000 + t;
                requestThreads.add(() -> serve(model, data, new Random(seed), warmup, requests, warm, images));
            }
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            try {
                // In thread order, so that the checksum does not depend on which thread ends first.
                for (Future<Long> checksum : executor.invokeAll(requestThreads)) {
                    sum = sum * 31 + checksum.get();
                }
            } finally {
                executor.shutdown();
            }
        }
        double seconds = (System.nanoTime() - start[0]) / 1e9;
        double cpu = (os.getProcessCpuTime() - start[1]) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "served %d images in %.2f s (%.0f per second), checksum %016x%n",
                images.get(),
                seconds,
                images.get() / seconds,
                sum);
        System.out.printf(Locale.ROOT, "process CPU in that time: %.2f s%n", cpu);
    }

    /** One request thread: its own predictor; each request a batch in a manager of its own, closed after. */
    private static long serve(
            Model model, Digits data, Random random, int warmup, int requests, CyclicBarrier warm, AtomicLong images) {
        long checksum = 0;
        try (Predictor<NDList, NDList> predictor = model.newPredictor(new NoopTranslator())) {
            for (int r = 0; r < warmup + requests; r++) {
                if (r == warmup) {
                    await(warm);
                }
                int size = BATCH_SIZES[random.nextInt(BATCH_SIZES.length)];
                int from = random.nextInt(IMAGES - size);
                try (NDManager request = model.getNDManager().newSubManager()) {
                    NDArray batch = request.create(data.images(from, from + size), new Shape(size, Digits.PIXELS));
                    NDArray logits = predictor.predict(new NDList(batch)).singletonOrThrow();
                    long[] classes = logits.argMax(1).toLongArray();
                    for (long c : classes) {
                        checksum = checksum * 31 + c;
                    }
                }
                if (r >= warmup) {
                    images.addAndGet(size);
                }
            }
        } catch (TranslateException e) {
            throw new IllegalStateException(e);
        }
        return checksum;
    }

    /** Bounded: a thread that failed in its warm-up must not leave the others waiting. */
    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("the warm-up did not end for every thread", e);
        }
    }
}
