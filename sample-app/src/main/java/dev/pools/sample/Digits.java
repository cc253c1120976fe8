package dev.pools.sample;

import java.util.Arrays;
import java.util.Random;

/**
 * Synthetic 28x28 grey-scale "digits", made in Java from a seed: each class is a blurred stroke
 * pattern at its own place and angle, plus noise. Enough structure for a small network to learn,
 * no download.
 */
final class Digits {

    static final int SIDE = 28;
    static final int PIXELS = SIDE * SIDE;
    static final int CLASSES = 10;

    final float[] images;
    final float[] labels;
    final int count;

    private Digits(float[] images, float[] labels, int count) {
        this.images = images;
        this.labels = labels;
        this.count = count;
    }

    static Digits generate(int count, long seed) {
        Random random = new Random(seed);
        float[] images = new float[count * PIXELS];
        float[] labels = new float[count];
        for (int n = 0; n < count; n++) {
            int label = random.nextInt(CLASSES);
            labels[n] = label;
            double angle = Math.PI * label / CLASSES;
            double cx = 8 + (label % 4) * 4 + 1.5 * random.nextGaussian();
            double cy = 8 + (label / 4) * 5 + 1.5 * random.nextGaussian();
            for (int t = -8; t <= 8; t++) {
                int x = (int) Math.round(cx + t * Math.cos(angle));
                int y = (int) Math.round(cy + t * Math.sin(angle));
                for (int dy = -1; dy <= 1; dy++) {
                    for (int dx = -1; dx <= 1; dx++) {
                        int px = x + dx;
                        int py = y + dy;
                        if (px >= 0 && px < SIDE && py >= 0 && py < SIDE) {
                            images[n * PIXELS + py * SIDE + px] += dx == 0 && dy == 0 ? 0.6f : 0.15f;
                        }
                    }
                }
            }
            for (int p = 0; p < PIXELS; p++) {
                images[n * PIXELS + p] =
                        Math.min(1f, images[n * PIXELS + p] + (float) Math.abs(random.nextGaussian()) * 0.3f);
            }
        }
        return new Digits(images, labels, count);
    }

    /** Images {@code from} (inclusive) to {@code to} (exclusive), flattened. */
    float[] images(int from, int to) {
        return Arrays.copyOfRange(images, from * PIXELS, to * PIXELS);
    }

    float[] labels(int from, int to) {
        return Arrays.copyOfRange(labels, from, to);
    }
}
