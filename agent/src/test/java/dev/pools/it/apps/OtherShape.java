package dev.pools.it.apps;

import ai.onnxruntime.OnnxTensor;
import dev.pools.api.MemoryPools;

/** Uses a host class whose shape the close hooks do not know; the host must run as if no hook were there. */
public final class OtherShape {

    public static void main(String[] args) {
        try (OnnxTensor array = new OnnxTensor()) {
            System.out.println("first " + array.first());
            System.out.println("pooled " + MemoryPools.usage().numberAllocs());
        }
        System.out.println("closed");
    }
}
