package dev.pools.sample;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.TranslateException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * A small image classifier on DJL's PyTorch engine, fed entirely from Java data:
 * <ol>
 *   <li>inference of the untrained network over batches of 1 to 512 synthetic images;</li>
 *   <li>a short training run: a few epochs over 4096 images in shuffled batches of 64;</li>
 *   <li>the same inference again, now accurate.</li>
 * </ol>
 * A loader prepares each batch in Java and keeps {@value #PREFETCH} batches ready ahead of the
 * network, as data loaders do, so several batches are live at once. Every tensor made from Java
 * data asks for direct memory; under {@code -javaagent:pools.jar} that memory comes from the pools,
 * with no change here. Seeded and deterministic: the same run makes the same requests in the same
 * order.
 */
public final class SampleApp {

    private static final int[] BATCH_SIZES = {1, 7, 32, 128, 512, 64, 3, 256, 16, 384};
    private static final int PREFETCH = 3;
    private static final int TRAIN_IMAGES = 4096;
    private static final int TEST_IMAGES = 2048;
    private static final int TRAIN_BATCH = 64;

    /**
     * Arguments: the number of epochs (default 4), and {@code leak} to end with a bug on purpose:
     * inference that keeps every batch it makes, until memory runs out (for the container tests).
     * Or {@code serve <threads> <requests>}: the network served by request threads ({@link Serving}).
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("serve")) {
            // The same network served by request threads (BENCHMARKS.md, B6): serve <threads> <requests per thread>.
            Serving.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        int epochs = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        boolean leak = args.length > 1 && args[1].equals("leak");
        long start = System.nanoTime();
        Engine engine = Engine.getEngine("PyTorch");
        engine.setRandomSeed(42);
        Digits train = Digits.generate(TRAIN_IMAGES, 1);
        Digits test = Digits.generate(TEST_IMAGES, 2);
        try (NDManager manager = NDManager.newBaseManager("PyTorch");
                Model model = Model.newInstance("digits", "PyTorch")) {
            model.setBlock(network());
            DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                    .optOptimizer(Optimizer.adam()
                            .optLearningRateTracker(Tracker.fixed(0.002f))
                            .build());
            try (Trainer trainer = model.newTrainer(config)) {
                trainer.initialize(new Shape(1, Digits.PIXELS));
                System.out.printf(
                        Locale.ROOT,
                        "engine %s %s, a network of %d parameters%n",
                        engine.getEngineName(),
                        engine.getVersion(),
                        parameterCount(model));
                double before = infer(trainer, manager, test, "before training");
                train(trainer, manager, train, epochs);
                double after = infer(trainer, manager, test, "after training");
                inferAll(trainer, manager, test);
                if (leak) {
                    leak(manager, test);
                }
                System.out.printf(
                        Locale.ROOT,
                        "accuracy %.1f%% -> %.1f%%, %.1f s in all%n",
                        before * 100,
                        after * 100,
                        (System.nanoTime() - start) / 1e9);
            }
        }
    }

    static SequentialBlock network() {
        return new SequentialBlock()
                .add(Blocks.batchFlattenBlock(Digits.PIXELS))
                .add(Linear.builder().setUnits(256).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(128).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(Digits.CLASSES).build());
    }

    private static long parameterCount(Model model) {
        long n = 0;
        for (var p : model.getBlock().getParameters().values()) {
            n += p.getArray().size();
        }
        return n;
    }

    /** One batch made from Java data, with the sub-manager that owns its arrays and everything computed from them. */
    private record Prepared(NDManager owner, NDArray images, NDArray labels) implements AutoCloseable {
        static Prepared of(NDManager parent, float[] images, float[] labels, int size) {
            NDManager owner = parent.newSubManager();
            return new Prepared(
                    owner, owner.create(images, new Shape(size, Digits.PIXELS)), owner.create(labels, new Shape(size)));
        }

        @Override
        public void close() {
            owner.close();
        }
    }

    /** Runs the network over the test images in batches of 1 to 512; returns the accuracy. */
    private static double infer(Trainer trainer, NDManager manager, Digits data, String when) {
        ArrayDeque<Prepared> ready = new ArrayDeque<>();
        int next = 0;
        int round = 0;
        int batches = 0;
        long correct = 0;
        long t0 = System.nanoTime();
        while (next < data.count || !ready.isEmpty()) {
            while (ready.size() < PREFETCH && next < data.count) {
                int size = Math.min(BATCH_SIZES[round++ % BATCH_SIZES.length], data.count - next);
                ready.add(Prepared.of(manager, data.images(next, next + size), data.labels(next, next + size), size));
                next += size;
            }
            try (Prepared b = ready.poll()) {
                NDArray logits = trainer.evaluate(new NDList(b.images())).singletonOrThrow();
                correct += logits.argMax(1)
                        .toType(b.labels().getDataType(), false)
                        .eq(b.labels())
                        .countNonzero()
                        .getLong();
            }
            batches++;
        }
        double accuracy = (double) correct / data.count;
        System.out.printf(
                Locale.ROOT,
                "inference %s: %d images in %d batches of 1 to 512, accuracy %.1f%% (%.0f ms)%n",
                when,
                data.count,
                batches,
                accuracy * 100,
                (System.nanoTime() - t0) / 1e6);
        return accuracy;
    }

    /** A leak on purpose: batches that are made and never closed, 6 MiB more every round. */
    private static void leak(NDManager manager, Digits data) {
        ArrayDeque<Prepared> kept = new ArrayDeque<>();
        for (int round = 1; ; round++) {
            for (int from = 0; from < data.count; from += 512) {
                kept.add(Prepared.of(manager, data.images(from, from + 512), data.labels(from, from + 512), 512));
            }
            System.out.printf(
                    Locale.ROOT, "leak: %d batches kept, %d MiB%n", kept.size(), round * 6L * data.count / 2048);
        }
    }

    /** The whole test set as one batch: one large tensor. */
    private static void inferAll(Trainer trainer, NDManager manager, Digits data) {
        long t0 = System.nanoTime();
        try (Prepared all = Prepared.of(manager, data.images, data.labels, data.count)) {
            NDArray logits = trainer.evaluate(new NDList(all.images())).singletonOrThrow();
            long correct = logits.argMax(1)
                    .toType(all.labels().getDataType(), false)
                    .eq(all.labels())
                    .countNonzero()
                    .getLong();
            System.out.printf(
                    Locale.ROOT,
                    "inference of all %d test images in one batch: accuracy %.1f%% (%.0f ms)%n",
                    data.count,
                    100.0 * correct / data.count,
                    (System.nanoTime() - t0) / 1e6);
        }
    }

    /** Trains in shuffled batches of 64, each gathered in Java from the training images. */
    private static void train(Trainer trainer, NDManager manager, Digits data, int epochs) throws TranslateException {
        Random shuffle = new Random(7);
        int steps = data.count / TRAIN_BATCH;
        long t0 = System.nanoTime();
        for (int epoch = 1; epoch <= epochs; epoch++) {
            int[] order = permutation(data.count, shuffle);
            ArrayDeque<Prepared> ready = new ArrayDeque<>();
            int next = 0;
            float loss = 0;
            for (int step = 0; step < steps; step++) {
                while (ready.size() < PREFETCH && next < steps) {
                    ready.add(gather(manager, data, order, next++ * TRAIN_BATCH));
                }
                try (Prepared b = ready.poll();
                        GradientCollector gradients = trainer.newGradientCollector()) {
                    NDList predictions = trainer.forward(new NDList(b.images()));
                    NDArray batchLoss = trainer.getLoss().evaluate(new NDList(b.labels()), predictions);
                    gradients.backward(batchLoss);
                    loss = batchLoss.getFloat();
                }
                trainer.step();
            }
            System.out.printf(
                    Locale.ROOT,
                    "training epoch %d/%d: %d batches of %d, loss %.3f%n",
                    epoch,
                    epochs,
                    steps,
                    TRAIN_BATCH,
                    loss);
        }
        System.out.printf(
                Locale.ROOT,
                "training %d images x %d epochs (%.0f ms)%n",
                data.count,
                epochs,
                (System.nanoTime() - t0) / 1e6);
    }

    private static Prepared gather(NDManager manager, Digits data, int[] order, int from) {
        float[] images = new float[TRAIN_BATCH * Digits.PIXELS];
        float[] labels = new float[TRAIN_BATCH];
        for (int i = 0; i < TRAIN_BATCH; i++) {
            int n = order[from + i];
            System.arraycopy(data.images, n * Digits.PIXELS, images, i * Digits.PIXELS, Digits.PIXELS);
            labels[i] = data.labels[n];
        }
        return Prepared.of(manager, images, labels, TRAIN_BATCH);
    }

    private static int[] permutation(int n, Random random) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
