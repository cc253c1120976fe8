package dev.pools.hosts.it.apps;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Four threads, each with its own NDManager, make arrays from Java data and check every result
 * against the same arithmetic done in Java. Prints the number of wrong results and the usage at the end.
 */
public final class DjlThreads {

    public static void main(String[] args) throws Exception {
        int threads = 4;
        int rounds = Integer.parseInt(args.length > 0 ? args[0] : "150");
        AtomicInteger wrong = new AtomicInteger();
        AtomicInteger checked = new AtomicInteger();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int seed = t;
            workers[t] = new Thread(
                    () -> {
                        Random random = new Random(seed);
                        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
                            for (int round = 0; round < rounds; round++) {
                                int n = 1 + random.nextInt(4096);
                                float[] x = new float[n];
                                float[] y = new float[n];
                                for (int i = 0; i < n; i++) {
                                    x[i] = random.nextInt(100);
                                    y[i] = random.nextInt(100);
                                }
                                try (NDManager step = manager.newSubManager()) {
                                    NDArray a = step.create(x);
                                    NDArray b = step.create(y);
                                    float dot = a.dot(b).getFloat();
                                    float[] sum = a.add(b).toFloatArray();
                                    double expected = 0;
                                    for (int i = 0; i < n; i++) {
                                        expected += (double) x[i] * y[i];
                                        if (sum[i] != x[i] + y[i]) {
                                            wrong.incrementAndGet();
                                        }
                                    }
                                    if (Math.abs(dot - expected) > 1e-3 * Math.max(1, expected)) {
                                        wrong.incrementAndGet();
                                    }
                                    checked.incrementAndGet();
                                }
                            }
                        } catch (RuntimeException e) {
                            wrong.incrementAndGet();
                            e.printStackTrace();
                        }
                    },
                    "worker-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        Probe.print("checked", checked.get());
        Probe.print("wrong", wrong.get());
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }
}
