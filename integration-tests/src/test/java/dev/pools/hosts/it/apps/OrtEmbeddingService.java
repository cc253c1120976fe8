package dev.pools.hosts.it.apps;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A sentence-embedding service on ONNX Runtime: a hashing tokenizer, a model of about 21 million
 * parameters (a 30 522 x 640 token table, then 640 -> 1024 -> 640), one session shared by
 * {@code threads} request threads, each serving {@code requests} batches of 1 to 16 synthetic
 * sentences. Seeded: the same run computes the same embeddings; it prints their checksum and the
 * throughput. Arguments: threads, requests per thread, and optionally warm-up requests per thread:
 * served first and left out of the throughput, which counts from when every thread has done its
 * warm-up (BENCHMARKS.md, B6).
 */
public final class OrtEmbeddingService {

    static final int VOCAB = 30_522;
    static final int DIM = 640;
    static final int HIDDEN = 1024;
    private static final String[] WORDS = ("the a model tensor memory pool page slice java runtime inference"
                    + " request thread batch token sentence vector native heap direct buffer service latency limit"
                    + " container kernel cluster executor layout peak cap measure replay")
            .split(" ");

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int requests = Integer.parseInt(args[1]);
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        Path model = Path.of("embedding.onnx");
        if (!Files.exists(model)) {
            Files.write(model, OnnxModels.embedding(VOCAB, DIM, HIDDEN, 42));
        }
        Probe.awaitRecording();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(1);
        // The process's CPU time over the same window as the throughput: start-up is left out of both.
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[] start = new long[2];
        CyclicBarrier warm = new CyclicBarrier(threads, () -> {
            start[0] = System.nanoTime();
            start[1] = os.getProcessCpuTime();
        });
        long[] checksums = new long[threads];
        AtomicLong sentences = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (OrtSession session = env.createSession(model.toString(), options)) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread w = new Thread(
                        () -> checksums[id] =
                                serve(env, session, new Random(1000 + id), warmup, requests, warm, sentences),
                        "request-" + t);
                w.setUncaughtExceptionHandler((thread, e) -> failure.set(e));
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a request thread failed", failure.get());
        }
        double seconds = (System.nanoTime() - start[0]) / 1e9;
        double cpu = (os.getProcessCpuTime() - start[1]) / 1e9;
        long sum = 0;
        for (long c : checksums) {
            sum = sum * 31 + c;
        }
        System.out.printf(
                Locale.ROOT,
                "served %d sentences in %.2f s (%.0f per second), checksum %016x%n",
                sentences.get(),
                seconds,
                sentences.get() / seconds,
                sum);
        System.out.printf(Locale.ROOT, "process CPU in that time: %.2f s%n", cpu);
    }

    private static long serve(
            OrtEnvironment env,
            OrtSession session,
            Random random,
            int warmup,
            int requests,
            CyclicBarrier warm,
            AtomicLong count) {
        long checksum = 0;
        try {
            for (int r = 0; r < warmup + requests; r++) {
                if (r == warmup) {
                    // Bounded: a thread that failed in its warm-up must not leave the others waiting.
                    warm.await(10, TimeUnit.MINUTES);
                }
                int batch = 1 + random.nextInt(16);
                int tokens = 4 + random.nextInt(60);
                LongBuffer ids = LongBuffer.allocate(batch * tokens);
                for (int b = 0; b < batch; b++) {
                    ids.put(tokenize(sentence(random, tokens), tokens));
                }
                ids.flip();
                // A heap buffer: ONNX Runtime copies it into a direct buffer of its own, from the pools.
                try (OnnxTensor input = OnnxTensor.createTensor(env, ids, new long[] {batch, tokens});
                        OrtSession.Result out = session.run(Map.of("input_ids", input))) {
                    float[][] embedding = (float[][]) out.get(0).getValue();
                    for (float[] e : embedding) {
                        checksum = checksum * 31 + Float.floatToIntBits(Math.round(e[0] * 1e4f) / 1e4f);
                    }
                }
                if (r >= warmup) {
                    count.addAndGet(batch);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return checksum;
    }

    private static String sentence(Random random, int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            b.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    /** Lower-cased words hashed into the vocabulary, padded or cut to {@code length} tokens. */
    static long[] tokenize(String text, int length) {
        String[] words = text.toLowerCase(Locale.ROOT).split("[^a-z0-9]+");
        long[] ids = new long[length];
        for (int i = 0; i < length; i++) {
            ids[i] = i < words.length ? Math.floorMod(words[i].hashCode(), VOCAB - 1) + 1 : 0;
        }
        return ids;
    }
}
